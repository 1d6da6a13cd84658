import Foundation
internal import CALSA

/// A failure reported by ALSA, with `snd_strerror`'s message.
public struct ALSAError: Error, CustomStringConvertible, Sendable {
    /// The negative errno ALSA returned.
    public let code: Int32
    public let function: String
    public let device: String

    public var message: String { String(cString: snd_strerror(code)) }
    public var description: String { "ALSA: \(function) on '\(device)' failed: \(message)" }

    /// The device is held by another program.
    public var isBusy: Bool { code == -EBUSY || code == -EAGAIN }

    /// `true` when the code is a failure; negative codes become `ALSAError`.
    @discardableResult
    static func check<Code: BinaryInteger>(_ code: Code, _ function: String, device: String) throws(ALSAError) -> Code {
        guard code < 0 else { return code }
        throw ALSAError(code: Int32(code), function: function, device: device)
    }
}

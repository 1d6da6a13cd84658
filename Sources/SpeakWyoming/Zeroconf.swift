import Foundation
import SpeakKit

/// `_wyoming._tcp` announced over mDNS through the Avahi daemon, as Home Assistant discovers
/// wyoming-piper: a child `avahi-publish-service` (Debian's avahi-utils) holds the record for as
/// long as it runs. The record names this host's mDNS name, which Avahi resolves to the addresses
/// of the host's real interfaces, so a server bound to 0.0.0.0 is never advertised as 0.0.0.0.
public final class ZeroconfAdvertisement: Sendable {
    public static let serviceType = "_wyoming._tcp"

    /// Why `address` cannot be advertised (a loopback address), known before anything is started.
    public static func refusal(for address: WyomingAddress) -> WyomingServerError? {
        guard address.isLoopback else { return nil }
        return WyomingServerError(
            "--zeroconf: \(address) is a loopback address, which no other host can reach; "
                + "bind to 0.0.0.0 or a real address")
    }

    private let process: Process
    /// The name Avahi established (it adds ` #2` when another host has taken the one asked for).
    public let name: String

    /// Publishes `name` for `address`'s port and returns once Avahi has established it.
    public init(name: String, address: WyomingAddress, timeout: TimeInterval = 10) throws(WyomingServerError) {
        if let refusal = Self.refusal(for: address) { throw refusal }
        guard let tool = Self.find("avahi-publish-service") else {
            throw WyomingServerError(
                "--zeroconf needs avahi-publish-service (apt-get install avahi-utils avahi-daemon)")
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = [name, Self.serviceType, String(address.port)]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw WyomingServerError("--zeroconf: cannot start \(tool.path): \(error)") }
        // It says "Established under name 'NAME'" once the record is up, or why not, and exits.
        let said = Locked<(text: String, name: String?)>(("", nil))
        let settled = DispatchSemaphore(value: 0)
        let reader = errors.fileHandleForReading
        Thread.detachNewThread {
            var signalled = false
            while true {
                let data = reader.availableData  // keeps draining, so the child never blocks on the pipe
                if data.isEmpty { break }
                let name = said.withLock { said -> String? in
                    said.text += String(decoding: data, as: UTF8.self)
                    guard let range = said.text.range(of: "Established under name '"),
                        let end = said.text[range.upperBound...].firstIndex(of: "'")
                    else { return nil }
                    said.name = String(said.text[range.upperBound..<end])
                    return said.name
                }
                if name != nil && !signalled {
                    signalled = true
                    settled.signal()
                }
            }
            if !signalled { settled.signal() }
        }
        if settled.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw WyomingServerError(
                "--zeroconf: Avahi did not establish the service within \(Int(timeout)) s (is avahi-daemon running?)")
        }
        let (text, established) = said.withLock { $0 }
        guard let established else {
            process.terminate()
            let reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
            throw WyomingServerError(
                "--zeroconf: avahi-publish-service failed: \(reason.isEmpty ? "no reason given" : reason) "
                    + "(is avahi-daemon running?)"
            )
        }
        self.process = process
        self.name = established
    }

    /// Withdraws the record.
    public func withdraw() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    private static func find(_ tool: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"]).lazy
            .map { URL(fileURLWithPath: $0).appendingPathComponent(tool) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

import Foundation
import SpeakTestSupport

/// A real `speak serve` on a free port, with its own tokens file and cache directory. Released, it
/// stops the server as a user would (SIGTERM, so it removes its upload spool) and removes its
/// directory unless the test gave it one.
final class RunningServer {
    let port: Int
    let directory: URL
    /// Whether `directory` was made here, so goes with the server.
    private let ownsDirectory: Bool
    let token = "test-token-\(UUID().uuidString.prefix(8))"
    let process: Subprocess
    var url: String { "http://127.0.0.1:\(port)" }
    var tokensFile: URL { directory.appendingPathComponent("tokens") }
    var cacheDirectory: URL { directory.appendingPathComponent("cache") }

    /// `extra` flags go after the defaults (later flags win); `environment` adds to the test's.
    /// `open`: no tokens file, so every request is answered without a token.
    init(_ extra: [String] = [], environment: [String: String] = [:], directory: URL? = nil, open: Bool = false) throws
    {
        self.directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "speak-serve-\(UUID().uuidString.prefix(8))")
        ownsDirectory = directory == nil
        let made = ownsDirectory ? self.directory : nil
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        // Until the instance is whole, deinit would not run: a failure here cleans up itself.
        do {
            let tokensFile = self.directory.appendingPathComponent("tokens")
            let cacheDirectory = self.directory.appendingPathComponent("cache")
            let hashed = try Speak.run(["serve", "--hash-token", token, "--name", "tests"])
            try Data(hashed.stdout.utf8).write(to: tokensFile)
            var variables = ProcessInfo.processInfo.environment
            variables.merge(environment) { $1 }
            // Port 0: the server binds a free one and prints it, so no two tests race for a port.
            let started = try Speak.start(
                [
                    "serve", "--port", "0", "--cache-dir", cacheDirectory.path, "--workers", "2",
                ] + (open ? [] : ["--tokens", tokensFile.path]) + extra,
                environment: variables)
            do { port = try Self.boundPort(of: started) } catch {
                _ = started.terminate()
                throw error
            }
            process = started
        } catch {
            if let made { try? FileManager.default.removeItem(at: made) }
            throw error
        }
        // From here a failure releases a whole instance: deinit stops the server and cleans up.
        try waitUntilHealthy()
    }

    /// The port ending the first line of `process`'s standard output that holds `marker` (its
    /// "listening on http://HOST:PORT" line by default), once it prints it. A child that exits
    /// first fails with its stderr.
    static func boundPort(of process: Subprocess, announcedAfter marker: String = "listening on http://") throws -> Int
    {
        var port: Int?
        try poll("speak serve to say its port", seconds: 20) {
            let line = process.stdoutSoFar.split(separator: "\n").first { $0.contains(marker) }
            port = line.flatMap { $0.split(separator: ":").last }.flatMap { Int($0) }
            return port != nil || process.hasExited
        }
        guard let port else { throw TestFailure("speak serve exited before it listened: \(process.wait().stderr)") }
        return port
    }

    deinit {
        _ = process.terminate()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Stops with SIGTERM and returns how it exited.
    func stop() -> Subprocess.Result {
        process.send(SIGTERM)
        return process.wait()
    }

    /// Up to 20 s: a debug build starting while other suites load models took over 5 s once.
    private func waitUntilHealthy() throws {
        do {
            try poll("speak serve on port \(port) to come up", seconds: 20) {
                WireClient(port: port).call("GET", "/health").status == 200
            }
        } catch {
            throw TestFailure("speak serve did not come up on port \(port)")
        }
    }

    /// A port free now, for a test that must write it somewhere before a server binds it (nginx's
    /// configuration); anything else starts with port 0 and reads the port it got.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestFailure("no free port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

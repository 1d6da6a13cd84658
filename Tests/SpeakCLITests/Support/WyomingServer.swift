import Foundation

/// A real `speak serve --no-http --wyoming tcp://127.0.0.1:0` (a free port, which it names), driven by the
/// `wyoming` package through Tests/Fixtures/wyoming_client.py.
final class RunningWyomingServer {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/wyoming_client.py").standardizedFileURL.path

    let port: Int
    let directory: URL
    let process: Subprocess

    /// `limits`: `SPEAK_WYOMING_LIMITS` for the server (`header-seconds=1,…`).
    init(host: String = "127.0.0.1", _ extra: [String] = [], limits: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-wyoming-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Until the instance is whole, deinit would not run: a failure here cleans up itself.
        let made = directory
        do {
            // Port 0: the server binds a free one and prints it, so no two tests race for a port.
            let started = try Speak.start(
                [
                    "serve", "--no-http", "--wyoming", "tcp://\(host):0", "--workers", "1", "--cache-dir",
                    made.appendingPathComponent("cache").path,
                ] + extra,
                environment: limits.map {
                    ProcessInfo.processInfo.environment.merging(["SPEAK_WYOMING_LIMITS": $0]) { $1 }
                })
            do { port = try RunningServer.boundPort(of: started, announcedAfter: "Wyoming on tcp://") } catch {
                _ = started.terminate()
                throw error
            }
            process = started
        } catch {
            try? FileManager.default.removeItem(at: made)
            throw error
        }
    }

    /// Stopped as a user would (SIGTERM), so the server removes its upload spool.
    deinit {
        _ = process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    func stop() -> Subprocess.Result {
        process.send(SIGTERM)
        return process.wait()
    }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// Runs a wyoming_client.py command and returns the JSON object it printed.
    func client(_ command: String, _ arguments: [String] = []) throws -> [String: Any] {
        let result = try Subprocess.run("/usr/bin/env", ["python3", Self.client, command, String(port)] + arguments)
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last,
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            throw TestFailure(
                "wyoming_client.py \(command) failed (\(result.status)): \(result.stderr)\(result.stdout)")
        }
        return object
    }
}

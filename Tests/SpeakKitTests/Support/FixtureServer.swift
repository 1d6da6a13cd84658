import Foundation

/// A Python HTTP server from `Tests/Fixtures` on a free port, alive as long as this object: the
/// script prints its port as its first line.
final class FixtureServer {
    let port: Int
    private let pid: pid_t

    init(script: String, arguments: [String]) throws {
        // Outside the test target's folder, so SwiftPM does not ask for it to be declared a resource.
        let path = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appending(path: "Fixtures/\(script)").path
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw TestFailure("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
        posix_spawn_file_actions_addclose(&actions, descriptors[0])
        posix_spawn_file_actions_addclose(&actions, descriptors[1])
        let argv = (["python3", "-u", path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let error = posix_spawnp(&pid, "python3", &actions, nil, argv, environ)
        close(descriptors[1])
        defer { close(descriptors[0]) }
        guard error == 0 else { throw TestFailure("cannot start python3: \(String(cString: strerror(error)))") }
        self.pid = pid

        // The first line is the port; EOF instead means the script failed.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptors[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            throw TestFailure("\(script) printed no port")
        }
        self.port = port
    }

    deinit {
        kill(pid, SIGKILL)
        waitpid(pid, nil, 0)
    }

    /// `key` in a file in `directory`. Tests pass keys in files, never with `setenv`: they run in
    /// parallel, and a spawn reading `environ` while another thread grows it fails with EFAULT.
    static func keyFile(in directory: URL, key: String) -> String {
        let file = directory.appending(path: "key")
        try! Data((key + "\n").utf8).write(to: file)
        return file.path
    }
}

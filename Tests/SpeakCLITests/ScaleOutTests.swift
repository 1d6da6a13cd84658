import Foundation
import SpeakKit
import SpeakTestSupport
import Synchronization
import Testing

/// Three `speak serve` instances behind nginx running `Samples/nginx.conf` (issue 12): caching per
/// token, retries past a killed or restarting instance, one rate limit across instances.
@Suite("Scale-out: instances behind nginx, one cache directory", .serialized)
struct ScaleOutTests {
    /// The README's step, `cp Samples/nginx.conf /etc/nginx/conf.d/speak.conf && nginx -t`, against
    /// Debian's own /etc/nginx/nginx.conf, in a private mount namespace so the machine's nginx is
    /// untouched: an empty conf.d, and an empty /var/lib/nginx as the package leaves it.
    @Test(
        "the sample as a user copies it into /etc/nginx/conf.d passes nginx -t",
        .enabled(
            if: Cluster.canIsolate && FileManager.default.fileExists(atPath: "/etc/nginx/nginx.conf"),
            "needs unshare -m (root) and Debian's /etc/nginx"))
    func sampleAsCopied() throws {
        let script = """
            mount -t tmpfs tmpfs /etc/nginx/conf.d && mount -t tmpfs tmpfs /var/lib/nginx || exit 98
            cp "$1" /etc/nginx/conf.d/speak.conf && exec /usr/sbin/nginx -t
            """
        let result = try Subprocess.run(
            Cluster.unshare, ["-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", Cluster.sample.path])
        #expect(result.status == 0, "nginx -t: \(result.stderr)")
        #expect(result.stderr.contains("test is successful"), "\(result.stderr)")
    }

    @Test("GET /speak through nginx: a miss streams from an instance, a repeat is nginx's hit, If-None-Match a 304")
    func cachedAndUncached() throws {
        let cluster = try Cluster()
        let path = "/speak?text=Through%20the%20balancer.&voice=default"
        let first = cluster.get(path, token: cluster.alice)
        #expect(first.status == 200)
        #expect(first.header("content-type") == "audio/mpeg")
        #expect(first.header("x-cache-status") == "MISS")
        #expect(try PCMBuffer(audio: first.body).duration > 0.5)
        let second = cluster.get(path, token: cluster.alice)
        #expect(second.status == 200)
        #expect(second.header("x-cache-status") == "HIT")
        #expect(second.body == first.body)
        let etag = try #require(first.header("etag"))
        #expect(second.header("etag") == etag)
        let revalidated = cluster.get(path, token: cluster.alice, headers: ["If-None-Match": etag])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        // The instances' shared cache holds the same reply, whole.
        let entry = cluster.cacheDirectory.appendingPathComponent(String(etag.dropFirst().dropLast()) + ".reply")
        #expect(try ReplyCache.storedReply(at: entry) == first.body)

        let client = WireClient(port: cluster.port, token: cluster.alice)
        let spoken = client.call("POST", "/api/speak", json: #"{"text":"Posted through the balancer."}"#)
        #expect(spoken.status == 200)
        #expect(spoken.header("content-type") == "audio/mpeg")
        #expect(try PCMBuffer(audio: spoken.body).duration > 0.5)
        let played = client.call("POST", "/play", json: #"{"text":"Hi"}"#)
        #expect(played.status == 403)
        #expect(played.errorMessage?.contains("call that instance") == true)
        let oversized = client.call(
            "POST", "/api/speak", json: "{\"text\":\"" + String(repeating: "a", count: 70_000) + "\"}")
        #expect(oversized.status == 413)
        #expect(oversized.json?["error"] != nil)
    }

    /// The openai package's realtime client, unchanged, pointed at nginx: the handshake reaches an
    /// instance as a WebSocket upgrade, and frames pass both ways (an update answered).
    @Test("a realtime transcription session through nginx: session.created, then session.updated")
    func realtimeSession() throws {
        let cluster = try Cluster()
        let script = """
            import json, openai, sys
            port, token = sys.argv[1], sys.argv[2]
            client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1",
                                   websocket_base_url=f"ws://127.0.0.1:{port}/v1", api_key=token)
            with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
                created = conn.recv()
                conn.session.update(session={"type": "transcription", "audio": {"input": {
                    "format": {"type": "audio/pcm", "rate": 24000},
                    "transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                    "turn_detection": {"type": "server_vad", "silence_duration_ms": 700}}}})
                updated = conn.recv().model_dump(exclude_none=True)
                print(json.dumps({"created": created.type, "session_type": created.session.type,
                                  "updated": updated["type"], "session": updated.get("session")}))
            """
        let result = try Subprocess.run(
            "/usr/bin/env", ["python3", "-c", script, String(cluster.port), cluster.alice])
        #expect(result.status == 0, "\(result.stderr.suffix(2000)); nginx: \(cluster.nginxLog.suffix(2000))")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(report["created"] as? String == "session.created")
        #expect(report["session_type"] as? String == "transcription")
        #expect(report["updated"] as? String == "session.updated", "\(report)")
        let input = ((report["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
        #expect((input?["turn_detection"] as? [String: Any])?["silence_duration_ms"] as? Double == 700, "\(report)")
    }

    @Test(
        "uploads through nginx to an instance: note.m4a is transcribed, 24 MiB reaches speak on each route, 26 MiB 413"
    )
    func uploads() throws {
        let cluster = try Cluster()
        let client = WireClient(port: cluster.port, token: cluster.alice)
        func upload(_ file: URL, type: String, fields: [(String, String)] = [], to path: String = "/api/transcribe")
            throws -> ServiceAnswer
        {
            let part = MultipartBody.File(
                filename: file.lastPathComponent, contentType: type, data: try Data(contentsOf: file))
            return client.upload(path, MultipartBody(fields: fields, files: [part]))
        }
        let note = Cluster.sample.deletingLastPathComponent().appendingPathComponent("yes.m4a")
        let heard = try upload(
            note, type: "audio/mp4", fields: [("language", "en"), ("expect", "yes please do that|no|cancel")])
        #expect(heard.status == 200, "\(heard.text)")
        #expect(heard.json?["text"]?.string == "yes please do that")
        // Under nginx's limit and speak's (both 25 MiB): speak itself reads it, and says it is not audio.
        let large = cluster.directory.appendingPathComponent("large.bin")
        try Data(repeating: 0x55, count: 24 << 20).write(to: large)
        // On each upload route; OpenAI's answer 400 for a file that is not audio.
        for (path, status) in [
            ("/api/transcribe", 415), ("/v1/audio/transcriptions", 400), ("/v1/audio/translations", 400),
        ] {
            let notAudio = try upload(large, type: "application/octet-stream", to: path)
            #expect(notAudio.status == status, "\(path): \(notAudio.text.prefix(300))")
            #expect(notAudio.text.contains("unsupported_media"), "\(path): \(notAudio.text.prefix(300))")
        }
        try Data(repeating: 0x55, count: 26 << 20).write(to: large)
        let tooLarge = try upload(large, type: "application/octet-stream")
        #expect(tooLarge.status == 413)
        #expect(tooLarge.json?["error"] != nil, "\(tooLarge.text.prefix(300))")
    }

    @Test("two tokens never see each other's cached reply, and a wrong token never gets a cached 200")
    func cachePerToken() throws {
        let cluster = try Cluster()
        let path = "/speak?text=Only%20for%20the%20one%20who%20asked.&voice=default"
        #expect(cluster.get(path, token: cluster.alice).header("x-cache-status") == "MISS")
        #expect(cluster.get(path, token: cluster.alice).header("x-cache-status") == "HIT")
        // Bob's first request is not served from Alice's entry (speak answers it from its own cache).
        let bob = cluster.get(path, token: cluster.bob)
        #expect(bob.status == 200)
        #expect(bob.header("x-cache-status") == "MISS")
        #expect(cluster.get(path, token: cluster.bob).header("x-cache-status") == "HIT")
        // Both entries are kept (nginx finds each by the hash of its Authorization header).
        #expect(cluster.get(path, token: cluster.alice).header("x-cache-status") == "HIT")
        for _ in 0..<2 {
            for token in ["wrong-token", nil] {
                let refused = cluster.get(path, token: token)
                #expect(refused.status == 401, "\(token ?? "no token")")
                #expect(refused.header("x-cache-status") != "HIT")
                #expect(refused.header("content-type") != "audio/mpeg")
            }
        }
        // nginx's cache files hold their key in plain text: no token may be in it.
        let cache = cluster.nginxCacheDirectory
        let files = try #require(FileManager.default.enumerator(atPath: cache.path)).compactMap { $0 as? String }
            .map { cache.appendingPathComponent($0) }.filter { !$0.hasDirectoryPath }
        let stored = files.compactMap { try? Data(contentsOf: $0) }
        #expect(stored.count >= 2, "\(files)")
        for token in [cluster.alice, cluster.bob] {
            #expect(!stored.contains { $0.range(of: Data(token.utf8)) != nil }, "a token is in nginx's cache")
        }
    }

    @Test("a token revoked by SIGHUP gets no more of nginx's cached replies; with no instance, nothing is served")
    func revokedToken() throws {
        let cluster = try Cluster()
        let path = "/speak?text=Kept%20for%20a%20day.&voice=default"
        for token in [cluster.alice, cluster.bob] {
            #expect(cluster.get(path, token: token).header("x-cache-status") == "MISS")
            #expect(cluster.get(path, token: token).header("x-cache-status") == "HIT")
        }
        let tokens = try String(contentsOf: cluster.tokensFile, encoding: .utf8)
        let kept = tokens.split(separator: "\n").filter { !$0.contains("alice") }
        try Data((kept.joined(separator: "\n") + "\n").utf8).write(to: cluster.tokensFile)
        for instance in cluster.instances { instance.process.send(SIGHUP) }
        try poll("every instance to refuse the revoked token") {
            cluster.instances.allSatisfy {
                WireClient(port: $0.port, token: cluster.alice).call("GET", "/voices").status == 401
            }
        }
        // least_conn: each instance in turn checks the token.
        for _ in cluster.instances {
            let refused = cluster.get(path, token: cluster.alice)
            #expect(refused.status == 401, "\(refused.headers)")
            #expect(refused.errorField("code") == "invalid_api_key")
            #expect(refused.header("www-authenticate") == "Bearer")
            #expect(cluster.get(path, token: cluster.bob).header("x-cache-status") == "HIT")
        }
        // No instance to check a token: no cached reply either, and the failure in speak's shape.
        for instance in cluster.instances { instance.kill() }
        let unchecked = cluster.get(path, token: cluster.bob)
        #expect(
            unchecked.status == 502 && unchecked.header("content-type") == "application/json",
            "\(unchecked.status) \(unchecked.headers) \(unchecked.text)")
        #expect(unchecked.errorField("code") == "upstream_failed")
    }

    @Test("kill -9 of one instance under a load of cached and uncached GETs: no request fails")
    func killedInstance() throws {
        let cluster = try Cluster(rateLimit: .unlimited)
        let load = try Load(cluster: cluster, token: cluster.alice)
        try load.waitForReplies(atLeast: 40)
        cluster.instances[1].kill()
        try load.waitForReplies(atLeast: load.replies + 60)
        let outcome = try load.finish()
        // GET /speak is answered whole: a request the dead instance had not answered yet, whatever
        // it had synthesised, is retried on another one.
        #expect(
            outcome.failures.isEmpty,
            "\(outcome.failures.count) failed: \(outcome.failures.prefix(5)); nginx: \(cluster.nginxLog.suffix(4000))")
        #expect(outcome.uncached > 30 && outcome.cached > 30)
    }

    @Test("a rolling restart under load (SIGTERM, start again, wait for /ready, next): no request fails")
    func rollingRestart() throws {
        let cluster = try Cluster(rateLimit: .unlimited)
        let load = try Load(cluster: cluster, token: cluster.alice)
        try load.waitForReplies(atLeast: 40)
        for index in cluster.instances.indices {
            let stopped = cluster.instances[index].stop()
            #expect(stopped.status == 0, "instance \(index): \(stopped.stderr)")
            try cluster.restart(index)
            // nginx keeps an instance it saw fail out for fail_timeout: wait until it is back.
            try cluster.waitUntilBalanced(to: index)
            try load.waitForReplies(atLeast: load.replies + 20)
        }
        let outcome = try load.finish()
        #expect(
            outcome.failures.isEmpty,
            "\(outcome.failures.count) failed: \(outcome.failures.prefix(5)); nginx: \(cluster.nginxLog.suffix(4000))")
        #expect(outcome.uncached > 30 && outcome.cached > 30)
    }

    @Test("a voice no instance has installed, asked for again and again: that client's 503, no instance taken out")
    func uninstalledVoiceUnderLoad() throws {
        let cluster = try Cluster(rateLimit: .unlimited)
        let load = try Load(cluster: cluster, token: cluster.alice)
        try load.waitForReplies(atLeast: 20)
        // Every instance answers the same 503: trying the next one cannot help, and counting it as
        // the instance's failure would let one client mark all three down (nginx's max_fails).
        for attempt in 0..<12 {
            let reply = WireClient(port: cluster.port, token: cluster.bob).call(
                "POST", "/api/speak", json: #"{"text":"Boo.","voice":"ghost"}"#)
            #expect(reply.status == 503, "attempt \(attempt): \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.text.contains("not installed"), "attempt \(attempt): \(reply.text.prefix(200))")
        }
        try load.waitForReplies(atLeast: load.replies + 30)
        let outcome = try load.finish()
        #expect(
            outcome.failures.count == 0,
            "\(outcome.failures.count) failed: \(outcome.failures.prefix(5)); nginx: \(cluster.nginxLog.suffix(4000))")
    }

    @Test(
        "one token sending far past its limit through nginx is admitted at the configured rate, not once per instance")
    func rateLimitAcrossInstances() throws {
        // As shipped: nginx 120 a minute with bursts of 30; each instance the same (speak's default).
        let cluster = try Cluster()
        let script = """
            import http.client, json, sys, threading, urllib.parse
            port, token, total = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
            statuses, retry_after, codes, refused_by, lock = {}, set(), set(), set(), threading.Lock()
            def send(n):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                for i in range(n, total, 4):
                    query = urllib.parse.urlencode({"text": f"Limited reply number {i}."})
                    connection.request("GET", "/speak?" + query, headers={"Authorization": "Bearer " + token})
                    response = connection.getresponse()
                    body = response.read()
                    with lock:
                        statuses[response.status] = statuses.get(response.status, 0) + 1
                        if response.status == 429:
                            retry_after.add(response.getheader("Retry-After"))
                            refused_by.add(response.getheader("X-Upstream") or "nginx")
                            error = json.loads(body)["error"]
                            codes.add((error["code"], error["type"]))
            threads = [threading.Thread(target=send, args=(n,)) for n in range(4)]
            [thread.start() for thread in threads]
            [thread.join() for thread in threads]
            print(json.dumps({"statuses": statuses, "retry_after": sorted(retry_after), "codes": sorted(codes),
                              "refused_by": sorted(refused_by)}))
            """
        let sent = 150
        let result = try Subprocess.run(
            "/usr/bin/env", ["python3", "-c", script, String(cluster.port), cluster.alice, String(sent)])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let statuses = try #require(report["statuses"] as? [String: Int])
        let admitted = statuses["200"] ?? 0
        #expect(Set(statuses.keys) == ["200", "429"], "\(statuses)")
        // nginx's bucket: the burst at once (then 2 a second).
        #expect(admitted >= 30, "\(admitted) of \(sent) admitted")
        // Not on a clock: every refusal is nginx's own (no X-Upstream), so no instance saw enough
        // to refuse. Limited per instance alone, each would admit its own burst and refuse the
        // rest itself, named in X-Upstream.
        #expect(report["refused_by"] as? [String] == ["nginx"], "\(report)")
        #expect(report["retry_after"] as? [String] == ["1"])
        // nginx's refusal is speak's own, type and all.
        #expect(report["codes"] as? [[String]] == [["rate_limit_exceeded", "rate_limit_error"]], "\(report)")
    }

    /// Several `speak serve` processes on one cache directory: every reader sees either nothing
    /// or a whole entry, never a torn or mixed one.
    @Test("three instances writing the same keys at once leave only whole, verified entries")
    func concurrentWriters() throws {
        let cluster = try Cluster(withNginx: false, rateLimit: .unlimited)
        let watcher = CacheWatcher(directory: cluster.cacheDirectory)
        watcher.start()
        var overlapped = 0
        for round in 0..<2 {
            // A long text takes the workers a while, so the three writes overlap.
            let words = (0..<120).map { "word\(($0 * 7 + round * 13) % 97)" }.joined(separator: " ")
            let body = try JSONSerialization.data(withJSONObject: ["text": "Round \(round). " + words])
            let replies = Locked<[Int: ServiceAnswer]>([:])
            let failures = Locked<[String]>([])
            let clients = cluster.instances.map { WireClient(port: $0.port, token: cluster.alice) }
            DispatchQueue.concurrentPerform(iterations: clients.count) { index in
                let reply = clients[index].call(
                    "POST", "/api/speak", body: body, headers: ["Content-Type": "application/json"])
                // Status 0: no connection, or no reply read from it.
                if reply.status == 0 { failures.withLock { $0.append(reply.text) } }
                replies.withLock { $0[index] = reply }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            let bodies = replies.withLock { $0.values.map { $0 } }
            #expect(bodies.count == 3 && bodies.allSatisfy { $0.status == 200 && !$0.cut })
            // Not the same bytes: espeak-ng's noise and pitch flutter carry on from a process's
            // earlier utterances. The same speech, whole, from each.
            let durations = try bodies.map { try MP3Decoder.decode($0.body).duration }
            let shortest = try #require(durations.min())
            #expect(shortest > 5 && durations.max()! - shortest < 0.1, "\(durations)")
            let entries = try FileManager.default.contentsOfDirectory(atPath: cluster.cacheDirectory.path)
            let stored = entries.filter { $0.hasSuffix(".reply") }
            #expect(!entries.contains { $0.hasPrefix(".tmp-") }, "\(entries)")
            // The entry left is one instance's reply, whole.
            #expect(
                try stored.contains { name in
                    let entry = try ReplyCache.storedReply(at: cluster.cacheDirectory.appendingPathComponent(name))
                    return bodies.contains { $0.body == entry }
                })
            overlapped = max(overlapped, watcher.mostWritersAtOnce)
        }
        let seen = watcher.stop()
        #expect(seen.torn.isEmpty, "torn or mixed entries read: \(seen.torn.prefix(3))")
        #expect(seen.verified > 0)
        // Else the writes never overlapped and nothing was shown.
        #expect(overlapped >= 2, "at most \(overlapped) writer(s) of one key were seen at once")
    }
}

// MARK: - The cluster

/// `speak serve` instances on free loopback ports sharing one tokens file and one cache directory,
/// and (unless told not to) nginx in front of them with `Samples/nginx.conf`.
final class Cluster {
    enum RateLimit {
        /// As shipped: nginx's 120 a minute with bursts of 30, and speak's own default, the same.
        case shipped
        /// Neither limits: load tests.
        case unlimited
    }

    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Samples/nginx.conf").standardizedFileURL
    static let unshare = "/usr/bin/unshare"
    /// `unshare -m` needs root. With it, nginx runs in a mount namespace where a directory of the
    /// cluster's is /var/lib/nginx, so the sample's own cache path is used; without it, that path
    /// is rewritten into the cluster's directory.
    static let canIsolate =
        FileManager.default.isExecutableFile(atPath: unshare)
        && (try? Subprocess.run(unshare, ["-m", "/bin/true"]).status) == 0
    static let sampleCachePath = "/var/lib/nginx/speak"

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "speak-scale-\(UUID().uuidString.prefix(8))")
    let alice = "alice-\(UUID().uuidString)"
    let bob = "bob-\(UUID().uuidString)"
    /// The orchestrator's token for `/ready`, so probes are not charged to a client's limit.
    let probe = "probe-\(UUID().uuidString)"
    let rateLimit: RateLimit
    var instances: [Instance] = []
    private(set) var nginx: Subprocess?
    private(set) var port = 0
    var url: String { "http://127.0.0.1:\(port)" }
    var cacheDirectory: URL { directory.appendingPathComponent("cache") }
    /// What nginx sees as /var/lib/nginx (its temp paths and the sample's cache, which it creates).
    var nginxLibDirectory: URL { directory.appendingPathComponent("nginx-lib") }
    /// nginx's reply cache: the sample's `proxy_cache_path`, seen from outside nginx's namespace.
    var nginxCacheDirectory: URL { nginxLibDirectory.appendingPathComponent("speak") }
    var tokensFile: URL { directory.appendingPathComponent("tokens") }
    /// Holds `ghost`, a Piper voice whose model no instance has.
    var voicesDirectory: URL { directory.appendingPathComponent("voices") }
    /// The instances' TMPDIR: one killed with SIGKILL (as a test does) leaves its upload spool,
    /// which goes with the cluster's directory.
    var temporaryDirectory: URL { directory.appendingPathComponent("tmp") }

    init(instances count: Int = 3, withNginx: Bool = true, rateLimit: RateLimit = .shipped) throws {
        self.rateLimit = rateLimit
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: voicesDirectory, withIntermediateDirectories: true)
        try Data(#"{"name":"ghost","language":"en-US","engine":"piper","piper":{"model":"en_US-ghost.onnx"}}"#.utf8)
            .write(to: voicesDirectory.appendingPathComponent("ghost.json"))
        var tokens = ""
        for (token, name) in [(alice, "alice"), (bob, "bob"), (probe, "probe")] {
            tokens += try Speak.run(["serve", "--hash-token", token, "--name", name]).stdout
        }
        try Data(tokens.utf8).write(to: tokensFile)
        for _ in 0..<count { instances.append(try Instance(cluster: self)) }
        for instance in instances { try instance.waitUntilReady(probe: probe) }
        if withNginx { try startNginx() }
    }

    deinit {
        nginx?.send(SIGTERM)
        _ = nginx?.wait()
        for instance in instances { instance.kill() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGTERMs are the caller's; this starts instance `index` again on its port and waits for `/ready`.
    /// The old port, not 0: nginx's configuration names it.
    func restart(_ index: Int) throws {
        instances[index] = try Instance(port: instances[index].port, cluster: self)
        try instances[index].waitUntilReady(probe: probe)
    }

    /// Until nginx sends a new reply to instance `index` (the test's nginx names the instance that
    /// answered in `X-Upstream`).
    func waitUntilBalanced(to index: Int) throws {
        let port = ":\(instances[index].port)"
        try poll("nginx to send requests to instance \(index) again") {
            let text = "Which instance answers \(UUID().uuidString)?".addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            return self.get("/speak?text=\(text)", token: self.probe).header("x-upstream")?.hasSuffix(port) == true
        }
    }

    /// `GET path` (its query in it) through nginx, with `token` as the bearer token when given.
    func get(_ path: String, token: String?, headers: [String: String] = [:]) -> ServiceAnswer {
        WireClient(port: port).call(
            "GET", path, headers: headers, authorization: token.map { "Bearer \($0)" })
    }

    /// The sample with this cluster's ports and directories; nginx runs in the foreground with its
    /// own prefix, pid file, logs and temp paths.
    private func startNginx() throws {
        // Picked before nginx starts: its configuration must name it, and nginx prints no port.
        port = try RunningServer.freePort()
        var sample = try String(contentsOf: Self.sample, encoding: .utf8)
        func replace(_ old: String, _ new: String) throws {
            guard sample.contains(old) else { throw TestFailure("Samples/nginx.conf no longer has '\(old)'") }
            sample = sample.replacingOccurrences(of: old, with: new)
        }
        for (index, instance) in instances.enumerated() {
            try replace("127.0.0.1:\(8081 + index) ", "127.0.0.1:\(instance.port) ")
        }
        try replace("listen 8080;", "listen 127.0.0.1:\(port);")
        try replace(
            "add_header X-Cache-Status $upstream_cache_status always;",
            "add_header X-Cache-Status $upstream_cache_status always; add_header X-Upstream $upstream_addr always;")
        // nginx makes the cache directory itself, as on a user's machine; only its parent is given.
        try FileManager.default.createDirectory(at: nginxLibDirectory, withIntermediateDirectories: true)
        if !Self.canIsolate { try replace(Self.sampleCachePath, nginxCacheDirectory.path) }
        if rateLimit == .unlimited { try replace("rate=120r/m", "rate=100000r/s") }
        let site = directory.appendingPathComponent("speak.conf")
        try Data(sample.utf8).write(to: site)
        // Debian's temp paths (under /var/lib/nginx) where nginx runs isolated, else the cluster's.
        let temp = Self.canIsolate ? "/var/lib/nginx" : nginxLibDirectory.path
        let main = """
            daemon off;
            worker_processes 2;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/nginx-error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                include \(site.path);
            }
            """
        let configuration = directory.appendingPathComponent("nginx.conf")
        try Data(main.utf8).write(to: configuration)
        let arguments = ["-p", directory.path, "-c", configuration.path, "-e", directory.path + "/nginx-error.log"]
        if Self.canIsolate {
            // exec all the way down: the process the test signals is nginx's master.
            let script = #"mount --bind "$1" /var/lib/nginx || exit 98; shift; exec /usr/sbin/nginx "$@""#
            nginx = try Subprocess(
                Self.unshare,
                ["-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", nginxLibDirectory.path] + arguments)
        } else {
            nginx = try Subprocess("/usr/sbin/nginx", arguments)
        }
        do {
            try poll("nginx on port \(port)") { self.get("/health", token: nil).status == 200 }
        } catch {
            throw TestFailure("\(error); its log: \(nginxLog)")
        }
    }

    /// nginx's error log, less its repeats of "no live upstreams" (the causes come before them).
    var nginxLog: String {
        let log = (try? String(contentsOfFile: directory.path + "/nginx-error.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { !$0.contains("no live upstreams") }.joined(separator: "\n")
    }
}

/// One `speak serve` of a cluster.
final class Instance {
    let port: Int
    let process: Subprocess
    var url: String { "http://127.0.0.1:\(port)" }

    /// `port` 0: a free one, read from the server's listening line.
    init(port: Int = 0, cluster: Cluster) throws {
        let limit = cluster.rateLimit == .unlimited ? ["--rate-limit", "1000000"] : []
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = cluster.temporaryDirectory.path
        // One worker each: three instances on a machine of two cores.
        let started = try Speak.start(
            [
                "serve", "--port", String(port), "--tokens", cluster.tokensFile.path, "--cache-dir",
                cluster.cacheDirectory.path, "--voices-dir", cluster.voicesDirectory.path,
                "--workers", "1", "--threads", "2",
            ] + limit, environment: environment)
        do { self.port = try RunningServer.boundPort(of: started) } catch {
            _ = started.terminate()
            throw error
        }
        process = started
    }

    /// What an orchestrator does before sending traffic: wait for `/ready`.
    func waitUntilReady(probe: String) throws {
        try poll("speak serve on port \(port) to be ready") {
            WireClient(port: port, token: probe).call("GET", "/ready").status == 200
        }
    }

    func stop() -> Subprocess.Result {
        process.send(SIGTERM)
        return process.wait()
    }

    /// kill -9, and reaped (once; later calls do nothing).
    func kill() {
        guard !killed else { return }
        killed = true
        process.send(SIGKILL)
        _ = process.wait()
    }
    private var killed = false
}

// MARK: - Load

/// Python client threads sending GET /speak through nginx until told to stop: every other request
/// the same (cached) text, the rest new texts (synthesised). Each reply must be a 200 whose body
/// is a whole MP3; anything else, a cut reply or a connection error included, is a failure.
final class Load {
    struct Outcome {
        var failures: [String]
        /// The paths (with their queries) of the requests that failed.
        var failedPaths: [String]
        var cached: Int
        var uncached: Int
    }

    static let script = """
        import http.client, json, os, sys, threading, time, urllib.parse
        port, token, threads, stop, progress = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
        lock = threading.Lock()
        counts = {"cached": 0, "uncached": 0}
        failures, failed_paths = [], []
        def whole_mp3(body):
            return len(body) > 400 and (body[:3] == b"ID3" or (body[0] == 0xFF and body[1] & 0xE0 == 0xE0))
        def client(number):
            connection, sent = None, 0
            while not os.path.exists(stop):
                sent += 1
                kind = "cached" if sent % 2 == 0 else "uncached"
                text = f"A new reply, {number} {sent} {os.getpid()}."
                if kind == "cached":
                    text = "The same reply for everyone."
                path = "/speak?" + urllib.parse.urlencode({"text": text})
                try:
                    if connection is None:
                        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    connection.request("GET", path, headers={"Authorization": "Bearer " + token})
                    response = connection.getresponse()
                    body = response.read()
                    with lock:
                        if response.status == 200 and whole_mp3(body):
                            counts[kind] += 1
                        else:
                            failures.append(f"{response.status}, {len(body)} bytes, for {text!r}: {body[:100]!r}")
                            failed_paths.append(path)
                    if response.will_close:
                        connection.close()
                        connection = None
                except Exception as error:
                    with lock:
                        failures.append(f"{type(error).__name__} {error} for {text!r}")
                        failed_paths.append(path)
                    if connection is not None:
                        connection.close()
                    connection = None
        def report():
            while not os.path.exists(stop):
                with lock:
                    done = counts["cached"] + counts["uncached"]
                with open(progress + ".new", "w") as file:
                    file.write(str(done))
                os.replace(progress + ".new", progress)
                time.sleep(0.02)
        workers = [threading.Thread(target=client, args=(n,)) for n in range(threads)]
        for thread in workers + [threading.Thread(target=report)]:
            thread.start()
        for thread in workers:
            thread.join()
        print(json.dumps({"failures": failures, "failed_paths": failed_paths, **counts}))
        """

    private let process: Subprocess
    private let stopFile: URL
    private let progressFile: URL
    private let cluster: Cluster

    static let threads = 6

    init(cluster: Cluster, token: String, threads: Int = Load.threads) throws {
        self.cluster = cluster
        stopFile = cluster.directory.appendingPathComponent("load-stop")
        progressFile = cluster.directory.appendingPathComponent("load-progress")
        process = try Subprocess(
            "/usr/bin/env",
            [
                "python3", "-c", Self.script, String(cluster.port), token, String(threads), stopFile.path,
                progressFile.path,
            ])
    }

    /// A test that failed before ``finish()`` leaves the client running (polling for a stop file
    /// that goes with the cluster's directory): it is ended here. After finish() nothing is sent.
    deinit {
        process.send(SIGKILL)
        _ = process.wait()
    }

    /// Good replies so far.
    var replies: Int { Int((try? String(contentsOf: progressFile, encoding: .utf8)) ?? "") ?? 0 }

    func waitForReplies(atLeast count: Int) throws {
        try poll("\(count) replies under load (nginx: \(cluster.nginxLog.suffix(500)))", seconds: 60) {
            self.replies >= count
        }
    }

    func finish() throws -> Outcome {
        try Data().write(to: stopFile)
        let result = process.wait()
        guard result.status == 0,
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw TestFailure("the load client failed: \(result.stderr)")
        }
        return Outcome(
            failures: report["failures"] as? [String] ?? ["no report"],
            failedPaths: report["failed_paths"] as? [String] ?? [], cached: report["cached"] as? Int ?? 0,
            uncached: report["uncached"] as? Int ?? 0)
    }
}

// MARK: - Watching the cache directory

/// Reads every entry in a cache directory over and over from its own thread while instances
/// write, verifying each read, and counts the temp files of one key present at once.
final class CacheWatcher: Sendable {
    struct Seen {
        var verified = 0
        var torn: [String] = []
        var mostWritersAtOnce = 0
    }

    let directory: URL
    private let seen = Locked(Seen())
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(directory: URL) { self.directory = directory }

    var mostWritersAtOnce: Int { seen.withLock { $0.mostWritersAtOnce } }

    func start() {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            while !stopped.load(ordering: .relaxed) { look() }
        }
    }

    func stop() -> Seen {
        stopped.store(true, ordering: .relaxed)
        done.wait()
        return seen.withLock { $0 }
    }

    private func look() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        // ".tmp-<digest>-<uuid>": one per writer of that key.
        var writers: [Substring: Int] = [:]
        for name in names where name.hasPrefix(".tmp-") { writers[name.dropFirst(5).prefix(64), default: 0] += 1 }
        for name in names where name.hasSuffix(".reply") {
            // One read of an open file: the whole of whichever entry the name pointed to.
            do {
                _ = try ReplyCache.storedReply(at: directory.appendingPathComponent(name))
                seen.withLock { $0.verified += 1 }
            } catch let error as ReplyCacheError {
                seen.withLock { $0.torn.append("\(name): \(error)") }
            } catch {
                // Gone between the listing and the read: replaced or evicted, not torn.
            }
        }
        seen.withLock { $0.mostWritersAtOnce = max($0.mostWritersAtOnce, writers.values.max() ?? 0) }
    }
}

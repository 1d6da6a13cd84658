#!/usr/bin/env python3
"""Benchmark `speak serve`: cached GET /speak vs nginx, uncached synthesis, memory.

Run from the package root:
    swift build -c release --scratch-path /tmp/bench-build
    Benchmarks/server.py --speak /tmp/bench-build/release/speak [--duration 10] [--rounds 3]

(a) wrk on the cached `GET /speak?text=Build%20passed` vs nginx sending the same MP3 file
    (sendfile, 2 workers), alternating rounds, medians.  Target: speak >= 0.5x nginx req/s.
    Also both with a bearer token: speak with a tokens file, nginx checking the same header with a
    `map` on $http_authorization (401 otherwise).  Target: authenticated speak >= 0.8x nginx.
(b) uncached POST /speak (unique ~10-word texts, 4 client threads) with --workers 1 vs 2,
    target ratio >= 1.7; plus time to first body byte / total of 20 sequential replies.
(c) VmRSS of speak serve + its workers and of nginx master + workers, idle and under wrk -c64.
(d) with --soak N: N transcriptions (POST /api/transcribe, 4 clients, a 3 s WAV and a 1 MB one)
    and the server's VmRSS every N/10: it must level off, not grow with N.
Prints Markdown tables and writes Benchmarks/results/server.json. Needs wrk, nginx, curl.
"""
import argparse, contextlib, http.client, itertools, json, os, random, re, shutil, signal, socket, statistics
import subprocess, sys, tempfile, threading, time, urllib.error, urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = "/speak?text=Build%20passed&voice=default"
# The Hausa voice: its transliteration makes its identity long and not ASCII, so a hit must not
# cost more for it than for `default` (issue 38).
NADIA_PATH = "/speak?text=Na%20gode&voice=nadia"
WORDS = ("red green blue quick quiet server build release window river garden silver morning "
         "paper market rocket pencil orange planet signal dragon yellow violet forest castle "
         "bridge summer winter copper engine finger monkey rabbit ticket butter camera doctor").split()
PROCS = []  # servers started, stopped at the end whatever happens
STOPPING = threading.Event()  # set on SIGINT/SIGTERM: client threads give up at once


def busy_cpu(seconds=1.0):
    """Fraction of all CPU time that was busy over `seconds` (others' load before we start)."""
    sample = lambda: [int(x) for x in open("/proc/stat").readline().split()[1:]]
    before, _, after = sample(), time.sleep(seconds), sample()
    delta = [b - a for a, b in zip(before, after)]
    return 1 - (delta[3] + delta[4]) / max(1, sum(delta))


def free_port():
    """A TCP port nothing listens on now (the server binds it a moment later)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree(pid):
    """{pid: (VmRSS kB, CPU s, s runnable but waiting for a CPU)} for pid and its direct children."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = open(f"/proc/{entry}/status").read()
            if entry == str(pid) or re.search(rf"^PPid:\s+{pid}$", status, re.M):
                rss = re.search(r"^VmRSS:\s+(\d+)", status, re.M)
                ticks = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
                cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
                wait = sum(int(open(f"/proc/{entry}/task/{t}/schedstat").read().split()[1])
                           for t in os.listdir(f"/proc/{entry}/task")) / 1e9
                found[int(entry)] = (int(rss[1]) if rss else 0, cpu, wait)
        except OSError:
            pass
    return found


def cpu_used(pid, before):
    """(CPU s, CPU-wait s) of pid and each child since `before` (a tree() result), by pid."""
    return {p: (cpu - before.get(p, (0, 0, 0))[1], wait - before.get(p, (0, 0, 0))[2])
            for p, (_, cpu, wait) in tree(pid).items()}


def start(argv, port, log):
    """Starts a server (stderr to the file log) and waits until it accepts connections."""
    with open(log, "w") as stderr:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)
    PROCS.append(proc)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{argv[0]} exited {proc.returncode}: {open(log).read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{argv[0]} did not listen on {port}")


def stop(proc):
    """SIGTERM; after 10 s SIGKILL, and then its children too (a killed server's workers)."""
    kids = [p for p in tree(proc.pid) if p != proc.pid]
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        for pid in [proc.pid] + kids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
    PROCS.remove(proc)


TOKEN = "bench-token-0123456789abcdef"


def start_speak(args, workers, cache_dir, config, tokens=None):
    """`speak serve` on a free port with its own cache directory; open unless given a tokens file."""
    port = free_port()
    argv = [args.speak, "serve", "--port", str(port), "--cache-dir", cache_dir, "--workers", str(workers),
            "--config", config]
    if tokens:
        argv += ["--tokens", tokens]
    return start(argv, port, f"{cache_dir}.log"), port


def start_nginx(tmp, body_file, token=None, name=None):
    """nginx with a private config in tmp: 2 workers, sendfile, body_file at /speak; with a token,
    only for `Authorization: Bearer <token>` (a map on $http_authorization), else 401."""
    port = free_port()
    name = name or ("nginx-auth" if token else "nginx")
    conf = os.path.join(tmp, f"{name}.conf")
    temp_paths = " ".join(f"{kind}_temp_path {tmp}/{kind};"
                          for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    auth_map = f'map $http_authorization $allowed {{ default 0; "Bearer {token}" 1; }}\n' if token else ""
    check = "if ($allowed = 0) { return 401; } " if token else ""
    with open(conf, "w") as f:
        f.write(f"worker_processes 2; pid {tmp}/{name}.pid; events {{ worker_connections 1024; }}\n"
                f"http {{ access_log off; sendfile on; tcp_nopush on; {temp_paths}\n{auth_map}"
                f"  server {{ listen 127.0.0.1:{port}; "
                f"location = /speak {{ {check}default_type audio/mpeg; alias {body_file}; }} }} }}\n")
    argv = ["nginx", "-c", conf, "-p", tmp, "-e", f"{tmp}/{name}-error.log", "-g", "daemon off;"]
    return start(argv, port, f"{tmp}/{name}-stderr.log"), port


def wrk(args, port, sample_pid, token=None, path=PATH):
    """One wrk run; samples the server's memory meanwhile."""
    peak, done = [0], threading.Event()

    def sample():
        while not done.wait(0.2):
            peak[0] = max(peak[0], sum(p[0] for p in tree(sample_pid).values()))
    sampler, before = threading.Thread(target=sample, daemon=True), tree(sample_pid)
    sampler.start()
    try:
        header = ["-H", f"Authorization: Bearer {token}"] if token else []
        out = subprocess.run(["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s", "--latency"]
                             + header + [f"http://127.0.0.1:{port}{path}"],
                             capture_output=True, text=True, check=True).stdout
        cpu = sum(c for c, _ in cpu_used(sample_pid, before).values())
    finally:
        done.set()
    field = lambda pattern, default="0": (re.search(pattern, out) or [None, default])[1]
    unit = {"us": 1e-3, "ms": 1, "s": 1e3}
    ms = lambda p: float(m[1]) * unit[m[2]] if (m := re.search(rf"{p}%\s+([\d.]+)(us|ms|s)\b", out)) else None
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    return {"rps": float(field(r"Requests/sec:\s+([\d.]+)")), "p50_ms": ms("50"), "p99_ms": ms("99"),
            "non2xx": int(field(r"Non-2xx or 3xx responses: (\d+)")), "socket_errors": errors, "peak_rss_kb": peak[0],
            "server_cpu_s": cpu}


def cached_vs_nginx(args, tmp, config):
    """(a) and (c): the same cached MP3 from speak and from nginx, alternating wrk rounds; with a
    token, also the Hausa voice's reply (its own speak and nginx, the same header check)."""
    speak, speak_port = start_speak(args, 2, os.path.join(tmp, "cache-a"), config)
    os.chmod(tmp, 0o755)  # nginx workers may run as nobody
    bodies = {}
    for name, path in (("reply.mp3", PATH), ("nadia.mp3", NADIA_PATH)):
        bodies[path] = os.path.join(tmp, name)
        subprocess.run(["curl", "-sSf", "-o", bodies[path], f"http://127.0.0.1:{speak_port}{path}"], check=True)
        os.chmod(bodies[path], 0o644)
    tokens = os.path.join(tmp, "tokens")
    subprocess.run([args.speak, "serve", "--hash-token", TOKEN, "--name", "bench"], stdout=open(tokens, "w"),
                   check=True)
    # The same cache directory: the authenticated servers serve the replies the open one made.
    servers = {"speak": (speak, speak_port, PATH), "nginx": (*start_nginx(tmp, bodies[PATH]), PATH),
               "speak+auth": (*start_speak(args, 2, os.path.join(tmp, "cache-a"), config, tokens), PATH),
               "nginx+auth": (*start_nginx(tmp, bodies[PATH], TOKEN), PATH),
               "speak+auth nadia": (*start_speak(args, 2, os.path.join(tmp, "cache-a"), config, tokens), NADIA_PATH),
               "nginx+auth nadia": (*start_nginx(tmp, bodies[NADIA_PATH], TOKEN, "nginx-auth-nadia"), NADIA_PATH)}
    for name, (_, port, path) in servers.items():
        expected = open(bodies[path], "rb").read()
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
        if "+auth" in name:
            try:
                urllib.request.urlopen(request, timeout=30)
                sys.exit(f"{name} answered without a token")
            except urllib.error.HTTPError as error:
                if error.code != 401:
                    sys.exit(f"{name} answered {error.code} without a token, not 401")
            request.add_header("Authorization", f"Bearer {TOKEN}")
        with urllib.request.urlopen(request, timeout=30) as reply:
            body, cache = reply.read(), reply.headers["X-Speak-Cache"]
            if reply.status != 200 or body != expected or (name.startswith("speak") and cache != "hit"):
                sys.exit(f"{name} answered {reply.status}, {len(body)} B (cache {cache}), "
                         f"not the {len(expected)} B reply")
    time.sleep(1)
    idle = {name: tree(proc.pid) for name, (proc, _, _) in servers.items()}
    rounds = {name: [] for name in servers}
    for _ in range(args.rounds):
        for name, (proc, port, path) in servers.items():
            rounds[name].append(wrk(args, port, proc.pid, TOKEN if "+auth" in name else None, path))
    memory = {name: {"processes": len(idle[name]), "idle_rss_kb": sum(p[0] for p in idle[name].values()),
                     "idle_rss_kb_by_process": [idle[name][pid][0]
                                                for pid in sorted(idle[name], key=lambda p: p != proc.pid)],
                     "peak_rss_kb": max(r["peak_rss_kb"] for r in rounds[name])}
              for name, (proc, _, _) in servers.items()}
    [stop(proc) for proc, _, _ in servers.values()]
    return {"reply_bytes": os.path.getsize(bodies[PATH]), "nadia_reply_bytes": os.path.getsize(bodies[NADIA_PATH]),
            "rounds": rounds, "memory": memory,
            "median_rps": {name: statistics.median(r["rps"] for r in rs) for name, rs in rounds.items()}}


def text(n):
    """The n-th ten-word sentence: unique in practice (40^8 choices), the same in every run."""
    rng = random.Random(n)
    return "The " + " ".join(rng.choice(WORDS) for _ in range(8)) + " finished."


def post(conn, text):
    """POST /speak; returns (seconds to first body byte, total seconds, bytes)."""
    start = time.perf_counter()
    conn.request("POST", "/speak", json.dumps({"text": text}), {"Content-Type": "application/json"})
    reply = conn.getresponse()
    first = reply.read(1)
    ttfb = time.perf_counter() - start
    body = first + reply.read()
    if reply.status != 200 or reply.headers["X-Speak-Cache"] != "miss" or not body:
        raise RuntimeError(f"{reply.status} cache={reply.headers['X-Speak-Cache']} {body[:200]!r}")
    return ttfb, time.perf_counter() - start, len(body)


def uncached(args, tmp, config, workers):
    """(b): replies/s of new texts at the given concurrency, then 20 sequential first byte / total times."""
    speak, port = start_speak(args, workers, tempfile.mkdtemp(dir=tmp, prefix=f"cache-w{workers}-"), config)
    numbers = itertools.count()  # next() is atomic under the GIL: each text goes out once

    def client(deadline):
        conn, replies, errors = http.client.HTTPConnection("127.0.0.1", port, timeout=60), 0, []
        while time.perf_counter() < deadline and not STOPPING.is_set():
            try:
                post(conn, text(next(numbers)))
                replies += 1
            except Exception as error:  # noqa: BLE001 - counted and reported
                errors.append(repr(error))
                conn.close()
        return replies, errors

    def run(seconds):
        start, deadline = time.perf_counter(), time.perf_counter() + seconds
        with ThreadPoolExecutor(args.concurrency) as pool:
            results = list(pool.map(client, [deadline] * args.concurrency))
        return time.perf_counter() - start, sum(r for r, _ in results), [e for _, es in results for e in es]
    run(1)  # warm-up: every worker has spoken once
    before, client_cpu = tree(speak.pid), time.process_time()
    elapsed, replies, failures = run(args.duration)
    cpu, client_cpu = cpu_used(speak.pid, before), time.process_time() - client_cpu
    samples = [post(http.client.HTTPConnection("127.0.0.1", port, timeout=60), text(next(numbers))) for _ in range(20)]
    stop(speak)
    return {"workers": workers, "replies": replies, "seconds": elapsed, "replies_per_s": replies / elapsed,
            "errors": len(failures), "first_errors": failures[:3], "cpu_s": {"server": cpu.pop(speak.pid)[0],
            "workers": sum(c for c, _ in cpu.values()), "workers_waiting_for_cpu": sum(w for _, w in cpu.values()),
            "client": client_cpu, "available": elapsed * os.cpu_count()},
            "ttfb_ms": statistics.median(s[0] for s in samples) * 1e3,
            "total_ms": statistics.median(s[1] for s in samples) * 1e3,
            "reply_bytes": statistics.median(s[2] for s in samples)}


def multipart(fields, file_name, data):
    """A multipart/form-data body and its Content-Type."""
    boundary = "speakbench" + "".join(random.choice("0123456789abcdef") for _ in range(16))
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
                 f'Content-Type: audio/wav\r\n\r\n'.encode() + data + f"\r\n--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def soak(args, tmp, config):
    """(d): RSS of speak serve over many transcriptions."""
    short, long = os.path.join(tmp, "short.wav"), os.path.join(tmp, "long.wav")
    subprocess.run([args.speak, "-o", short, "Yes please, go ahead."], check=True)
    subprocess.run([args.speak, "-o", long, " ".join(["This recording is long enough to need a large buffer."] * 12)],
                   check=True)
    bodies = [multipart({"language": "en"}, "short.wav", open(short, "rb").read()),
              multipart({"language": "en"}, "long.wav", open(long, "rb").read())]
    speak, port = start_speak(args, 1, os.path.join(tmp, "cache-soak"), config)
    rss = lambda: tree(speak.pid).get(speak.pid, (0, 0, 0))[0]
    numbers, samples, lock = itertools.count(), [(0, rss())], threading.Lock()

    def client(_):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while (n := next(numbers)) < args.soak and not STOPPING.is_set():
            body, content_type = bodies[n % 2]
            conn.request("POST", "/api/transcribe", body, {"Content-Type": content_type})
            reply = conn.getresponse()
            reply.read()
            if reply.status != 200:
                raise RuntimeError(f"transcription {n}: {reply.status}")
            if (n + 1) % max(1, args.soak // 10) == 0:
                with lock:
                    samples.append((n + 1, rss()))
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(client, range(4)))
    time.sleep(1)
    samples.append(("idle after", rss()))
    stop(speak)
    return samples


def report(args, a, b):
    """Prints the Markdown tables; returns the two headline ratios."""
    table = lambda head, rows: print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "".join(
        "\n| " + " | ".join(map(str, row)) + " |" for row in rows))
    print(f"\n### Cached GET /speak vs nginx ({a['reply_bytes']} B MP3; wrk -t{args.threads} -c{args.connections} "
          f"-d{args.duration}s, {args.rounds} alternating rounds)")
    median_round = lambda rounds: sorted(rounds, key=lambda r: r["rps"])[len(rounds) // 2]
    table(["server", "req/s per round", "median req/s", "p50 ms", "p99 ms", "req per server CPU-s", "errors"],
          [[name, ", ".join(f"{r['rps']:.0f}" for r in rounds), f"{(m := median_round(rounds))['rps']:.0f}",
            f"{m['p50_ms']:.2f}", f"{m['p99_ms']:.2f}", f"{m['rps'] * args.duration / m['server_cpu_s']:.0f}",
            sum(r["non2xx"] + r["socket_errors"] for r in rounds)]
           for name, rounds in a["rounds"].items()])
    ratio = a["median_rps"]["speak"] / a["median_rps"]["nginx"]
    print(f"\nspeak / nginx = **{ratio:.2f}x** (target >= 0.5x: {'met' if ratio >= 0.5 else 'MISSED'})")
    auth = a["median_rps"]["speak+auth"] / a["median_rps"]["nginx+auth"]
    print(f"\nauthenticated: speak / nginx = **{auth:.2f}x** (target >= 0.8x: {'met' if auth >= 0.8 else 'MISSED'}); "
          f"speak with tokens / without = {a['median_rps']['speak+auth'] / a['median_rps']['speak']:.2f}x")
    nadia = a["median_rps"]["speak+auth nadia"] / a["median_rps"]["nginx+auth nadia"]
    print(f"\nauthenticated, voice nadia ({a['nadia_reply_bytes']} B): speak / nginx = **{nadia:.2f}x** "
          f"(target >= 0.9x: {'met' if nadia >= 0.9 else 'MISSED'}); nadia / default with tokens = "
          f"{a['median_rps']['speak+auth nadia'] / a['median_rps']['speak+auth']:.2f}x")
    scaling = None
    if b:
        print(f"\n### Uncached POST /speak (concurrency {args.concurrency}, {args.duration} s; "
              "first byte / total: median of 20 sequential)")
        table(["workers", "replies", "replies/s", "errors", "first byte ms", "total ms", "reply bytes",
               "CPU s: workers / server / client / available", "workers' CPU-wait s", "replies per worker CPU-s"],
              [[r["workers"], r["replies"], f"{r['replies_per_s']:.2f}", r["errors"], f"{r['ttfb_ms']:.0f}",
                f"{r['total_ms']:.0f}", f"{r['reply_bytes']:.0f}",
                " / ".join(f"{r['cpu_s'][k]:.1f}" for k in ("workers", "server", "client", "available")),
                f"{r['cpu_s']['workers_waiting_for_cpu']:.1f}", f"{r['replies'] / r['cpu_s']['workers']:.0f}"]
               for r in b])
        scaling = b[1]["replies_per_s"] / b[0]["replies_per_s"]
        print(f"\nworkers 2 / workers 1 = **{scaling:.2f}x** (target >= 1.7x: {'met' if scaling >= 1.7 else 'MISSED'})")
    print("\n### Memory (VmRSS of the server and its children; "
          f"peak sampled every 0.2 s under wrk -c{args.connections})")
    table(["server", "processes", "idle MB", "idle MB by process (parent first)", "peak under load MB"],
          [[name, m["processes"], f"{m['idle_rss_kb'] / 1024:.1f}",
            ", ".join(f"{kb / 1024:.1f}" for kb in m["idle_rss_kb_by_process"]), f"{m['peak_rss_kb'] / 1024:.1f}"]
           for name, m in a["memory"].items()])
    return {"speak_vs_nginx": ratio, "authenticated_speak_vs_nginx": auth, "nadia_authenticated_vs_nginx": nadia,
            "workers2_vs_workers1": scaling}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build/release/speak"))
    parser.add_argument("--cached-only", action="store_true", help="only (a) and (c): skip the uncached runs")
    parser.add_argument("--soak", type=int, default=0,
                        help="(d): this many transcriptions, RSS sampled (default: none)")
    parser.add_argument("--soak-only", action="store_true", help="only (d)")
    for flag, default, meaning in (("duration", 10, "seconds per measurement"), ("rounds", 3, "wrk rounds per server"),
                                   ("threads", 2, "wrk threads"), ("connections", 64, "wrk connections"),
                                   ("concurrency", 4, "client threads for uncached replies")):
        parser.add_argument(f"--{flag}", type=int, default=default, help=f"{meaning} (default {default})")
    args = parser.parse_args()
    args.speak = os.path.abspath(args.speak)
    if missing := [tool for tool in ("wrk", "nginx", "curl") if not shutil.which(tool)]:
        sys.exit(f"not found: {', '.join(missing)}")
    def interrupted(number, _):
        STOPPING.set()
        sys.exit(128 + number)
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, interrupted)
    background = busy_cpu()
    if background > 0.1:
        print(f"warning: CPUs already {background:.0%} busy before the benchmark; results will be low", file=sys.stderr)
    tmp = tempfile.mkdtemp(prefix="speak-bench-")
    try:
        config = os.path.join(tmp, "config.json")
        with open(config, "w") as f:
            json.dump({"rateLimitPerMinute": 100000000, "rateLimitBurst": 100000000}, f)
        if args.soak_only:
            d = soak(args, tmp, config)
            print(f"\n### Memory over {args.soak} transcriptions (VmRSS of speak serve)\n\n"
                  "| transcriptions | MB |\n|---|---|")
            print("\n".join(f"| {n} | {kb / 1024:.1f} |" for n, kb in d))
            return
        a = cached_vs_nginx(args, tmp, config)
        b = [] if args.cached_only else [uncached(args, tmp, config, workers) for workers in (1, 2)]
        summary = report(args, a, b)
        if args.soak:
            d = soak(args, tmp, config)
            print(f"\n### Memory over {args.soak} transcriptions (VmRSS of speak serve)\n\n"
                  "| transcriptions | MB |\n|---|---|")
            print("\n".join(f"| {n} | {kb / 1024:.1f} |" for n, kb in d))
            summary["soak_rss_kb"] = d
        os.makedirs(os.path.join(ROOT, "Benchmarks/results"), exist_ok=True)
        with open(os.path.join(ROOT, "Benchmarks/results/server.json"), "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cpus": os.cpu_count(), "speak": args.speak,
                       "background_cpu_busy": background, "loadavg": os.getloadavg(),
                       "settings": vars(args), "summary": summary, "cached": a, "uncached": b}, f, indent=2)
    finally:
        for proc in list(PROCS):
            stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

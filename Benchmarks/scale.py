#!/usr/bin/env python3
"""Scale-out: N `speak serve` instances behind nginx running Samples/nginx.conf (issue 12).

Run from the package root:
    swift build -c release
    Benchmarks/scale.py --speak .build/release/speak [--duration 30] [--throughput-duration 10]

(a) Uncached synthesis through nginx with 1, 2 and 3 instances (one synthesis worker each), wrk
    POSTing new texts to /api/speak: replies/s, and replies per CPU-second of the speak processes
    (serve + its worker), with ratios to 1 instance. On a machine of C cores the ceiling is C.
(b) A `--duration` wrk run of GET /speak, half one cached text, half new texts, through nginx to
    3 instances, with `kill -9` of one instance in the middle: requests, non-2xx, socket errors.
(c) The same with a rolling restart (SIGTERM one instance, start it again, wait for /ready, next).
(d) Rate limit as shipped (nginx 120/min with bursts of 30, speak's own default the same): one
    token sending 10x its limit for `--limit-seconds`, through nginx, and straight to the three
    instances in turn (speak's per-instance limiters alone): admitted requests, and each against
    one token's allowance over the time the run took (burst + 1 + rate x seconds; 3 instances
    alone would allow up to 3x that).
(e) Cache hits: wrk GETs one cached text through nginx to 3 instances, the sample as shipped (each
    hit first checks the token at an instance, auth_request to GET /token) against the sample with
    that check taken out, alternating, `--hit-rounds` runs of `--hit-seconds` each: replies/s, p50
    and p99, and the ratio of the medians.
Prints Markdown tables and writes Benchmarks/results/scale.json. Needs wrk, nginx, curl.
"""
import argparse, contextlib, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading
import time
import urllib.parse, urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "Samples", "nginx.conf")
TOKEN = "scale-bench-token-0123456789abcdef"
PROBE = "scale-bench-probe-0123456789abcdef"
PROCS = []

# wrk script: `-- MODE RUN`; MODE "post" POSTs new texts to /api/speak, "mixed" GETs /speak, every
# other request one cached text. Prints one JSON line with wrk's own counts.
WRK_LUA = r"""
local threads, count = {}, 0
function setup(thread) count = count + 1; thread:set("tid", count); table.insert(threads, thread) end
function init(args) mode, run, sent = args[1], args[2], 0 end
function request()
  sent = sent + 1
  local text = "A new reply number " .. sent .. " from thread " .. tid .. " of run " .. run .. "."
  if mode == "post" then
    local headers = {["Content-Type"] = "application/json"}
    for name, value in pairs(wrk.headers) do headers[name] = value end  -- the -H token: format() drops it otherwise
    return wrk.format("POST", "/api/speak", headers, '{"text":"' .. text .. '"}')
  end
  if sent % 2 == 0 or mode == "cached" then text = "The same reply for everyone." end
  return wrk.format("GET", "/speak?text=" .. text:gsub(" ", "%%20"))
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"seconds":%.3f,"non2xx":%d,"connect":%d,"read":%d,"write":%d,'
    .. '"timeout":%d,"p50_ms":%.1f,"p99_ms":%.1f}\n',
    summary.requests, summary.duration / 1e6, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """utime + stime of pid and its children now (a reaped child's time is gone: measure live ones)."""
    total = 0.0
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            if entry == str(pid) or fields[1] == str(pid):
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def get(url, token=None, timeout=5):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)
    except OSError:
        return None, b"", {}


def wait_for(what, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    sys.exit(f"timed out waiting for {what}")


class Instance:
    def __init__(self, bench, port, limit):
        self.port, self.bench, self.limit = port, bench, limit
        argv = [bench.args.speak, "serve", "--port", str(port), "--tokens", bench.tokens, "--cache-dir", bench.cache,
                "--workers", "1", "--threads", "2"] + (["--rate-limit", str(limit)] if limit else [])
        self.log = open(os.path.join(bench.tmp, f"speak-{port}.log"), "a")
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.log)
        PROCS.append(self.proc)

    def ready(self):
        wait_for(f"instance {self.port} /ready", lambda: get(f"http://127.0.0.1:{self.port}/ready", PROBE)[0] == 200)
        return self

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        self.proc.wait(60)
        PROCS.remove(self.proc)

    def restart(self):
        self.stop()
        self.__init__(self.bench, self.port, self.limit)
        return self.ready()


class Bench:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.cache = os.path.join(tmp, "cache")
        self.tokens = os.path.join(tmp, "tokens")
        with open(self.tokens, "w") as f:
            for token, name in ((TOKEN, "bench"), (PROBE, "probe")):
                f.write(subprocess.run([args.speak, "serve", "--hash-token", token, "--name", name],
                                       capture_output=True, text=True, check=True).stdout)
        self.nginx, self.port, self.instances = None, free_port(), []

    def start(self, count, limit=None, nginx_rate=None):
        self.instances = [Instance(self, free_port(), limit) for _ in range(count)]
        for instance in self.instances:
            instance.ready()
        self.start_nginx(nginx_rate)

    def start_nginx(self, rate, token_check=True):
        """The sample with these ports and paths: the same rewriting as ScaleOutTests. Rate "off"
        takes nginx's limit out. Without `token_check`, a cache hit is answered without asking an
        instance (as the sample did before)."""
        conf = open(SAMPLE).read()
        if rate == "off":
            conf, rate = conf.replace("limit_req zone=speak_tokens burst=30 nodelay;", ""), None
        if not token_check:
            assert "        auth_request /_speak_token;\n" in conf
            conf = conf.replace("        auth_request /_speak_token;\n", "")
        servers = re.findall(r"^\s*server 127\.0\.0\.1:808\d .*$\n", conf, re.M)
        conf = conf.replace("".join(servers), "".join(
            servers[0].replace("127.0.0.1:8081", f"127.0.0.1:{i.port}") for i in self.instances))
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        status = "add_header X-Cache-Status $upstream_cache_status always;"
        conf = conf.replace(status, status + " add_header X-Upstream $upstream_addr always;")
        conf = conf.replace("/var/cache/nginx/speak", os.path.join(self.tmp, f"nginx-cache-{time.monotonic_ns()}"))
        if rate:
            conf = conf.replace("rate=120r/m", f"rate={rate}")
        site = os.path.join(self.tmp, "speak.conf")
        open(site, "w").write(conf)
        kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        temps = " ".join(f"{kind}_temp_path {self.tmp}/{kind};" for kind in kinds)
        main = os.path.join(self.tmp, "nginx.conf")
        open(main, "w").write(
            f"daemon off; worker_processes 2; pid {self.tmp}/nginx.pid; error_log {self.tmp}/nginx-error.log warn;\n"
            f"events {{ worker_connections 1024; }}\nhttp {{ access_log off; {temps} include {site}; }}\n")
        self.nginx = subprocess.Popen(["nginx", "-p", self.tmp, "-c", main, "-e", f"{self.tmp}/nginx-error.log"])
        PROCS.append(self.nginx)
        wait_for("nginx", lambda: get(f"http://127.0.0.1:{self.port}/health")[0] == 200)

    def stop_nginx(self):
        if self.nginx:
            self.nginx.terminate()
            self.nginx.wait()
            PROCS.remove(self.nginx)
            self.nginx = None

    def stop_all(self):
        self.stop_nginx()
        for instance in self.instances:
            if instance.proc.poll() is None:
                instance.stop()
            elif instance.proc in PROCS:
                PROCS.remove(instance.proc)
        self.instances = []

    def wrk(self, mode, seconds, connections=8, run=None, during=None):
        """wrk through nginx; `during(started)` runs on a thread meanwhile."""
        script = os.path.join(self.tmp, "load.lua")
        open(script, "w").write(WRK_LUA)
        argv = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", script,
                "-H", f"Authorization: Bearer {TOKEN}", f"http://127.0.0.1:{self.port}",
                "--", mode, run or str(time.monotonic_ns())]
        helper = None
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        if during:
            helper = threading.Thread(target=during, args=(started,))
            helper.start()
        out, _ = proc.communicate()
        if helper:
            helper.join()
        return json.loads(out.strip().splitlines()[-1])


def throughput(bench, args):
    rows = []
    for count in (1, 2, 3):
        bench.start(count, limit=10_000_000, nginx_rate="100000r/s")
        pids = [i.proc.pid for i in bench.instances]
        before = sum(cpu_seconds(p) for p in pids)
        result = bench.wrk("post", args.throughput_duration, connections=4 * count)
        cpu = sum(cpu_seconds(p) for p in pids) - before
        good = result["requests"] - result["non2xx"]
        rows.append({"instances": count, "replies_per_s": good / result["seconds"], "cpu_s": cpu,
                     "replies_per_cpu_s": good / cpu if cpu else 0,
                     "failed": result["non2xx"] + result["read"] + result["connect"],
                     "p50_ms": result["p50_ms"], "p99_ms": result["p99_ms"]})
        bench.stop_all()
    return rows


def faults(bench, args):
    out = {}
    bench.start(3, limit=10_000_000, nginx_rate="100000r/s")

    def kill_one(started):
        time.sleep(max(0, started + args.duration / 2 - time.monotonic()))
        bench.instances[1].stop(signal.SIGKILL)
    out["kill -9"] = bench.wrk("mixed", args.duration, during=kill_one)
    bench.stop_all()

    bench.start(3, limit=10_000_000, nginx_rate="100000r/s")
    restarts = []

    def rolling(started):
        time.sleep(max(0, started + 3 - time.monotonic()))
        for instance in bench.instances:
            began = time.monotonic()
            instance.restart()
            restarts.append(time.monotonic() - began)
            # nginx keeps an instance it saw fail out for fail_timeout: wait until it takes requests again.
            wait_for("nginx to use the restarted instance", lambda: get(
                f"http://127.0.0.1:{bench.port}/speak?text=" + urllib.parse.quote(f"Which {time.monotonic_ns()}"),
                PROBE
            )[2].get("X-Upstream", "").endswith(f":{instance.port}"))
    out["rolling restart"] = bench.wrk("mixed", args.duration, during=rolling)
    out["rolling restart"]["restart_s"] = restarts
    bench.stop_all()
    return out


def paced(urls, seconds, per_second):
    """One token, `per_second` new-text GETs a second for `seconds`, spread over `urls` in turn."""
    statuses, lock = {}, threading.Lock()
    total = int(seconds * per_second)
    start = time.monotonic()

    def send(i):
        time.sleep(max(0, start + i / per_second - time.monotonic()))
        text = urllib.parse.quote(f"Limited reply {i} of {start}.")
        status = get(f"{urls[i % len(urls)]}/speak?text={text}", TOKEN, timeout=30)[0]
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(send, range(total)))
    return statuses, time.monotonic() - start


def rate_limit(bench, args):
    bench.start(3)  # as shipped: speak's default 120/min, burst 30; nginx's the same
    rate, burst, seconds = 2.0, 30, args.limit_seconds
    rows = []
    for name, urls in (("through nginx", [f"http://127.0.0.1:{bench.port}"]),
                       ("straight to 3 instances (speak's limiters alone)",
                        [f"http://127.0.0.1:{i.port}" for i in bench.instances])):
        statuses, took = paced(urls, seconds, rate * 10)
        admitted = statuses.get(200, 0)
        allowance = burst + 1 + rate * took  # one token's, over the time the run took
        rows.append({"path": name, "sent": sum(statuses.values()), "admitted": admitted, "429": statuses.get(429, 0),
                     "other": {str(k): v for k, v in statuses.items() if k not in (200, 429)}, "seconds": took,
                     "allowance": allowance, "admitted_per_allowance": admitted / allowance})
    bench.stop_all()
    return rows


def cache_hits(bench, args):
    # No nginx limit: even at 100000r/s, hits past the burst of 30 were refused.
    bench.start(3, limit=10_000_000, nginx_rate="off")
    bench.stop_nginx()  # each run below starts its own, with a fresh cache
    runs = {"checked": [], "unchecked": []}
    for _ in range(args.hit_rounds):
        for name in runs:
            bench.start_nginx("off", token_check=name == "checked")
            bench.wrk("cached", 1)  # the entry in this nginx's fresh cache
            runs[name].append(bench.wrk("cached", args.hit_seconds))
            bench.stop_nginx()
    bench.stop_all()
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build", "release", "speak"))
    parser.add_argument("--duration", type=int, default=30, help="seconds of each fault run")
    parser.add_argument("--throughput-duration", type=int, default=10, help="seconds per instance count")
    parser.add_argument("--limit-seconds", type=int, default=15, help="seconds of the rate-limit runs")
    parser.add_argument("--hit-seconds", type=int, default=5, help="seconds of each cache-hit run")
    parser.add_argument("--hit-rounds", type=int, default=3, help="cache-hit runs of each kind")
    parser.add_argument("--only", help="comma-separated parts to run: throughput,faults,rate_limit,cache_hits")
    args = parser.parse_args()
    if missing := [tool for tool in ("wrk", "nginx", "curl") if not shutil.which(tool)]:
        sys.exit(f"needs {', '.join(missing)}")
    results = {"cores": os.cpu_count(), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="speak-scale-") as tmp:
        os.chmod(tmp, 0o755)  # nginx's workers run as nobody
        bench = Bench(args, tmp)
        try:
            parts = {"throughput": throughput, "faults": faults, "rate_limit": rate_limit, "cache_hits": cache_hits}
            for name, part in parts.items():
                if not args.only or name in args.only.split(","):
                    results[name] = part(bench, args)
        finally:
            for proc in list(PROCS):
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                proc.wait()
    results["load_after"] = os.getloadavg()
    os.makedirs(os.path.join(ROOT, "Benchmarks", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "Benchmarks", "results", "scale.json"), "w") as f:
        json.dump(results, f, indent=2)

    if "cache_hits" in results:
        runs = results["cache_hits"]
        print(f"\n### Cache hits ({args.hit_rounds} x {args.hit_seconds} s each, wrk -t2 -c8, alternating)\n")
        print("| nginx | replies/s (median) | p50 ms | p99 ms | non-2xx |\n|---|--:|--:|--:|--:|")
        medians = {}
        for name, label in (("checked", "as shipped: the token checked at an instance"),
                            ("unchecked", "the check taken out (as before)")):
            rates = [(r["requests"] - r["non2xx"]) / r["seconds"] for r in runs[name]]
            medians[name] = statistics.median(rates)
            p50, p99 = (statistics.median(r[key] for r in runs[name]) for key in ("p50_ms", "p99_ms"))
            print(f"| {label} | {medians[name]:.0f} | {p50:.2f} | {p99:.2f} | {sum(r['non2xx'] for r in runs[name])} |")
        print(f"\nreplies/s, checked / unchecked: {medians['checked'] / medians['unchecked']:.2f}x")
    if "throughput" in results:
        print_throughput(results)
    if "faults" in results:
        print_faults(results, args)
    if "rate_limit" in results:
        print_rate_limit(results, args)


def print_throughput(results):
    one = results["throughput"][0]
    print(f"\n### Uncached synthesis through nginx (POST /api/speak, new texts; {results['cores']} cores, "
          f"load {results['load_before'][0]:.1f} before)\n")
    print("| instances | replies/s | ratio | replies per CPU-second | ratio | p50 / p99 ms | failed |")
    print("|--:|--:|--:|--:|--:|--:|--:|")
    for row in results["throughput"]:
        speed = row["replies_per_s"] / max(one["replies_per_s"], 1e-9)
        efficiency = row["replies_per_cpu_s"] / max(one["replies_per_cpu_s"], 1e-9)
        print(f"| {row['instances']} | {row['replies_per_s']:.1f} | {speed:.2f}x | {row['replies_per_cpu_s']:.1f} | "
              f"{efficiency:.2f}x | {row['p50_ms']:.0f} / {row['p99_ms']:.0f} | {row['failed']} |")


def print_faults(results, args):
    print(f"\n### Faults under load ({args.duration} s wrk -t2 -c8, GET /speak half cached, half new)\n")
    print("| run | requests | non-2xx | connect | read (cut) | timeout | p99 ms |\n|---|--:|--:|--:|--:|--:|--:|")
    for name, r in results["faults"].items():
        print(f"| {name} | {r['requests']} | {r['non2xx']} | {r['connect']} | {r['read']} | {r['timeout']} "
              f"| {r['p99_ms']:.0f} |")


def print_rate_limit(results, args):
    print(f"\n### Rate limit, one token at 10x its limit (20/s) for {args.limit_seconds} s\n")
    print("| path | sent | admitted | 429 | other | seconds | one token's allowance | admitted / allowance |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for r in results["rate_limit"]:
        print(f"| {r['path']} | {r['sent']} | {r['admitted']} | {r['429']} | {r['other'] or 0} | {r['seconds']:.1f} "
              f"| {r['allowance']:.0f} | {r['admitted_per_allowance']:.2f}x |")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()

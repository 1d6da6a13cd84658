#!/usr/bin/env python3
"""Long inputs on the neural voice `joe`: the server's memory, and a short request among long ones.

Run from the package root, after Scripts/install-piper:
    swift build -c release --product speak-full
    Benchmarks/long-inputs.py --bin .build/release [--long 6]

One `speak serve` (reply cache off). Its RSS (/proc/PID/status VmRSS, and the peak VmHWM) after a
warm-up sentence, after a normal paragraph, then after each 4,096-character input without a
sentence break: digits, emoji, one long word. Then `--long` requests of 4,096 digits at once and,
once they are all under way, one short sentence: how long the short one took, and how many long
ones had finished before it. Prints Markdown; writes Benchmarks/results/long-inputs.json.
"""
import argparse, http.client, json, os, random, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHORT = "The nightly backup finished successfully."
PARAGRAPH = (
    "The build finished a few minutes ago. Every test passed on the first try. "
    "The release notes are ready for review. Please check the dashboard before lunch. "
    "The next deployment starts at noon."
)


def digits(seed):
    generator = random.Random(seed)
    return "".join(generator.choice("0123456789") for _ in range(4096))


LONG = {"digits": digits(1), "emoji": "\U0001F600" * 4096, "one long word": "a" * 4096}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def speak(port, text):
    """Seconds for the whole reply and its bytes (raw 24 kHz PCM)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    start = time.perf_counter()
    body = json.dumps({"model": "tts-1", "input": text, "voice": "joe", "response_format": "pcm"})
    conn.request("POST", "/v1/audio/speech", body=body, headers={"Content-Type": "application/json"})
    reply = conn.getresponse()
    data = reply.read()
    conn.close()
    if reply.status != 200:
        raise RuntimeError(f"HTTP {reply.status}: {data[:300]}")
    return time.perf_counter() - start, len(data)


def memory(pid):
    """(VmRSS, VmHWM) in MB."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            fields[name] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release"))
    parser.add_argument("--long", type=int, default=6, help="long requests at once in the fairness run")
    parser.add_argument("--output", default=os.path.join(ROOT, "Benchmarks/results/long-inputs.json"))
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="speak-long-")
    port = free_port()
    server = subprocess.Popen(
        [os.path.join(args.bin, "speak-full"), "serve", "--port", str(port), "--cache-dir",
         os.path.join(tmp, "cache"), "--cache-bytes", "0"],
        env=dict(os.environ, SPEAK_SOCKET=""),
        stdout=subprocess.DEVNULL,
        stderr=open(os.path.join(tmp, "serve.log"), "w"),
    )
    results = {"memory": [], "fairness": {}}
    try:
        wait_port(port)
        rows = []
        for name, text in [("warm-up sentence", SHORT), ("normal paragraph", PARAGRAPH)] + list(LONG.items()):
            seconds, size = speak(port, text)
            rss, peak = memory(server.pid)
            rows.append({"input": name, "seconds": round(seconds, 2), "audio_s": round(size / 48000, 1),
                         "rss_mb": round(rss), "peak_mb": round(peak)})
            print(f"  {name}: {seconds:.1f} s, {size / 48000:.0f} s of audio, RSS {rss:.0f} MB, peak {peak:.0f} MB",
                  file=sys.stderr)
        results["memory"] = rows
        print("| after | reply | audio | RSS | peak RSS |\n|---|---|---|---|---|")
        for row in rows:
            cells = [row["input"], f"{row['seconds']} s", f"{row['audio_s']} s"]
            cells += [f"{row['rss_mb']} MB", f"{row['peak_mb']} MB"]
            print("| " + " | ".join(cells) + " |")

        if args.long == 0:
            return
        finished = []
        started = threading.Barrier(args.long + 1)

        def long_request(index):
            started.wait()
            seconds, _ = speak(port, digits(100 + index))
            finished.append((time.perf_counter(), seconds))

        threads = [threading.Thread(target=long_request, args=(i,)) for i in range(args.long)]
        for thread in threads:
            thread.start()
        started.wait()
        time.sleep(2)  # the long requests are under way (their first pieces are being made)
        short_seconds, _ = speak(port, SHORT)
        short_done = time.perf_counter()
        for thread in threads:
            thread.join()
        before = sum(1 for at, _ in finished if at < short_done)
        longs = sorted(seconds for _, seconds in finished)
        results["fairness"] = {"long_requests": args.long, "short_seconds": round(short_seconds, 2),
                               "long_finished_before_short": before, "long_seconds": [round(s, 1) for s in longs]}
        rss, peak = memory(server.pid)
        results["fairness"].update(rss_mb=round(rss), peak_mb=round(peak))
        print(f"\n{args.long} long requests at once: the short one took {short_seconds:.2f} s "
              f"({before} long ones finished before it); long ones {longs[0]:.0f}–{longs[-1]:.0f} s; "
              f"RSS after {rss:.0f} MB, peak {peak:.0f} MB")
    finally:
        server.terminate()
        server.wait()
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as out:
        json.dump(results, out, indent=2)


if __name__ == "__main__":
    main()

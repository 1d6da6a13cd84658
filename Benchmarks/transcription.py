#!/usr/bin/env python3
"""Benchmark `speak transcribe` / `POST /api/transcribe` against Debian's pocketsphinx_continuous.

Run from the package root:
    swift build -c release --scratch-path /tmp/bench-asr
    Benchmarks/transcription.py --speak /tmp/bench-asr/release/speak [--rounds 1]

Test set: 20 phrases x 4 espeak-ng voices, 16 kHz mono 16-bit WAV (ffmpeg), in a temp dir.
Latency and real-time factor (processing time / audio duration), medians over files, for
(a) `speak transcribe` one process per file, (b) one process for all files (time / N),
(c) `speak serve` POST /api/transcribe (model warm), (d) pocketsphinx_continuous per file;
methods interleaved file by file, the file order shuffled each round. Word error rate of free
dictation (-lm) and of a grammar of all the phrases (--expect / -jsgf). Prints Markdown tables,
writes Benchmarks/results/transcription.json. Needs espeak-ng, ffmpeg, pocketsphinx_continuous.
"""
import argparse, http.client, json, os, random, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, uuid, wave

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = "/usr/share/pocketsphinx/model/en-us"
PHRASES = ["yes", "no", "cancel", "stop", "continue", "deploy to production", "roll back", "build passed",
           "build failed", "call me later", "open the pod bay doors", "restart the server", "show me the logs",
           "run the tests again", "what time is it", "play some music",
           "please send the weekly report to the whole team", "the meeting has been moved to thursday afternoon",
           "turn off the lights in the living room", "remind me to water the plants tomorrow morning"]
VOICES = {"en-us": ["-v", "en-us"], "en-us+f3": ["-v", "en-us+f3"], "en-gb-x-rp": ["-v", "en-gb-x-rp"],
          "en-us-s150": ["-v", "en-us", "-s", "150"]}


def make_fixtures(directory):
    """[{path, voice, ref, duration}] for every phrase in every voice."""
    files = []
    for voice, flags in VOICES.items():
        for i, phrase in enumerate(PHRASES):
            raw, path = f"{directory}/raw.wav", f"{directory}/{voice}-{i:02d}.wav"
            subprocess.run(["espeak-ng", *flags, "-w", raw, phrase], check=True)
            subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", raw, "-ar", "16000", "-ac", "1",
                            "-sample_fmt", "s16", path], check=True)
            with wave.open(path) as w:
                assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
                files.append({"path": path, "voice": voice, "ref": phrase, "duration": w.getnframes() / 16000})
    return files


def timed(command):
    """(seconds, stdout, exit status) of a command."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout, done.returncode


def speak_cold(speak, f, expect=None):
    seconds, out, _ = timed([speak, "transcribe", f["path"]] + (["--expect", expect] if expect else []))
    return seconds, out.strip()  # exit 4 with no output: nothing understood


def pocketsphinx(f, grammar=None):
    search = ["-jsgf", grammar] if grammar else ["-lm", f"{MODEL}/en-us.lm.bin"]
    seconds, out, _ = timed(["pocketsphinx_continuous", "-infile", f["path"], "-hmm", f"{MODEL}/en-us", *search,
                             "-dict", f"{MODEL}/cmudict-en-us.dict", "-logfn", "/dev/null"])
    return seconds, " ".join(out.split())  # one line per utterance it segmented


def speak_batch(speak, files, expect=None):
    """(total s, {path: text}, restarts): one process for all files. A file with nothing understood
    ends the process (exit 4), so it is restarted on the files after that one."""
    total, texts, restarts, rest = 0.0, {}, 0, [f["path"] for f in files]
    while rest:
        seconds, out, status = timed([speak, "transcribe", "--json", *rest] + (["--expect", expect] if expect else []))
        total += seconds
        for line in out.splitlines():
            texts[json.loads(line)["file"]] = json.loads(line)["text"]
        done = sum(1 for p in rest if p in texts)
        if status != 0 and done < len(rest):
            texts[rest[done]] = ""
            done += 1
            restarts += done < len(rest)
        rest = rest[done:]
    return total, texts, restarts


class Server:
    """`speak serve` on a free port; POST /api/transcribe over one keep-alive connection."""

    def __init__(self, speak, directory):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = open(f"{directory}/server.log", "w")
        self.process = subprocess.Popen([speak, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                         "--cache-dir", f"{directory}/cache"], stdout=self.log, stderr=self.log)
        for _ in range(100):
            try:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                self.connection.request("GET", "/health")
                response = self.connection.getresponse()
                if response.read() is not None and response.status == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"speak serve did not start: see {directory}/server.log")

    def transcribe(self, f, expect=None):
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="expect"\r\n\r\n{expect}\r\n'.encode()] if expect else []
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n'
                     f'Content-Type: audio/wav\r\n\r\n'.encode() + open(f["path"], "rb").read() + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        start = time.perf_counter()
        self.connection.request("POST", "/api/transcribe", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = self.connection.getresponse()
        payload = response.read()
        seconds = time.perf_counter() - start
        return seconds, json.loads(payload).get("text", "") if response.status == 200 else ""

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def words(text):
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower()).split()


def edits(ref, hyp):
    """Word-level Levenshtein distance."""
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1]


def wer(files, key):
    """(WER %, exact-match %) over files, texts in f[key]."""
    ref = sum(len(words(f["ref"])) for f in files)
    wrong = sum(edits(words(f["ref"]), words(f[key])) for f in files)
    return 100 * wrong / ref, 100 * sum(words(f["ref"]) == words(f[key]) for f in files) / len(files)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build/release/speak"))
    parser.add_argument("--rounds", type=int, default=1, help="passes over the test set, interleaved")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    speak, rng = os.path.abspath(args.speak), random.Random(args.seed)
    expect = "|".join(PHRASES)
    directory = tempfile.mkdtemp(prefix="bench-asr-")
    grammar = f"{directory}/phrases.gram"
    with open(grammar, "w") as g:
        g.write("#JSGF V1.0;\ngrammar phrases;\npublic <phrase> = " + " | ".join(PHRASES) + " ;\n")
    files = make_fixtures(directory)
    n, load = len(files), [os.getloadavg()[0]]
    print(f"{n} files, {statistics.median(f['duration'] for f in files):.2f} s median audio, "
          f"{sum(f['duration'] for f in files):.1f} s total; load average {load[0]:.2f}", file=sys.stderr)
    times = {k: [] for k in ("cold", "batch", "server", "ps", "cold_grammar", "batch_grammar", "server_grammar", "ps_grammar")}
    restarts = {"batch": 0, "batch_grammar": 0}
    server = None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that `finally` stops the server
    try:
        server = Server(speak, directory)
        server.transcribe(files[0])  # loads the model in the server's pool
        for r in range(args.rounds):
            for mode, key in (("", ""), ("_grammar", expect)):
                order = files[:]
                rng.shuffle(order)
                for i, f in enumerate(order):
                    jobs = [("cold", lambda: speak_cold(speak, f, key or None)),
                            ("ps", lambda: pocketsphinx(f, grammar if key else None)),
                            ("server", lambda: server.transcribe(f, key or None))]
                    if i % 2:
                        jobs.reverse()  # neither program always runs right after the other
                    for name, job in jobs:
                        seconds, text = job()
                        times[name + mode].append((seconds, f["duration"]))
                        f[name + mode] = text
                    if i == n // 2:  # the one-process run in the middle of the per-file runs
                        total, texts, restarted = speak_batch(speak, order, key or None)
                        times["batch" + mode] += [(total / n, f["duration"]) for f in order]
                        restarts["batch" + mode] += restarted
                        for g in order:
                            g["batch" + mode] = texts[g["path"]]
                print(f"round {r + 1}{mode or ' free'} done", file=sys.stderr)
        load.append(os.getloadavg()[0])
    finally:
        if server:
            server.stop()

    def median_ms(name):
        return 1000 * statistics.median(s for s, _ in times[name])

    def median_rtf(name):
        return statistics.median(s / d for s, d in times[name])

    labels = {"cold": "(a) speak transcribe, process per file", "batch": "(b) speak transcribe, all files in one process",
              "server": "(c) speak serve, POST /api/transcribe", "ps": "(d) pocketsphinx_continuous, process per file"}
    summary = {"files": n, "rounds": args.rounds, "load_average": load, "batch_restarts": restarts, "latency": {}, "accuracy": {}}
    for mode, title in (("", "free dictation (-lm)"), ("_grammar", "grammar of the 20 phrases")):
        print(f"\n### Latency per file, {title}: medians over {n} files x {args.rounds} round(s)\n")
        print("| method | ms | RTF | ms / pocketsphinx_continuous |\n|---|---:|---:|---:|")
        for name, label in labels.items():
            ms, rtf, ratio = median_ms(name + mode), median_rtf(name + mode), median_ms(name + mode) / median_ms("ps" + mode)
            summary["latency"][name + mode] = {"median_ms": round(ms, 1), "median_rtf": round(rtf, 4), "ratio_to_ps": round(ratio, 3)}
            print(f"| {label} | {ms:.0f} | {rtf:.3f} | {ratio:.2f} |")
    print(f"\n### Word error rate, {n} files ({sum(len(words(f['ref'])) for f in files)} words)\n")
    print("| recogniser | WER % | exact % | " + " | ".join(f"WER {v}" for v in VOICES) + " |\n|---|" + "---:|" * (2 + len(VOICES)))
    for key, label in (("cold", "speak, free"), ("ps", "pocketsphinx_continuous, free"),
                       ("cold_grammar", "speak --expect"), ("ps_grammar", "pocketsphinx_continuous -jsgf")):
        total, exact = wer(files, key)
        by_voice = {v: wer([f for f in files if f["voice"] == v], key)[0] for v in VOICES}
        summary["accuracy"][key] = {"wer": round(total, 2), "exact": round(exact, 2), "wer_by_voice": {v: round(w, 2) for v, w in by_voice.items()}}
        print(f"| {label} | {total:.1f} | {exact:.0f} | " + " | ".join(f"{by_voice[v]:.1f}" for v in VOICES) + " |")
    differ = [f["path"] for f in files if f["cold"] != f["batch"] or f["cold"] != f["server"]
              or f["cold_grammar"] != f["batch_grammar"] or f["cold_grammar"] != f["server_grammar"]]
    print(f"\nspeak's three ways gave different texts for {len(differ)} files; one-process runs restarted "
          f"after a file with nothing understood: {restarts}; load average {load[0]:.2f} -> {load[-1]:.2f}")
    summary["texts_differ_between_speak_modes"] = differ
    summary["files_detail"] = [{k: v for k, v in f.items() if k != "path"} | {"file": os.path.basename(f["path"])} for f in files]
    os.makedirs(f"{ROOT}/Benchmarks/results", exist_ok=True)
    with open(f"{ROOT}/Benchmarks/results/transcription.json", "w") as out:
        json.dump(summary, out, indent=1)
    shutil.rmtree(directory)


if __name__ == "__main__":
    main()

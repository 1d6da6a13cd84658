#!/usr/bin/env python3
"""Benchmark the neural voice `joe` through speak against piper-tts on the same .onnx.

Run from the package root, after Scripts/install-piper (the model, ONNX Runtime and piper-tts):
    swift build -c release --scratch-path /tmp/bench-neural
    Benchmarks/neural.py --bin /tmp/bench-neural/release [--rounds 5]

Texts: a short sentence, a paragraph of 5 sentences, a page. speak and piper-tts alternate, the
order flipped each round; medians over rounds.
- load: piper-tts' PiperVoice.load in process; speak's as its server's first joe request less a
  warm request of the same text (the model loads on first use).
- first audio, CLI cold: process start to the first PCM byte out: speak plays into ALSA's `file`
  plugin writing a FIFO (no device timing), piper-tts writes --output-raw to a pipe. The cold
  runs get SPEAK_SOCKET="" so that no running server takes them.
- first audio, CLI via a running server: each round starts its own `speak serve` with
  SPEAK_SOCKET=<tmp>/run/serve.sock and a fresh --cache-dir (so the measured runs are cache
  misses with the very texts piper-tts speaks), warms it with one joe request ("Warm up.") through
  the socket, then times `speak -v joe TEXT` with that SPEAK_SOCKET and the cold runs' FIFO, against
  piper-tts' cold CLI (its sample of the same round). Then the same command again: the cached repeat.
  Each run is checked: a miss must add one entry to the server's cache directory, a repeat must
  leave every entry file as it was (no new synthesis); the CLI's peak RSS shows whether it loaded
  the model itself.
- first byte, HTTP: a running `speak serve` (model warm) POST /v1/audio/speech pcm, and piper-tts'
  own HTTP server (POST /synthesize, a whole WAV), warm.
- real-time factor: whole reply time / audio duration, warm, over HTTP on both sides, in one format
  (WAV at the model's rate: speak serve's /v1/audio/speech wav, piper-tts' /synthesize),
  alternating; piper-tts in process (PiperVoice.synthesize, no HTTP) is printed beside it.
- peak RSS: the CLI writing the paragraph to a WAV file (wait4's ru_maxrss).
- WER of 32 sentences (not the tests': checked against Tests/), each synthesised --wer-repeats
  times (3) on each side, since a Piper voice samples its durations and noise: joe through speak
  serve (which keeps no reply: every request is synthesised), espeak-ng's `default` through speak,
  and piper-tts, transcribed by whisper.cpp (pywhispercpp, base model) when it can be had, else
  pocketsphinx free dictation. The WER per side is the mean over repeats, with its spread; then
  the sentences joe and piper-tts were heard saying differently. --wer-server LABEL BIN_DIR
  [KEY=VALUE...] adds another build's joe (its own speak serve), taking turns with the first:
      Benchmarks/neural.py --bin /tmp/a/release --wer-only --wer-server "joe (build b)" /tmp/b/release
  --wer-set dictionary takes DICTIONARY_SENTENCES instead: words that piper-tts' English dictionary
  and Debian's read differently.
Prints Markdown tables; writes Benchmarks/results/neural.json (neural-wer-SET.json with --wer-only).
--streaming: only speak, a reply's first sentence decoded in windows against whole (SPEAK_PIPER_STREAM=0)
on the same build (streaming_part); writes Benchmarks/results/streaming.json.
"""
import argparse, hashlib, http.client, io, json, os, re, select, signal, socket, statistics, subprocess, sys
import tempfile, time
import threading
import wave

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = "/usr/local/share/speak/models/en_US-joe-medium.onnx"
PIPER_PY = "/usr/local/lib/speak/piper-tts/bin/python"
PIPER = "/usr/local/lib/speak/piper-tts/bin/piper"
WHISPER_VENV = "/tmp/speak-bench-whisper"
WHISPER_MODELS = ["/usr/local/share/speak/models/ggml-base.bin", "/usr/local/share/speak/models/ggml-tiny.en.bin"]

SHORT = "The nightly backup finished successfully."
PARAGRAPH = (
    "The build finished a few minutes ago. Every test passed on the first try. "
    "The release notes are ready for review. Please check the dashboard before lunch. "
    "The next deployment starts at noon."
)
PAGE = " ".join(
    [PARAGRAPH] * 2
    + [
        "Our team spent the week on the new search feature, and the results are encouraging. "
        "Queries now return in half the time, and the index uses less memory than before. "
        "We still have to tune the ranking, which favours older documents too strongly. "
        "On Thursday we will meet to decide whether the feature ships this month or next. "
        "If you have opinions, bring them, along with any examples of searches that went wrong. "
        "Thank you all for the careful work, and have a pleasant weekend."
    ]
)
TEXTS = {"short": SHORT, "paragraph": PARAGRAPH, "page": PAGE}

WER_SENTENCES = [
    "The kettle is boiling in the kitchen.",
    "Please close the window before you leave.",
    "My brother plays the guitar every evening.",
    "The train to the city leaves from platform two.",
    "She painted the fence a bright shade of green.",
    "We walked along the beach until sunset.",
    "The library opens early on Saturday mornings.",
    "He forgot his umbrella at the office.",
    "Turn left at the second traffic light.",
    "The children built a castle out of sand.",
    "Our neighbours adopted a small grey cat.",
    "The soup needs a little more salt.",
    "I will call you when the package arrives.",
    "The museum has a new exhibit about whales.",
    "Rain is expected for most of the afternoon.",
    "The pilot announced a short delay.",
    "Remember to water the tomatoes tonight.",
    "The printer on the third floor is out of paper.",
    "They celebrated her birthday with a chocolate cake.",
    "The bridge was closed for repairs.",
    "A gentle breeze moved through the tall grass.",
    "The doctor asked him to rest for a week.",
    "Please send me the report by Friday.",
    "The orchestra played a piece by Mozart.",
    "The hotel room had a view of the mountains.",
    "He reads the newspaper with his breakfast.",
    "The garden is full of yellow flowers.",
    "Our flight was cancelled because of the storm.",
    "The teacher wrote the answer on the board.",
    "The coffee shop on the corner sells fresh bread.",
    "Keep the receipt in case you want a refund.",
    "The river flooded the fields last spring.",
]

# Sentences with the words that piper-tts' English dictionary (share/speak/piper-espeak-ng/en_dict, which
# Piper voices read) and Debian's espeak-ng 1.51 read differently ("has been", place names, "Kubernetes"):
# --wer-set dictionary. On WER_SENTENCES and everyday text the two dictionaries agree word for word.
DICTIONARY_SENTENCES = [
    "The package has been delivered to the front desk.",
    "She has been teaching music for twenty years.",
    "Nobody has been able to fix the leaking roof.",
    "It has been raining since early this morning.",
    "The meeting has been moved to Thursday afternoon.",
    "The report has been printed and signed.",
    "Our office in Bellevue opens at nine.",
    "The ferry from Tacoma was running late again.",
    "Fog rolled in over Puget Sound before dawn.",
    "My cousin moved to Boise last summer.",
    "The apples from Yakima are sweet and crisp.",
    "They hiked along the Willamette River on Sunday.",
    "The library in Snohomish is closed for repairs.",
    "We stopped for lunch in Puyallup on the way south.",
    "Traffic near Issaquah was slow all evening.",
    "The lake in Sammamish freezes only in hard winters.",
    "A small boat left Mukilteo at sunrise.",
    "The bus from Nanaimo arrives at noon.",
    "Her sister works at a bakery in Bothell.",
    "The new school in Burien opened this fall.",
    "He keeps a rare banknote in a glass frame.",
    "The server would not boot until we changed a UEFI setting.",
    "The road has been repaved this spring.",
    "We deployed the service on Kubernetes last week.",
    "Travel inside the Schengen area needs no passport check.",
    "The stadium was named after William Shea.",
    "Kamala read the letter aloud to the class.",
    "The window has been left open all night.",
    "The shop is on Ocean Blvd next to the pier.",
    "Every Friday she writes a short weeknote for the team.",
    "The password manager Bitwarden keeps our keys safe.",
    "A bateau drifted slowly down the canal.",
]


def median(values):
    return statistics.median(values) if values else float("nan")


def wav_duration(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def run_rusage(argv, stdin=None, env=None):
    """(seconds, peak RSS in MB, exit status) of a command."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    if stdin is not None:
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {err[-300:]}")
    return seconds, usage.ru_maxrss / 1024


def first_byte_of(argv, read_fd_path=None, stdin=None, env=None, stderr=subprocess.DEVNULL):
    """(seconds from spawning argv to the first non-zero byte on its stdout (or in the FIFO), or
    None; its peak RSS in MB; its exit status)."""
    start = time.perf_counter()
    if read_fd_path:
        fd = os.open(read_fd_path, os.O_RDONLY | os.O_NONBLOCK)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
    else:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env)
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
        fd = proc.stdout.fileno()
    usage = None

    def exited():
        nonlocal usage
        if usage is None:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                usage, proc.returncode = rusage, os.waitstatus_to_exitcode(status)
        return usage is not None

    first = None
    while first is None:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            continue
        if not chunk:
            if exited():
                break
            time.sleep(0.001)
            continue
        if any(chunk):
            first = time.perf_counter() - start
    while not exited():
        try:
            if not os.read(fd, 65536):
                time.sleep(0.001)
        except BlockingIOError:
            time.sleep(0.001)
    if read_fd_path:
        os.close(fd)
    return first, usage.ru_maxrss / 1024, proc.returncode


def wait_socket(path, proc, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"speak serve for {path} exited ({proc.returncode})")
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(path)
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {path}")


def cache_entries(directory):
    """{entry file name: inode} of a reply cache directory: a new synthesis adds a name (or, for a
    key already there, replaces the file and so its inode); a hit changes neither."""
    try:
        return {e.name: e.inode() for e in os.scandir(directory) if e.name.endswith(".reply")}
    except FileNotFoundError:
        return {}


def wait_entries(directory, count, timeout=10):
    """The entries once there are `count` of them (the server commits after its last write, which
    may be just after the CLI has exited), or as they are at the deadline."""
    deadline = time.time() + timeout
    while True:
        entries = cache_entries(directory)
        if len(entries) >= count or time.time() > deadline:
            return entries
        time.sleep(0.01)


class SocketServer:
    """One round's `speak serve`: its local socket at <tmp>/run/serve.sock (the server makes the
    0700 directory), its own --cache-dir, warmed with one joe request through the socket."""

    def __init__(self, speak, speak_full, tmp, round_, fifo, alsa_env):
        self.socket = os.path.join(tmp, "run", "serve.sock")
        self.cache = os.path.join(tmp, f"socket-cache-{round_}")
        self.log = os.path.join(tmp, f"socket-serve-{round_}.log")
        self.env = dict(alsa_env, SPEAK_SOCKET=self.socket)
        self.proc = subprocess.Popen(
            [speak_full, "serve", "--port", str(free_port()), "--cache-dir", self.cache],
            env=dict(os.environ, SPEAK_SOCKET=self.socket),
            stdout=subprocess.DEVNULL,
            stderr=open(self.log, "w"),
        )
        try:
            wait_socket(self.socket, self.proc)
            self.modes = (
                oct(os.stat(os.path.dirname(self.socket)).st_mode & 0o777),
                oct(os.stat(self.socket).st_mode & 0o777),
            )
            self.speak, self.fifo = speak, fifo
            self.warm = self.say("Warm up.")
        except BaseException:
            self.stop()
            raise

    def say(self, text):
        """(seconds to first audio, peak RSS in MB, cache entries before, after) of `speak -v joe TEXT`."""
        before = cache_entries(self.cache)
        with open(self.log.replace(".log", "-cli.log"), "a") as err:
            first, rss, status = first_byte_of(
                [self.speak, "-v", "joe", "-a", "bench", text], read_fd_path=self.fifo, env=self.env, stderr=err
            )
        if status != 0 or first is None:
            raise RuntimeError(f"speak -v joe via {self.socket} failed ({status}, first audio {first})")
        return first, rss, before, wait_entries(self.cache, len(before) + 1)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


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


def http_post(port, path, body, content_type="application/json"):
    """(seconds to first body byte, seconds to whole reply, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    conn.request("POST", path, body=body, headers={"Content-Type": content_type})
    reply = conn.getresponse()
    first = reply.read(1)
    first_at = time.perf_counter() - start
    rest = reply.read()
    total = time.perf_counter() - start
    if reply.status != 200:
        raise RuntimeError(f"HTTP {reply.status}: {(first + rest)[:300]}")
    conn.close()
    return first_at, total, first + rest


def speech_request(text, voice="joe", response_format="pcm"):
    """OpenAI's speech request, for raw PCM (24 kHz s16le) by default: its first byte is audio, not a header."""
    return json.dumps({"model": "tts-1", "input": text, "voice": voice, "response_format": response_format})


def wav_duration(data):
    """Seconds of 16-bit mono audio in a WAV of speak's: a 44-byte header whose sizes are unknown
    while it streams, so the length is the body's."""
    rate = int.from_bytes(data[24:28], "little")  # the fmt chunk's sample rate
    return (len(data) - 44) / 2 / rate


def pcm_duration(data):
    return len(data) / 2 / 24000


PIPER_INPROCESS = r"""
import json, sys, time
t = time.perf_counter()
from piper import PiperVoice
voice = PiperVoice.load(sys.argv[1])
load = time.perf_counter() - t
texts = json.loads(sys.argv[2])
out = {"load": load, "rtf": {}}
list(voice.synthesize("Warm up."))
for name, text in texts.items():
    t = time.perf_counter()
    samples = sum(len(c.audio_int16_bytes) // 2 for c in voice.synthesize(text))
    out["rtf"][name] = (time.perf_counter() - t) / (samples / voice.config.sample_rate)
print(json.dumps(out))
"""


def alsa_fifo_env(tmp):
    fifo = os.path.join(tmp, "alsa.fifo")
    os.mkfifo(fifo)
    conf = os.path.join(tmp, "asound.conf")
    with open(conf, "w") as f:
        f.write(
            "</usr/share/alsa/alsa.conf>\n" f'pcm.bench {{ type file slave.pcm "null" file "{fifo}" format "raw" }}\n'
        )
    # No running server may take a cold run (LocalSocket: an empty SPEAK_SOCKET means none).
    env = dict(os.environ, ALSA_CONFIG_PATH=conf, SPEAK_SOCKET="")
    return fifo, env


def whisper_transcriber(fit_window=False):
    """A function path → text with whisper.cpp (pywhispercpp), or None. With `fit_window` the encoder
    sees each clip's own length plus 1.3 s (`audio_ctx`, 50 frames a second) instead of whisper.cpp's
    whole 30 s window: several times faster on short sentences, the same transcriber for every side."""
    model = next((m for m in WHISPER_MODELS if os.path.exists(m)), None)
    if model is None:
        return None, None
    python = os.path.join(WHISPER_VENV, "bin", "python")
    if not os.path.exists(python):
        r = subprocess.run([sys.executable, "-m", "venv", WHISPER_VENV], capture_output=True)
        if r.returncode == 0:
            subprocess.run([python, "-m", "pip", "install", "-q", "pywhispercpp==1.5.1"], capture_output=True)
    if subprocess.run([python, "-c", "import pywhispercpp"], capture_output=True).returncode != 0:
        return None, None

    def transcribe(paths):
        script = (
            "import json, sys, wave\nimport numpy as np\nfrom pywhispercpp.model import Model\n"
            "m = Model(sys.argv[1], n_threads=2, print_progress=False, print_realtime=False)\n"
            "def pcm16k(path):\n"
            "    with wave.open(path) as w:\n"
            "        x = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768\n"
            "        rate = w.getframerate()\n"
            "    t = np.arange(0, len(x) / rate, 1 / 16000)\n"  # linear resampling is enough for ASR
            "    return np.interp(t, np.arange(len(x)) / rate, x).astype(np.float32)\n"
            "def heard(x):\n"
            "    ctx = min(1500, 64 + -(-len(x) * 50 // 16000)) if sys.argv[2] == 'fit' else 0\n"
            "    return ' '.join(s.text for s in m.transcribe(x, language='en', audio_ctx=ctx))\n"
            "print(json.dumps([heard(pcm16k(p)) for p in sys.argv[3:]]))"
        )
        window = "fit" if fit_window else "whole"
        out = subprocess.run([python, "-c", script, model, window, *paths], capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    window = ", encoder window fitted to each clip" if fit_window else ""
    return transcribe, f"whisper.cpp {os.path.basename(model)}{window}"


def pocketsphinx_transcribe(paths, speak_full):
    out = subprocess.run([speak_full, "transcribe", "--json", *paths], capture_output=True, text=True)
    texts = {json.loads(l)["file"]: json.loads(l)["text"] for l in out.stdout.splitlines() if l.strip()}
    return [texts.get(p, "") for p in paths]


# One word written two ways, in the sentences and by Whisper (British and American spellings, an abbreviation
# read out): not a mishearing.
SPELLINGS = {
    "neighbours": "neighbors", "neighbour": "neighbor", "grey": "gray", "cancelled": "canceled",
    "blvd": "boulevard",
}


def words(text):
    """Lower case, no punctuation; apostrophes dropped, so "field's" and "fields" sound and count alike."""
    text = text.lower().replace("-", " ").replace("'", "").replace("\u2019", "")
    return [SPELLINGS.get(w, w) for w in re.sub(r"[^a-z ]", " ", text).split()]


def wer(refs, hyps):
    errors = total = 0
    for ref, hyp in zip(refs, hyps):
        r, h = words(ref), words(hyp)
        d = list(range(len(h) + 1))
        for i in range(1, len(r) + 1):
            prev, d[0] = d[0], i
            for j in range(1, len(h) + 1):
                cur = min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
                prev, d[j] = d[j], cur
        errors += d[len(h)]
        total += len(r)
    return errors / total


def streaming_part(args, speak, speak_full, tmp, fifo, alsa_env):
    """A reply's first sentence decoded in windows (the split model) against whole (SPEAK_PIPER_STREAM=0),
    on the same build, alternating, with the load average of each sample: HTTP first byte (pcm) of
    the short text and the paragraph from a warm `speak serve` each, the cold CLI's first audio,
    and 4 concurrent paragraph replies (time until the last byte of all four)."""
    sides = {"streamed": "1", "whole": "0"}
    server_env = dict(pair.split("=", 1) for pair in args.server_env)
    ports, procs = {}, []
    results = {"http_first_byte": {}, "cold_first_audio": {}, "four_concurrent_s": {}, "load_average": []}
    try:
        for side, flag in sides.items():
            ports[side] = free_port()
            procs.append(
                subprocess.Popen(
                    [speak_full, "serve", "--port", str(ports[side]), "--cache-dir", os.path.join(tmp, "cache-" + side),
                     "--cache-bytes", "0"],
                    env=dict(os.environ, SPEAK_SOCKET="", SPEAK_PIPER_STREAM=flag, **server_env),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for side in sides:
            wait_port(ports[side])
            # The second reply starts loading the split parts; the third finds them (or not) loaded.
            for _ in range(3):
                http_post(ports[side], "/v1/audio/speech", speech_request("Warm up. Two sentences."))
                time.sleep(0.5)
        texts = {"short": SHORT, "paragraph": PARAGRAPH}
        samples = {k: {n: {s: [] for s in sides} for n in texts} for k in ("http", "cold")}
        four = {s: [] for s in sides}
        for round_ in range(args.rounds):
            order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
            results["load_average"].append(os.getloadavg()[0])
            for name, text in texts.items():
                for side in order:
                    samples["http"][name][side].append(
                        http_post(ports[side], "/v1/audio/speech", speech_request(text))[0])
                for side in order:
                    env = dict(alsa_env, SPEAK_PIPER_STREAM=sides[side])
                    first = first_byte_of([speak, "-v", "joe", "-a", "bench", text], read_fd_path=fifo, env=env)[0]
                    samples["cold"][name][side].append(first)
            for side in order:
                start = time.perf_counter()
                threads = []
                for _ in range(4):
                    t = threading.Thread(
                        target=http_post, args=(ports[side], "/v1/audio/speech", speech_request(PARAGRAPH)))
                    t.start()
                    threads.append(t)
                for t in threads:
                    t.join()
                four[side].append(time.perf_counter() - start)
        for name in texts:
            results["http_first_byte"][name] = {s: median(v) for s, v in samples["http"][name].items()}
            results["cold_first_audio"][name] = {s: median(v) for s, v in samples["cold"][name].items()}
        results["four_concurrent_s"] = {s: median(v) for s, v in four.items()}
        results["samples"] = {"http": samples["http"], "cold": samples["cold"], "four": four}
    finally:
        stop(procs)
    ms = lambda v: f"{v * 1000:.0f} ms"
    print(f"\n## First sentence streamed vs whole ({args.rounds} rounds, alternating; "
          f"load average {min(results['load_average']):.2f}-{max(results['load_average']):.2f})\n")
    print("| measure | text | streamed | whole | ratio |\n|---|---|---|---|---|")
    labels = (("http_first_byte", "HTTP first byte (pcm, warm server)"), ("cold_first_audio", "CLI cold first audio"))
    for key, label in labels:
        for name, row in results[key].items():
            print(f"| {label} | {name} | {ms(row['streamed'])} | {ms(row['whole'])} | "
                  f"{row['streamed'] / row['whole']:.2f}x |")
    row = results["four_concurrent_s"]
    print(f"| 4 concurrent paragraph replies, all done | paragraph | {row['streamed']:.2f} s | {row['whole']:.2f} s | "
          f"{row['streamed'] / row['whole']:.2f}x |")
    os.makedirs(os.path.join(ROOT, "Benchmarks/results"), exist_ok=True)
    with open(os.path.join(ROOT, "Benchmarks/results/streaming.json"), "w") as f:
        json.dump(results, f, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--wer-only", action="store_true", help="only the word error rates")
    parser.add_argument("--no-wer", action="store_true", help="only the timings, no word error rates")
    parser.add_argument(
        "--wer-set", choices=("general", "dictionary"), default="general",
        help="the WER sentences: WER_SENTENCES, or DICTIONARY_SENTENCES (words the two dictionaries read apart)")
    parser.add_argument(
        "--wer-fit-window", action="store_true",
        help="Whisper's encoder window fitted to each clip (audio_ctx) instead of 30 s: faster, same for all sides")
    parser.add_argument("--wer-repeats", type=int, default=3, help="syntheses of each WER sentence on each side")
    parser.add_argument(
        "--wer-server", nargs="+", action="append", default=[], metavar=("LABEL", "BIN_DIR"),
        help="another build's joe beside the others in the WER part: LABEL BIN_DIR [KEY=VALUE for its server ...]")
    parser.add_argument(
        "--streaming", action="store_true", help="only the first sentence streamed against whole (speak alone)")
    parser.add_argument("--server-env", action="append", default=[], help="KEY=VALUE for both servers (--streaming)")
    args = parser.parse_args()
    speak, speak_full = os.path.join(args.bin, "speak"), os.path.join(args.bin, "speak-full")
    # A binary built with --scratch-path outside .build/ does not find the package's Voices/ itself.
    os.environ["SPEAK_VOICES"] = ":".join(filter(None, [os.path.join(ROOT, "Voices"), os.environ.get("SPEAK_VOICES")]))
    tmp = tempfile.mkdtemp(prefix="neural-bench-")
    fifo, alsa_env = alsa_fifo_env(tmp)
    if args.streaming:
        return streaming_part(args, speak, speak_full, tmp, fifo, alsa_env)
    results = {
        "rounds": args.rounds,
        "load_average_before": os.getloadavg(),
        "cold_first_audio": {},
        "served_first_audio": {},
        "served_cached_first_audio": {},
        "served_cli_peak_rss_mb": {},
        "http_first_byte": {},
        "rtf": {},
        "peak_rss_mb": {},
        "load": {},
    }
    procs = []
    try:
        if args.wer_only:
            raise SkipTimings
        # Servers: speak serve (joe warm after the first request) and piper-tts' HTTP server.
        speak_port, piper_port = free_port(), free_port()
        procs.append(
            subprocess.Popen(
                [
                    speak_full,
                    "serve",
                    "--port",
                    str(speak_port),
                    "--cache-dir",
                    os.path.join(tmp, "cache"),
                    "--cache-bytes",
                    "0",
                ],
                env=dict(os.environ, SPEAK_SOCKET=""),  # the socket is the rounds' servers'
                stdout=subprocess.DEVNULL,
                stderr=open(os.path.join(tmp, "serve.log"), "w"),
            )
        )
        if subprocess.run([PIPER_PY, "-c", "import flask"], capture_output=True).returncode != 0:
            subprocess.run([PIPER_PY, "-m", "pip", "install", "-q", "flask"], check=True)
        procs.append(
            subprocess.Popen(
                [PIPER_PY, "-m", "piper.http_server", "-m", MODEL, "--host", "127.0.0.1", "--port", str(piper_port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        wait_port(speak_port)
        wait_port(piper_port)
        loads = []
        for i in range(1):
            first = http_post(speak_port, "/v1/audio/speech", speech_request(SHORT))[1]
            warm = median([http_post(speak_port, "/v1/audio/speech", speech_request(SHORT))[1] for _ in range(3)])
            loads.append(first - warm)
        results["load"]["speak"] = median(loads)
        inproc = json.loads(
            subprocess.run(
                [PIPER_PY, "-c", PIPER_INPROCESS, MODEL, json.dumps(TEXTS)], capture_output=True, text=True, check=True
            ).stdout
        )
        results["load"]["piper-tts"] = inproc["load"]
        results["rtf_in_process"] = {"piper-tts": inproc["rtf"]}
        http_post(piper_port, "/synthesize", json.dumps({"text": "Warm up."}))

        samples = {
            k: {n: {"speak": [], "piper-tts": []} for n in TEXTS}
            for k in ("cold", "http", "rss", "rtf", "served", "cached", "served_rss", "cold_rss")
        }
        checks = {
            "misses": 0,
            "misses_stored": 0,
            "repeats": 0,
            "repeats_untouched": 0,
            "warm_first_audio": [],
            "socket_modes": set(),
        }
        for round_ in range(args.rounds):
            order = ["speak", "piper-tts"] if round_ % 2 == 0 else ["piper-tts", "speak"]
            server = SocketServer(speak, speak_full, tmp, round_, fifo, alsa_env)
            checks["warm_first_audio"].append(server.warm[0])
            checks["socket_modes"].add(server.modes)
            try:
                for name, text in TEXTS.items():
                    for who in order:
                        measure_round(
                            who, name, text, samples, checks, server, speak, speak_port, piper_port, fifo, alsa_env, tmp
                        )
            finally:
                server.stop()
        for key, target in (("cold", "cold_first_audio"), ("http", "http_first_byte"), ("rss", "peak_rss_mb")):
            results[target] = {n: {w: median(v) for w, v in by.items()} for n, by in samples[key].items()}
        for key, target in (("served", "served_first_audio"), ("cached", "served_cached_first_audio")):
            # The peer is piper-tts' cold CLI of the same rounds.
            results[target] = {
                n: {"speak": median(samples[key][n]["speak"]), "piper-tts": median(samples["cold"][n]["piper-tts"])}
                for n in TEXTS
            }
        results["served_cli_peak_rss_mb"] = {
            n: {
                "via server": median(samples["served_rss"][n]["speak"]),
                "cold": median(samples["cold_rss"][n]["speak"]),
            }
            for n in TEXTS
        }
        results["served_samples"] = {k: {n: samples[k][n]["speak"] for n in TEXTS} for k in ("served", "cached")}
        checks["socket_modes"] = sorted(checks["socket_modes"])
        results["handoff_checks"] = checks
        results["rtf"] = {
            who: {n: median(by[who]) for n, by in samples["rtf"].items()} for who in ("speak", "piper-tts")
        }
        results["load_average_after"] = os.getloadavg()
        print_timings(results, args.rounds)
    except SkipTimings:
        pass
    except BaseException:
        stop(procs)  # a failed round must not leave its servers running
        raise
    try:
        if not args.no_wer:
            wer_part(args, results, tmp, speak, speak_full)
    finally:
        stop(procs)


def stop(procs):
    """SIGTERM each server, then wait (SIGKILL after 10 s)."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def measure_round(who, name, text, samples, checks, server, speak, speak_port, piper_port, fifo, alsa_env, tmp):
    """One text, one side, one round."""
    if who == "speak":
        first, rss, _ = first_byte_of([speak, "-v", "joe", "-a", "bench", text], read_fd_path=fifo, env=alsa_env)
        samples["cold"][name][who].append(first)
        samples["cold_rss"][name][who].append(rss)
        # Via the round's server: a miss (its cache directory is new this round), then the repeat.
        first, rss, before, after = server.say(text)
        checks["misses"] += 1
        checks["misses_stored"] += len(set(after) - set(before)) == 1
        samples["served"][name][who].append(first)
        samples["served_rss"][name][who].append(rss)
        first, _, before, after = server.say(text)
        checks["repeats"] += 1
        checks["repeats_untouched"] += after == before
        samples["cached"][name][who].append(first)
        first, total, body = http_post(speak_port, "/v1/audio/speech", speech_request(text))
        samples["http"][name][who].append(first)
        # The real-time factor in the format piper-tts' server sends: WAV at the model's rate.
        _, total, body = http_post(speak_port, "/v1/audio/speech", speech_request(text, response_format="wav"))
        samples["rtf"][name][who].append(total / wav_duration(body))
        out = os.path.join(tmp, "speak.wav")
        samples["rss"][name][who].append(
            run_rusage([speak, "-v", "joe", "-o", out, text], env=dict(os.environ, SPEAK_SOCKET=""))[1]
        )
    else:
        samples["cold"][name][who].append(first_byte_of([PIPER, "-m", MODEL, "--output-raw"], stdin=text)[0])
        first, total, body = http_post(piper_port, "/synthesize", json.dumps({"text": text}))
        samples["http"][name][who].append(first)
        with wave.open(io.BytesIO(body)) as reply:
            samples["rtf"][name][who].append(total / (reply.getnframes() / reply.getframerate()))
        out = os.path.join(tmp, "piper.wav")
        samples["rss"][name][who].append(run_rusage([PIPER, "-m", MODEL, "-f", out], stdin=text)[1])


PIPER_WAVS = r"""
import json, sys, wave
from piper import PiperVoice
voice = PiperVoice.load(sys.argv[1])
for repeat in range(int(sys.argv[4])):
    for i, text in enumerate(json.loads(sys.argv[3])):
        with wave.open(f"{sys.argv[2]}/piper-{repeat}-{i}.wav", "wb") as w:
            voice.synthesize_wav(text, w)
"""


def check_not_tests_own(sentences):
    """Stops when a WER sentence (without its final stop) occurs in Tests/: the set must be new to speak."""
    tests = []
    for folder, _, files in os.walk(os.path.join(ROOT, "Tests")):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                tests.append(f.read().decode("utf-8", "replace").lower())
    found = [s for s in sentences if any(s.rstrip(".").lower() in text for text in tests)]
    if found:
        sys.exit(f"neural.py: WER sentences that Tests/ uses: {found}")


def wer_part(args, results, tmp, speak, speak_full):
    """Each sentence synthesised --wer-repeats times on every side: joe from a speak serve of its own
    (--cache-bytes 0 keeps no reply, so every request is a fresh synthesis; no rate limit),
    espeak-ng's default from the speak command (no server), piper-tts in one process; then
    transcribed. Identical audio is transcribed once (Whisper decodes greedily,
    so it would hear it alike); how many repeats were distinct is printed."""
    sentences = DICTIONARY_SENTENCES if args.wer_set == "dictionary" else WER_SENTENCES
    check_not_tests_own(sentences)
    repeats, count = args.wer_repeats, len(sentences)
    sides = {"joe (speak)": "joe", "default (speak, espeak-ng)": "default", "piper-tts": "piper"}
    joe_ports = {}  # label -> port of its own speak serve
    procs = []
    try:
        servers = [("joe (speak)", args.bin)] + [tuple(server) for server in args.wer_server]
        for label, bin_dir, *pairs in servers:
            port = free_port()
            procs.append(
                subprocess.Popen(
                    [os.path.join(bin_dir, "speak-full"), "serve", "--port", str(port), "--cache-dir",
                     os.path.join(tmp, f"wer-cache-{len(joe_ports)}"), "--cache-bytes", "0", "--rate-limit", "100000"],
                    env=dict(os.environ, SPEAK_SOCKET="", **dict(pair.split("=", 1) for pair in pairs)),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            joe_ports[label] = port
            sides.setdefault(label, f"extra{len(joe_ports) - 1}")
        for port in joe_ports.values():
            wait_port(port)
        paths = {who: [[f"{tmp}/{stem}-{r}-{i}.wav" for i in range(count)] for r in range(repeats)]
                 for who, stem in sides.items()}
        for r in range(repeats):
            for i, sentence in enumerate(sentences):
                body = json.dumps({"model": "tts-1", "input": sentence, "voice": "joe", "response_format": "wav"})
                # The builds take turns first, so neither always follows the other.
                order = list(joe_ports) if (r * count + i) % 2 == 0 else list(reversed(joe_ports))
                for who in order:
                    with open(paths[who][r][i], "wb") as f:
                        f.write(http_post(joe_ports[who], "/v1/audio/speech", body)[2])
                out = paths["default (speak, espeak-ng)"][r][i]
                run_rusage([speak, "-o", out, sentence], env=dict(os.environ, SPEAK_SOCKET=""))
    finally:
        stop(procs)
    subprocess.run([PIPER_PY, "-c", PIPER_WAVS, MODEL, tmp, json.dumps(sentences), str(repeats)], check=True)
    transcribe, engine = whisper_transcriber(args.wer_fit_window)
    if transcribe is None:
        engine = "pocketsphinx (free dictation)"
        transcribe = lambda p: pocketsphinx_transcribe(p, speak_full)
    digests = {}
    for who in sides:
        for row in paths[who]:
            for p in row:
                with open(p, "rb") as f:
                    digests[p] = hashlib.sha256(f.read()).hexdigest()
    unique = {}
    for p, digest in digests.items():
        unique.setdefault(digest, p)
    heard = dict(zip(unique.values(), transcribe(list(unique.values()))))
    text = {who: [[heard[unique[digests[p]]] for p in row] for row in paths[who]] for who in sides}
    distinct = {who: sum(len({digests[paths[who][r][i]] for r in range(repeats)}) == repeats for i in range(count))
                for who in sides}
    per_repeat = {who: [wer(sentences, text[who][r]) for r in range(repeats)] for who in sides}
    results["wer_engine"] = engine
    results["wer_repeats"] = repeats
    results["wer_set"] = args.wer_set
    results["wer"] = {who: statistics.mean(v) for who, v in per_repeat.items()}
    results["wer_per_repeat"] = per_repeat
    results["wer_distinct_syntheses"] = distinct
    results["wer_transcripts"] = text
    results["wer_load_average"] = os.getloadavg()
    print(f"### Word error rate, {count} sentences ({args.wer_set}) x {repeats} syntheses, {engine}\n")
    print("| voice | WER (mean of repeats) | per repeat | spread (max - min) | sentences with all syntheses distinct |")
    print("|---|---|---|---|---|")
    for who, values in per_repeat.items():
        print(f"| {who} | {statistics.mean(values) * 100:.2f} % | "
              f"{' / '.join(f'{v * 100:.1f}' for v in values)} % | {(max(values) - min(values)) * 100:.1f} points | "
              f"{distinct[who]}/{count} |")
    for who in joe_ports:
        gap = (results["wer"][who] - results["wer"]["piper-tts"]) * 100
        print(f"\n{who} - piper-tts: {gap:+.2f} points (target: within 0.5)")
        print_transcript_differences(sentences, who, text, repeats)
    load = results["wer_load_average"]
    print(f"\nload average (1, 5, 15 min) after the WER part: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    os.makedirs(os.path.join(ROOT, "Benchmarks/results"), exist_ok=True)
    name = f"neural-wer-{args.wer_set}.json" if args.wer_only else "neural.json"
    with open(os.path.join(ROOT, "Benchmarks/results", name), "w") as f:
        json.dump(results, f, indent=2)


def sentence_errors(ref, hyp):
    return round(wer([ref], [hyp]) * len(words(ref)))


def print_transcript_differences(sentences, who, text, repeats):
    """The sentences whose transcripts differ between `who` and piper-tts (as words, over all repeats)."""
    rows = []
    for i, sentence in enumerate(sentences):
        ours = [" ".join(words(text[who][r][i])) for r in range(repeats)]
        theirs = [" ".join(words(text["piper-tts"][r][i])) for r in range(repeats)]
        if sorted(ours) == sorted(theirs):
            continue
        wrong = lambda heard: "; ".join(sorted({h for h in heard if h != " ".join(words(sentence))})) or "–"
        errors = lambda heard: "/".join(str(sentence_errors(sentence, h)) for h in heard)
        rows.append(f"| {sentence} | {errors(ours)} | {wrong(ours)} | {errors(theirs)} | {wrong(theirs)} |")
    print(f"\nSentences heard differently, {who} against piper-tts ({len(rows)} of {len(sentences)}):\n")
    if rows:
        print("| sentence | errors, each synthesis | heard otherwise | piper-tts' errors | piper-tts heard otherwise |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))


class SkipTimings(Exception):
    pass


def print_timings(results, rounds):
    print(f"\n### joe: speak against piper-tts (medians of {rounds} rounds)\n")
    print(
        f"model load: speak {results['load']['speak']:.2f} s, piper-tts {results['load']['piper-tts']:.2f} s, "
        f"ratio {results['load']['speak'] / results['load']['piper-tts']:.2f}\n"
    )
    print(
        "| text | first audio, CLI cold (s) | first byte, HTTP warm (ms) | real-time factor, HTTP warm "
        "| piper-tts RTF in process | peak RSS, CLI (MB) |"
    )
    print("|---|---|---|---|---|---|")
    for n in TEXTS:
        c, h, r = results["cold_first_audio"][n], results["http_first_byte"][n], results["peak_rss_mb"][n]
        rtf = (results["rtf"]["speak"][n], results["rtf"]["piper-tts"][n])
        print(
            f"| {n} | {c['speak']:.2f} / {c['piper-tts']:.2f} ({c['speak'] / c['piper-tts']:.2f}) "
            f"| {h['speak'] * 1000:.0f} / {h['piper-tts'] * 1000:.0f} ({h['speak'] / h['piper-tts']:.2f}) "
            f"| {rtf[0]:.3f} / {rtf[1]:.3f} ({rtf[0] / rtf[1]:.2f}) "
            f"| {results['rtf_in_process']['piper-tts'][n]:.3f} "
            f"| {r['speak']:.0f} / {r['piper-tts']:.0f} ({r['speak'] / r['piper-tts']:.2f}) |"
        )
    print("\n(speak / piper-tts (ratio))\n")
    print_served(results, rounds)


def print_served(results, rounds):
    checks = results["handoff_checks"]
    print(f"### joe: first audio, CLI via a running speak serve (local socket), medians of {rounds} rounds\n")
    print(
        "`speak -v joe TEXT` with SPEAK_SOCKET naming a warm `speak serve` (each round its own server and "
        "--cache-dir, so the first run of each text is a cache miss), against piper-tts' cold CLI of the "
        "same rounds; then the same command again, served from the server's reply cache.\n"
    )
    print(
        "| text | server's reply cache | first audio (ms), speak via server / piper-tts cold CLI (ratio) "
        "| speak CLI peak RSS (MB) |"
    )
    print("|---|---|---|---|")
    rss = results["served_cli_peak_rss_mb"]
    for key, label in (("served_first_audio", "miss"), ("served_cached_first_audio", "hit (cached repeat)")):
        for n in TEXTS:
            f = results[key][n]
            rss_cell = f"{rss[n]['via server']:.0f}" if key == "served_first_audio" else "–"
            print(
                f"| {n} | {label} | {f['speak'] * 1000:.0f} / {f['piper-tts'] * 1000:.0f} "
                f"({f['speak'] / f['piper-tts']:.3f}) | {rss_cell} |"
            )
    cold_rss = median([rss[n]["cold"] for n in TEXTS])
    print(
        f"\nhand-off checks: {checks['misses_stored']}/{checks['misses']} misses stored one new entry in the "
        f"server's cache; {checks['repeats_untouched']}/{checks['repeats']} repeats left its entries untouched; "
        f"speak CLI peak RSS via the server {median([rss[n]['via server'] for n in TEXTS]):.0f} MB against "
        f"{cold_rss:.0f} MB loading the model itself (cold); socket directory, socket modes "
        f"{', '.join('/'.join(m) for m in checks['socket_modes'])}; warm-up request's first audio "
        f"{', '.join(f'{w * 1000:.0f}' for w in checks['warm_first_audio'])} ms."
    )
    before, after = results["load_average_before"], results["load_average_after"]
    print(
        f"load average (1, 5, 15 min): {before[0]:.2f} {before[1]:.2f} {before[2]:.2f} at the start, "
        f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} after the timings ({os.cpu_count()} cores)\n",
        flush=True,
    )


if __name__ == "__main__":
    main()

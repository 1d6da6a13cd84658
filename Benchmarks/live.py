#!/usr/bin/env python3
"""Live captions: how soon speak's live transcription shows words, against whisper.cpp's whisper-stream.

Run from the package root (one command; about 35 minutes: a 10-minute session per side):
    swift build -c release && python3 Benchmarks/live.py --build-stream --realtime-minutes 4
A quick try (one pass over 5 of the clips, about 3 minutes):
    python3 Benchmarks/live.py --minutes 0 --clips 5

The audio: transcription.py's human recordings (make_human_clips: alsa-utils' eight words, whisper.cpp's
jfk.wav, the pocketsphinx sdist's LibriVox sentences and card names, three LibriVox sonnets), each after
--gap seconds of silence, in a shuffled order, pass after pass until --minutes: each clip a turn, its
speech beginning at onset() (the first 10 ms louder than its quiet). Fed at real-time pace to:
  cli:      `speak transcribe --live --json --model base --language en SESSION.wav`, which plays the file
            at its own pace (20 ms at a time); a caption is a `partial` or `final` event with text;
  realtime: `speak serve --model base`, OpenAI's Realtime API (`openai` package,
            client.realtime.connect(extra_query={"intent": "transcription"}), server VAD 500 ms), 24 kHz
            PCM in 20 ms appends from a thread at the wall clock's pace; a caption is a final delta
            (`conversation.item.input_audio_transcription.delta`: deltas only append, so partials are not sent);
  stream:   whisper.cpp's examples/stream (`whisper-stream -m ggml-base.bin -t 2 -l en` and --stream-args,
            its README's `--step 500 --length 5000`), built by --build-stream from the pywhispercpp 1.5.1
            sdist speak's libwhisper comes from, with the same CPU flags, recording its SDL2 default
            microphone: a private PulseAudio whose default source is a pipe source written at real-time
            pace. A caption is a line it draws with a word the line did not show at the onset; a final
            is the line it keeps (newline).
Per side: the first caption after each turn's speech begins (median over turns); each final word's
lateness after its end in the audio (the word times of an offline verbose_json transcription of its
clip by speak serve, lined up by difflib; median over words); WER of the final text against the
references after transcription.normalise(), beside offline `speak transcribe --json` on the same clips;
the wait from a turn's end (the engine's own speech_stopped) to its completed text in the first and the
last quarter of the session (a backlog grows that wait); CPU seconds and peak RSS (the CLI and
whisper-stream: their rusage; realtime: the server's /proc CPU over the session and VmHWM). Sides run one
after another (--rounds alternates them, the order flipped each round) with the load average before
and after each. Prints a Markdown table; writes Benchmarks/results/live.json.
Needs speak's models (Scripts/install-whisper), python3 with numpy and openai, pulseaudio and pactl,
and for --build-stream cmake and libsdl2-dev.
"""
import argparse, array, base64, http.client, json, os, platform, shutil, socket, statistics, subprocess, sys
import tempfile, threading, time, uuid, wave

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import transcription  # noqa: E402  (its human recordings, normalise() and edits())

RATE = 16000
MODELS_DIR = "/usr/local/share/speak/models"
STREAM_DIR = "/tmp/speak-whisper-stream"
CLEAR_LINE = "\x1b[2K\r"  # whisper-stream's: erase the line, back to its start

# MARK: The audio: human recordings end to end, each a turn


def onset(samples):
    """Seconds into samples where speech begins: the first 10 ms frame louder than the recording's quiet
    (4 × its 10th-percentile frame) and within 20 dB of its loud frames (95th percentile)."""
    import numpy as np

    frames = samples[: len(samples) // 160 * 160].astype(np.float64).reshape(-1, 160)
    rms = np.sqrt((frames**2).mean(axis=1)) + 1e-9
    threshold = max(4 * np.percentile(rms, 10), 0.1 * np.percentile(rms, 95))
    return float(np.argmax(rms > threshold)) * 0.01


def make_session(clips, minutes, gap, rng):
    """The clips one after another, gap seconds of silence before each, in a shuffled order, a pass after
    another until minutes of audio (at least one pass): (samples, [placement])."""
    import numpy as np

    audio, placed, length = [np.zeros(int(RATE * gap), np.int16)], [], int(RATE * gap)
    while not placed or length < minutes * 60 * RATE:
        order = list(clips)
        rng.shuffle(order)
        for clip in order:
            start = length
            audio.append(clip["samples"])
            audio.append(np.zeros(int(RATE * gap), np.int16))
            length += len(clip["samples"]) + int(RATE * gap)
            placed.append(
                {"name": clip["name"], "start": start / RATE, "end": start / RATE + clip["duration"],
                 "onset": start / RATE + clip["onset"]}
            )
    return np.concatenate(audio), placed


def write_wav(path, samples, rate=RATE):
    with wave.open(path, "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())


def upsampled(samples):
    """16 kHz to the Realtime API's 24 kHz (linear interpolation; speak resamples back to 16 kHz)."""
    import numpy as np

    times = np.arange(int(len(samples) * 1.5)) / 1.5
    return np.interp(times, np.arange(len(samples)), samples).round().astype(np.int16)


# MARK: Offline: the reference run, and the words' times


def offline_texts(speak, clips, model):
    """`speak transcribe --json` over every clip in one process: {clip name: text}, and its seconds."""
    start = time.monotonic()
    out = subprocess.run(
        [speak, "transcribe", "--json", "--model", model, "--language", "en", *[c["path"] for c in clips]],
        check=True, capture_output=True, text=True,
    ).stdout
    by_path = {json.loads(line)["file"]: json.loads(line)["text"] for line in out.splitlines() if line.strip()}
    return {c["name"]: by_path[c["path"]] for c in clips}, time.monotonic() - start


def offline_words(client, clips):
    """Each clip's words with their times, from speak serve's verbose_json (whisper.cpp's token times):
    {clip name: [(word, start, end)]}."""
    words = {}
    for clip in clips:
        with open(clip["path"], "rb") as f:
            result = client.audio.transcriptions.create(
                file=f, model="whisper-1", language="en", response_format="verbose_json",
                timestamp_granularities=["word"],
            )
        words[clip["name"]] = [(w.word, w.start, w.end) for w in result.words or []]
    return words


def key(word):
    return "".join(ch for ch in word.lower() if ch.isalnum())


def session_words(placed, words):
    """The offline words of the whole session in order, times in seconds of the session: [(key, end)]."""
    return [
        (key(w), p["start"] + end)
        for p in placed
        for w, _, end in words[p["name"]]
        if key(w)
    ]


def final_latencies(finals, reference):
    """For each final word (finals: [(seconds on the session's clock when it became final, text)]) that
    lines up with an offline word (difflib, by key): its lateness after the word's end in the audio."""
    import difflib

    live = [(key(w), at) for at, text in finals for w in text.split() if key(w)]
    matcher = difflib.SequenceMatcher(None, [k for k, _ in live], [k for k, _ in reference], autojunk=False)
    late = []
    for block in matcher.get_matching_blocks():
        for i in range(block.size):
            late.append(live[block.a + i][1] - reference[block.b + i][1])
    return late, len(live)


def session_wer(placed, refs, text):
    """WER % of text against the session's references in order (transcription.normalise, .edits)."""
    reference = transcription.normalise(" ".join(refs[p["name"]] for p in placed))
    return 100 * transcription.edits(reference, transcription.normalise(text)) / len(reference)


# MARK: Front ends; each returns a run: {captions: [(t, text)], finals: [(t, text)], turns, text, cpu, rss, lag}
# Times are seconds on the session's clock: 0 is when its first sample was due.


def first_captions(placed, captions):
    """Per placed clip: seconds from its speech onset to the first caption after it that is its own.
    captions: [(t, text, turn)], turn the start of the turn the caption belongs to (speak's events say)
    or None (whisper-stream's line, which still shows the clip before): then a caption with a word the
    line did not show at the onset."""
    delays = []
    for p in placed:
        before = set()
        for t, text, turn in captions:
            words = {key(w) for w in text.split()} - {""}
            if t < p["onset"]:
                before = words or before
                continue
            if not words:
                continue
            if turn is None and not words - before:
                continue
            if turn is not None and not (p["start"] - 0.35 <= turn < p["end"]):
                continue
            delays.append(t - p["onset"])
            break
    return delays


def run_cli(speak, wav, model):
    """`speak transcribe --live --json FILE`: the command line plays the file at its own pace."""
    start = time.monotonic()
    process = subprocess.Popen(
        [speak, "transcribe", "--live", "--json", "--model", model, "--language", "en", wav],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    events = []
    for line in process.stdout:
        events.append((time.monotonic(), json.loads(line)))
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"speak transcribe --live failed: {stderr}")
    # The clock of the audio: every event comes once the audio it counts (`time`) was due, so the
    # earliest `wall - time` is when the first sample was (speech_started comes at once, no decode).
    zero = min(wall - e["time"] for wall, e in events)
    captions, finals, texts, turn, lags = [], [], [], None, []
    for wall, e in events:
        t = wall - zero
        lags.append((t, t - e["time"]))
        if e["type"] == "speech_started":
            turn = e["start"]
        elif e["type"] in ("partial", "final"):
            captions.append((t, e["text"], turn))
            if e["type"] == "final":
                finals.append((t, e["text"]))
        elif e["type"] == "completed":
            texts.append(e["text"])
            lags.append((t, t - e["end"]))
    completed = [(wall - zero, (wall - zero) - e["end"]) for wall, e in events if e["type"] == "completed"]
    return {
        "events": len(events), "captions": captions, "finals": finals, "text": " ".join(texts),
        "completed": completed, "lags": lags, "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024, "wall": time.monotonic() - start,
    }


class Server:
    """`speak serve --model M` on a free port, open (no tokens file)."""

    def __init__(self, speak, model, directory):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = open(f"{directory}/serve.log", "w")
        self.process = subprocess.Popen(
            [speak, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--model", model,
             "--cache-dir", f"{directory}/cache"],
            stdout=self.log, stderr=self.log,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    return
            except OSError:
                time.sleep(0.1)
        sys.exit(f"speak serve did not start: see {directory}/serve.log")

    def client(self):
        import openai

        return openai.OpenAI(
            base_url=f"http://127.0.0.1:{self.port}/v1", websocket_base_url=f"ws://127.0.0.1:{self.port}/v1",
            api_key="unused", timeout=300,
        )

    def cpu(self):
        """The server's CPU seconds so far (utime + stime)."""
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss(self):
        return transcription.peak_rss(self.process.pid)

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


def paced(total, period, body):
    """Calls body(first, last) for sample ranges [first, last) of total at the wall clock's pace, period
    samples at a time (all that is due in one piece when late); returns the monotonic time of sample 0."""
    zero, sent = time.monotonic(), 0
    while sent < total:
        due = min(total, int((time.monotonic() - zero) * RATE))
        if due - sent < period and due < total:
            time.sleep((sent + period - due) / RATE)
            continue
        body(sent, due)
        sent = due
    return zero


def run_realtime(server, samples):
    """OpenAI's Realtime API, a transcription session (server VAD, 500 ms), through the `openai` package:
    24 kHz PCM sent at real-time pace in 20 ms appends, from a thread, while this one reads the events."""
    pcm = upsampled(samples).astype("<i2").tobytes()
    client = server.client()
    events, state = [], {}
    cpu_before = server.cpu()
    with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
        conn.recv_bytes()  # session.created
        conn.session.update(session={
            "type": "transcription",
            "audio": {"input": {
                "format": {"type": "audio/pcm", "rate": 24000},
                "transcription": {"model": "whisper-1", "language": "en"},
                "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
            }},
        })
        while json.loads(conn.recv_bytes())["type"] != "session.updated":
            pass

        def send():
            def append(first, last):  # samples at 16 kHz; 3 bytes of 24 kHz PCM for each
                chunk = pcm[first * 3: last * 3]
                conn.input_audio_buffer.append(audio=base64.b64encode(chunk).decode())

            state["zero"] = paced(len(samples), RATE // 50, append)
            state["done"] = True
            conn.input_audio_buffer.commit()  # nothing left to commit: its error ends the reading

        sender = threading.Thread(target=send)
        sender.start()
        while True:
            event = json.loads(conn.recv_bytes())
            events.append((time.monotonic(), event))
            # The session ends in silence, so the last turn has ended when the final commit is read,
            # after all the audio (the server takes messages in order): it is refused, the last event.
            if state.get("done") and event["type"] == "error":
                break
        sender.join()
    cpu = server.cpu() - cpu_before
    zero = state["zero"]
    captions, finals, texts, lags, completed, turns, stopped = [], [], [], [], [], {}, {}
    for wall, e in events:
        t = wall - zero
        kind = e["type"]
        if kind == "input_audio_buffer.speech_started":
            turns[e["item_id"]] = e["audio_start_ms"] / 1000
            lags.append((t, t - e["audio_start_ms"] / 1000))
        elif kind == "input_audio_buffer.speech_stopped":
            stopped[e["item_id"]] = e["audio_end_ms"] / 1000
            lags.append((t, t - e["audio_end_ms"] / 1000))
        elif kind.endswith("transcription.delta"):
            captions.append((t, e["delta"], turns.get(e["item_id"])))
            finals.append((t, e["delta"]))
        elif kind.endswith("transcription.completed"):
            texts.append(e["transcript"])
            if e["item_id"] in stopped:
                completed.append((t, t - stopped[e["item_id"]]))
        elif kind == "error" and not state.get("done"):
            sys.exit(f"the realtime session failed: {e}")
    return {
        "events": len(events), "captions": captions, "finals": finals, "text": " ".join(texts),
        "completed": completed, "lags": lags, "cpu": cpu, "rss": server.rss(), "wall": time.monotonic() - zero,
    }


# MARK: whisper-stream, built from the sdist speak's whisper.cpp comes from


def build_stream(directory):
    """--build-stream: whisper.cpp's examples/stream (`whisper-stream`, SDL2 capture) from the pywhispercpp
    1.5.1 sdist (Scripts/install-whisper builds speak's libwhisper from it), with the CPU flags that
    /usr/local/lib/speak/whisper/BUILD records; into directory, outside the repository. Needs libsdl2-dev."""
    binary = f"{directory}/build/bin/whisper-stream"
    if os.path.exists(binary):
        return binary
    if not os.path.exists("/usr/include/SDL2/SDL.h"):
        sys.exit("whisper-stream needs SDL2's headers: apt-get install -y libsdl2-dev")
    os.makedirs(directory, exist_ok=True)
    tools, sdist = f"{directory}/setuptools", f"{directory}/sdist"
    transcription.pip("install", "--target", tools, "setuptools>=75", "setuptools-scm>=8")
    env = os.environ | {"PYTHONPATH": tools, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps", "--no-build-isolation",
         "-d", sdist, transcription.PYWHISPERCPP_SDIST],
        check=True,
        env=env,
    )
    archive = next(f for f in os.listdir(sdist) if f.endswith(".tar.gz"))
    subprocess.run(["tar", "-xzf", f"{sdist}/{archive}", "-C", sdist], check=True)
    source = f"{sdist}/{archive[: -len('.tar.gz')]}/whisper.cpp"
    # speak's own build flags (Scripts/install-whisper's NATIVE_FLAGS), with the examples and SDL2.
    recorded = open("/usr/local/lib/speak/whisper/BUILD").read().split(": ", 1)[1].split()
    flags = [f for f in recorded if not f.startswith(("-DWHISPER_BUILD_EXAMPLES", "-DWHISPER_SDL2"))]
    flags += ["-DWHISPER_BUILD_EXAMPLES=ON", "-DWHISPER_SDL2=ON"]
    started = time.monotonic()
    subprocess.run(["cmake", "-S", source, "-B", f"{directory}/build", *flags], check=True)
    subprocess.run(
        ["cmake", "--build", f"{directory}/build", "-j", str(os.cpu_count()), "--target", "whisper-stream"], check=True
    )
    print(f"whisper-stream built in {time.monotonic() - started:.0f} s: {binary}", file=sys.stderr)
    return binary



# MARK: whisper-stream through a PulseAudio microphone


class PulseMicrophone:
    """A private PulseAudio daemon (as Tests/SpeakCLITests/Support/AudioServer.swift starts one) whose
    default source is a pipe source: a program recording from it hears what is written to the FIFO,
    when it is written."""

    def __init__(self, directory):
        self.directory = f"{directory}/pulse"
        os.makedirs(self.directory, mode=0o700)
        self.fifo = f"{self.directory}/mic.fifo"
        self.env = os.environ | {
            "XDG_RUNTIME_DIR": self.directory, "HOME": self.directory,
            "PULSE_SERVER": f"unix:{self.directory}/pulse/native", "SDL_AUDIODRIVER": "pulseaudio",
        }
        self.daemon = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-n",
             "--log-target=stderr", "--log-level=error", "--load=module-native-protocol-unix",
             "--load=module-null-sink sink_name=speaker",
             f"--load=module-pipe-source file={self.fifo} source_name=mic format=s16le rate={RATE} channels=1"],
            env=self.env,
        )
        for _ in range(100):
            if subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            sys.exit("pulseaudio did not start")
        subprocess.run(["pactl", "set-default-source", "mic"], env=self.env, check=True)
        self.descriptor = os.open(self.fifo, os.O_WRONLY)  # the daemon holds it open for reading

    def stop(self):
        os.close(self.descriptor)
        self.daemon.terminate()
        self.daemon.wait(10)


def strip_annotations(text):
    """whisper.cpp's notes on what it did not hear ([BLANK_AUDIO], (silence), [Music]…), left out."""
    import re

    return " ".join(re.sub(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*", " ", text).split())


def stopped(process):
    """Stops whisper-stream and reaps it: its rusage. SDL turns SIGINT into SDL_QUIT, which it reads
    between decodes (a decode under way cannot be interrupted); SIGTERM, then SIGKILL, if it does not."""
    for signal_number in (2, 15, 9):
        process.send_signal(signal_number)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            pid, _, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                process.returncode = 0
                return usage
            time.sleep(0.1)
    sys.exit("whisper-stream did not stop")


def run_stream(binary, samples, model_path, microphone, arguments):
    """whisper-stream recording the PulseAudio microphone while the session is written to it at real-time
    pace. Its display: each decode rewrites the line (ESC[2K, CR, the window's text); a newline keeps the
    line (the window starts again): partials and finals."""
    start = time.monotonic()
    process = subprocess.Popen(
        [binary, "-m", model_path, "-t", "2", "-l", "en", *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=microphone.env,
    )
    stderr = []
    threading.Thread(target=lambda: stderr.extend(process.stderr), daemon=True).start()
    chunks, ready = [], threading.Event()

    def read():
        while data := os.read(process.stdout.fileno(), 65536):
            chunks.append((time.monotonic(), data))
            if b"[Start speaking]" in data:
                ready.set()
        ready.set()

    reader = threading.Thread(target=read)
    reader.start()
    ready.wait(120)
    if process.poll() is not None:
        sys.exit("whisper-stream ended: " + b"".join(stderr).decode()[-2000:])
    pcm = samples.astype("<i2").tobytes()
    zero = paced(len(samples), RATE // 50, lambda a, b: os.write(microphone.descriptor, pcm[a * 2: b * 2]))
    time.sleep(1.0)  # the decode under way, once the audio has ended
    usage = stopped(process)
    if os.environ.get("LIVE_DEBUG"):
        with open(os.environ["LIVE_DEBUG"], "w") as f:
            json.dump({"zero": zero, "chunks": [(w, d.decode(errors="replace")) for w, d in chunks],
                       "stderr": b"".join(stderr).decode(errors="replace")}, f, indent=0)
    reader.join()
    # Replay the display: after a line's last ESC[2K CR is what it shows; a newline keeps the line.
    captions, finals, line, shown = [], [], "", ""
    for wall, data in chunks:
        t = wall - zero
        for index, part in enumerate(data.decode(errors="replace").split("\n")):
            if index > 0:
                finals.append((t, strip_annotations(line.rsplit(CLEAR_LINE, 1)[-1])))
                line = ""
            line += part
        now = strip_annotations(line.rsplit(CLEAR_LINE, 1)[-1])
        if now != shown:
            captions.append((t, now, None))
            shown = now
    warnings = sum(b"dropping audio" in line for line in stderr)
    return {
        "events": len(chunks), "captions": captions, "finals": [(t, x) for t, x in finals if x],
        "text": " ".join(x for _, x in finals), "completed": [], "lags": [], "dropped": warnings,
        "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024, "wall": time.monotonic() - start,
    }


# MARK: The run


def median(values):
    return statistics.median(values) if values else float("nan")


def summary(run, placed, reference, refs, seconds):
    """A run's figures: first captions (median over turns), word finals (median over words), WER, backlog."""
    first = first_captions(placed, run["captions"])
    late, final_words = final_latencies(run["finals"], reference)
    lags = run["completed"] or run["lags"]
    quarter = seconds / 4
    early = [lag for t, lag in lags if t < quarter]
    late_lags = [lag for t, lag in lags if t >= seconds - quarter]
    return {
        "first_caption_median": median(first), "first_caption_p90": percentile(first, 90), "turns": len(first),
        "word_final_median": median(late), "word_final_p90": percentile(late, 90), "words_matched": len(late),
        "final_words": final_words, "wer": session_wer(placed, refs, run["text"]),
        "turn_end_first_quarter": median(early), "turn_end_last_quarter": median(late_lags),
        "turn_end_max": max((lag for _, lag in lags), default=float("nan")),
        "cpu": run["cpu"], "cpu_per_audio_second": run["cpu"] / seconds, "rss": run["rss"],
        "dropped": run.get("dropped"),
    }


def percentile(values, p):
    import numpy as np

    return float(np.percentile(values, p)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build/release/speak"))
    parser.add_argument("--model", default="base", help="Whisper model, both sides (ggml file in " + MODELS_DIR + ")")
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/speak-bench"), help="transcription.py's")
    parser.add_argument("--minutes", type=float, default=10, help="the session's length (at least one pass)")
    parser.add_argument("--gap", type=float, default=2.0, help="seconds of silence before each clip")
    parser.add_argument("--realtime-minutes", type=float, default=None, help="the Realtime API hears the first "
                        "this many minutes of the session (default: all of it)")
    parser.add_argument("--sides", default="cli,stream,realtime", help="comma-separated, run in this order")
    parser.add_argument("--rounds", type=int, default=1, help="the sides in turn, this many times (order flipped)")
    parser.add_argument("--build-stream", action="store_true", help=f"build whisper-stream into {STREAM_DIR}")
    parser.add_argument("--stream", default=f"{STREAM_DIR}/build/bin/whisper-stream")
    parser.add_argument("--stream-args", default="--step 500 --length 5000",
                        help="whisper-stream's window (its README's example)")
    parser.add_argument("--clips", type=int, help="only this many of the clips, drawn at random (a quick try)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", default=os.path.join(ROOT, "Benchmarks/results/live.json"))
    args = parser.parse_args()
    if args.build_stream:
        args.stream = build_stream(STREAM_DIR)
    sides = [s for s in args.sides.split(",") if s]
    if "stream" in sides and not os.path.exists(args.stream):
        sys.exit(f"no {args.stream}: run with --build-stream (needs libsdl2-dev)")
    import numpy as np, random

    speak, rng = os.path.abspath(args.speak), random.Random(args.seed)
    model_path = f"{MODELS_DIR}/ggml-{args.model}.bin"
    python, _, sdist = transcription.prepare(args.cache)
    directory = tempfile.mkdtemp(prefix="bench-live-")
    try:
        print("making the clips", file=sys.stderr)
        clips = transcription.make_human_clips(directory, python, sdist)
        if args.clips:
            clips = rng.sample(clips, args.clips)
        for clip in clips:
            with wave.open(clip["path"]) as w:
                clip["samples"] = np.frombuffer(w.readframes(w.getnframes()), "<i2")
            clip["onset"] = onset(clip["samples"])
        refs = {c["name"]: c["ref"] for c in clips}
        samples, placed = make_session(clips, args.minutes, args.gap, rng)
        seconds = len(samples) / RATE
        wav = f"{directory}/session.wav"
        write_wav(wav, samples)
        print(f"{len(clips)} clips, a session of {seconds / 60:.1f} min, {len(placed)} turns", file=sys.stderr)

        print("offline: speak transcribe, and the words' times from speak serve", file=sys.stderr)
        server = Server(speak, args.model, directory)
        try:
            words = offline_words(server.client(), clips)
            offline, offline_seconds = offline_texts(speak, clips, args.model)
            reference = session_words(placed, words)
            offline_wer = session_wer(placed, refs, " ".join(offline[p["name"]] for p in placed))

            realtime_samples, realtime_placed = samples, placed
            if args.realtime_minutes is not None:
                realtime_placed = [p for p in placed if p["end"] <= max(args.realtime_minutes * 60, placed[0]["end"])]
                realtime_samples = samples[: int((realtime_placed[-1]["end"] + args.gap) * RATE)]
            microphone = PulseMicrophone(directory) if "stream" in sides else None
            results = {s: [] for s in sides}
            try:
                for round_index in range(args.rounds):
                    for side in sides if round_index % 2 == 0 else sides[::-1]:
                        load = os.getloadavg()
                        print(f"round {round_index + 1}: {side}, load {load[0]:.2f}", file=sys.stderr)
                        if side == "cli":
                            run, heard, on = run_cli(speak, wav, args.model), seconds, placed
                        elif side == "stream":
                            run = run_stream(args.stream, samples, model_path, microphone, args.stream_args.split())
                            heard, on = seconds, placed
                        else:
                            run = run_realtime(server, realtime_samples)
                            heard, on = len(realtime_samples) / RATE, realtime_placed
                        figures = summary(run, on, reference, refs, heard)
                        figures |= {"load_before": load, "load_after": os.getloadavg(), "audio_seconds": heard}
                        results[side].append(figures | {"run": {k: run[k] for k in ("captions", "finals", "text")}})
                        print(json.dumps({k: v for k, v in figures.items()}, default=str), file=sys.stderr)
            finally:
                if microphone:
                    microphone.stop()
        finally:
            server.stop()
        report(args, results, offline_wer, offline_seconds, seconds, len(placed), len(clips))
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        with open(args.output, "w") as out:
            json.dump({"args": vars(args), "offline_wer": offline_wer, "placed": placed, "results": results},
                      out, indent=1, default=str)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


NAMES = {"cli": "speak CLI (partials)", "realtime": "speak Realtime API (final deltas)", "stream": "whisper-stream"}


def report(args, results, offline_wer, offline_seconds, seconds, turns, clips):
    def cell(side, key, digits=2):
        values = [r[key] for r in results[side] if r[key] is not None]
        return f"{median(values):.{digits}f}" if values else "–"

    def ratio(key):
        if "cli" not in results or "stream" not in results:
            return "–"
        a, b = median([r[key] for r in results["cli"]]), median([r[key] for r in results["stream"]])
        return f"{a / b:.2f}×" if b else "–"

    sides = list(results)
    print(f"\nSession {seconds / 60:.1f} min, {turns} turns ({clips} human clips, {args.gap} s apart), "
          f"model {args.model}, {args.rounds} round(s); offline `speak transcribe` WER {offline_wer:.1f} % "
          f"({offline_seconds:.0f} s for the clips).\n")
    print("| | " + " | ".join(NAMES[s] for s in sides) + " | CLI / whisper-stream | target |")
    print("|---|" + "--:|" * (len(sides) + 2))
    rows = [
        ("first caption after speech begins, median (s)", "first_caption_median", 2, "≤ 1.0"),
        ("first caption, 90th percentile (s)", "first_caption_p90", 2, ""),
        ("word final after its end in the audio, median (s)", "word_final_median", 2, "≤ 2.0"),
        ("word final, 90th percentile (s)", "word_final_p90", 2, ""),
        ("WER (%)", "wer", 1, f"≤ {offline_wer + 1:.1f} (offline {offline_wer:.1f} + 1)"),
        ("turn end to its text, first quarter, median (s)", "turn_end_first_quarter", 2, "no growth"),
        ("turn end to its text, last quarter, median (s)", "turn_end_last_quarter", 2, "no growth"),
        ("CPU seconds per audio second", "cpu_per_audio_second", 2, "< 2 (two cores)"),
        ("CPU seconds", "cpu", 0, ""),
        ("peak RSS (MB)", "rss", 0, ""),
        ("turns measured", "turns", 0, ""),
        ("words final and matched to offline", "words_matched", 0, ""),
    ]
    for label, key, digits, target in rows:
        print(f"| {label} | " + " | ".join(cell(s, key, digits) for s in sides) + f" | {ratio(key)} | {target} |")
    if "stream" in results:
        print(f"| whisper-stream's 'dropping audio' warnings | " + " | ".join(
            cell(s, "dropped", 0) if s == "stream" else "" for s in sides) + " | | |")
    for side in sides:
        for r in results[side]:
            print(f"load {side}: {r['load_before'][0]:.2f} → {r['load_after'][0]:.2f}")


if __name__ == "__main__":
    main()

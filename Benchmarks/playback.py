#!/usr/bin/env python3
"""Compare `speak` with `espeak-ng` playing the same texts through a private PulseAudio.

Run from the package root:   Benchmarks/playback.py [--runs 7] [--speak .build/release/speak]

Both commands play into a pipe sink that this script reads. Per command and text it
reports medians of: first audio (process start -> first audible sample at the sink),
wall time minus the synthesised audio's duration, and audio lost at head and tail
(reference file's audible span minus the span heard). Prints a Markdown table and
writes Benchmarks/results/playback.json. Needs pulseaudio, pactl and libasound2-plugins.
"""
import argparse, array, bisect, errno, fcntl, json, os, shutil, statistics
import subprocess, sys, tempfile, threading, time, wave

RATE = 22050                 # Hz, s16le mono: espeak-ng's native format
AUDIBLE = 328                # |sample| >= 1% of full scale
TAIL_WAIT = 0.4              # s to keep recording after a command exits
F_SETPIPE_SZ = 1031
TEXTS = ["Build passed.",
         "The deployment finished without errors.",
         "All tests passed on the first try. The release is ready to ship tonight."]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SinkRecorder(threading.Thread):
    """Reads the pipe sink's FIFO continuously, remembering when each read arrived."""

    def __init__(self, fifo_path):
        super().__init__(daemon=True)
        self.fd = os.open(fifo_path, os.O_RDONLY | os.O_NONBLOCK)
        fcntl.fcntl(self.fd, fcntl.F_SETFL, fcntl.fcntl(self.fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        while True:  # a one-page pipe, or the sink renders 1.5 s ahead of real time
            try:
                fcntl.fcntl(self.fd, F_SETPIPE_SZ, 4096)
                break
            except OSError as error:
                if error.errno != errno.EBUSY:
                    raise
                os.read(self.fd, 65536)
        self.pcm, self.read_ends, self.read_times = bytearray(), [], []
        self.lock = threading.Lock()

    def run(self):
        while data := os.read(self.fd, 65536):
            now = time.monotonic()
            with self.lock:
                self.pcm += data
                self.read_ends.append(len(self.pcm) // 2)
                self.read_times.append(now)

    def samples_so_far(self):
        with self.lock:
            return len(self.pcm) // 2

    def since(self, first_sample):
        with self.lock:
            return array.array("h", self.pcm[2 * first_sample: len(self.pcm) // 2 * 2])

    def arrival_of(self, sample):
        with self.lock:
            return self.read_times[bisect.bisect_right(self.read_ends, sample)]


def audible_span(samples):
    """(first, last) index of audible samples, or None."""
    loud = [i for i, s in enumerate(samples) if abs(s) >= AUDIBLE]
    return (loud[0], loud[-1]) if loud else None


def align(heard, ref, heard_first, ref_first):
    """Offset in ref of the heard onset: exact byte match, else best cross-correlation."""
    needle = heard[heard_first: heard_first + 64].tobytes()
    exact = ref.tobytes().find(needle)
    if exact >= 0 and exact % 2 == 0:
        return exact // 2
    window = heard[heard_first: heard_first + 512]
    lags = range(max(0, ref_first - RATE // 20), min(len(ref) - len(window), ref_first + RATE // 2))
    return max(lags, key=lambda lag: sum(map(int.__mul__, window, ref[lag: lag + len(window)])))


def measure(recorder, command, env, ref):
    start_sample = recorder.samples_so_far()
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    if process.wait() != 0:
        sys.exit(f"{command[0]} exited with {process.returncode}")
    wall = time.monotonic() - started
    time.sleep(TAIL_WAIT)
    heard = recorder.since(start_sample)
    ref_span, heard_span = audible_span(ref["samples"]), audible_span(heard)
    if heard_span is None:
        return dict(first_audio_ms=None, wall_minus_duration_ms=1000 * (wall - ref["duration"]),
                    lost_ms=1000 * (ref_span[1] - ref_span[0] + 1) / RATE, head_ms=None, tail_ms=None)
    first_audio = recorder.arrival_of(start_sample + heard_span[0]) - started
    heard_length = heard_span[1] - heard_span[0] + 1
    onset_in_ref = align(heard, ref["samples"], heard_span[0], ref_span[0])
    ms = lambda n: 1000 * n / RATE
    return dict(first_audio_ms=1000 * first_audio,
                wall_minus_duration_ms=1000 * (wall - ref["duration"]),
                lost_ms=ms(ref_span[1] - ref_span[0] + 1 - heard_length),
                head_ms=ms(onset_in_ref - ref_span[0]),
                tail_ms=ms(ref_span[1] - (onset_in_ref + heard_length - 1)))


def reference(command, wav_path, env):
    """Synthesise to wav_path with command; its samples and duration."""
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    with wave.open(wav_path) as wav:
        if (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) != (RATE, 1, 2):
            sys.exit(f"{command[0]}: expected {RATE} Hz mono s16, got {wav.getparams()}")
        samples = array.array("h", wav.readframes(wav.getnframes()))
    return dict(samples=samples, duration=len(samples) / RATE)


def start_pulseaudio(runtime_dir):
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime_dir, HOME=runtime_dir,
               PULSE_SERVER=f"unix:{runtime_dir}/pulse/native")
    fifo = os.path.join(runtime_dir, "speaker.fifo")
    daemon = subprocess.Popen(
        ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-n",
         "--log-target=stderr", "--log-level=error", "--load=module-native-protocol-unix",
         f"--load=module-pipe-sink file={fifo} sink_name=speaker format=s16le rate={RATE}"
         " channels=1 use_system_clock_for_timing=yes"], env=env)
    for _ in range(100):
        if subprocess.run(["pactl", "info"], env=env, capture_output=True).returncode == 0:
            return daemon, env, fifo
        time.sleep(0.1)
    daemon.kill()
    sys.exit("pulseaudio did not start")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def cell(value, digits=0):
    return "–" if value is None else f"{value:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build/release/speak"))
    parser.add_argument("--voice", default="default", help="speak's voice; must match en-us, 175 wpm")
    args = parser.parse_args()
    if not os.path.exists(args.speak):
        subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True)

    workdir = tempfile.mkdtemp(prefix="speak-bench-")  # mode 700
    daemon, env, fifo = start_pulseaudio(workdir)
    try:
        recorder = SinkRecorder(fifo)
        recorder.start()
        commands = {"speak": lambda text: [args.speak, "-v", args.voice, text],
                    "espeak-ng": lambda text: ["espeak-ng", "-v", "en-us", "-s", "175", text]}
        ref_commands = {"speak": lambda text, wav: [args.speak, "-v", args.voice, "-o", wav, text],
                        "espeak-ng": lambda text, wav: ["espeak-ng", "-v", "en-us", "-s", "175", "-w", wav, text]}
        results = []
        for text in TEXTS:
            wav_paths = {name: os.path.join(workdir, f"{name}.wav") for name in commands}
            refs = {name: reference(make(text, wav_paths[name]), wav_paths[name], env)
                    for name, make in ref_commands.items()}
            for name in commands:  # warm-up, not counted
                measure(recorder, commands[name](text), env, refs[name])
            runs = {name: [] for name in commands}
            for _ in range(args.runs):
                for name, make in commands.items():
                    runs[name].append(measure(recorder, make(text), env, refs[name]))
            summary = {name: {key: median([run[key] for run in runs[name]]) for key in runs[name][0]}
                       | {"audio_ms": 1000 * refs[name]["duration"], "runs": runs[name]}
                       for name in commands}
            results.append({"text": text, **summary})
            print(f"done: {text}", file=sys.stderr)
    finally:
        daemon.kill()
        daemon.wait()
        shutil.rmtree(workdir, ignore_errors=True)

    ratio = lambda a, b: None if a is None or not b else a / b
    print(f"Medians of {args.runs} runs (ms). Ratios are speak / espeak-ng. Lost = head + tail.\n")
    print("| text | audio | first audio speak | espeak-ng | ratio | wall − audio speak | espeak-ng "
          "| ratio | lost speak (head/tail) | lost espeak-ng (head/tail) |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for row in results:
        s, e = row["speak"], row["espeak-ng"]
        lost = lambda r: f"{cell(r['lost_ms'])} ({cell(r['head_ms'])}/{cell(r['tail_ms'])})"
        print(f"| {row['text']} | {cell(s['audio_ms'])} "
              f"| {cell(s['first_audio_ms'])} | {cell(e['first_audio_ms'])} "
              f"| {cell(ratio(s['first_audio_ms'], e['first_audio_ms']), 2)} "
              f"| {cell(s['wall_minus_duration_ms'])} | {cell(e['wall_minus_duration_ms'])} "
              f"| {cell(ratio(s['wall_minus_duration_ms'], e['wall_minus_duration_ms']), 2)} "
              f"| {lost(s)} | {lost(e)} |")
    os.makedirs(os.path.join(ROOT, "Benchmarks/results"), exist_ok=True)
    with open(os.path.join(ROOT, "Benchmarks/results/playback.json"), "w") as out:
        json.dump({"runs": args.runs, "texts": results}, out, indent=1)


if __name__ == "__main__":
    main()

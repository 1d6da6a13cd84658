#!/usr/bin/env python3
"""How fast `speak` starts, side by side with `espeak-ng`, in one run, alternating.

Run from the package root:   Benchmarks/startup.py [--runs 15] [--speak .build/release/speak]
                                                   [--before OTHER/speak]

1. `--version`: wall time and peak RSS of the whole process.
2. `-o FILE TEXT` against `espeak-ng -w FILE TEXT`: wall time.
3. First audio on plain ALSA (no PulseAudio): ALSA's `file` plugin writes what a program plays
   into a FIFO this script reads; first audio is process start -> first non-zero sample read.
   Both programs play through ALSA's `default` device, pointed at that plugin by an asoundrc.
`--before` adds another build of speak (e.g. the one before a change) to the same alternating
runs, as a third column with its own ratio to espeak-ng.
Prints medians and ratios speak / espeak-ng as a Markdown table; writes
Benchmarks/results/startup.json. The PulseAudio path is Benchmarks/playback.py.
"""
import argparse, json, os, resource, statistics, subprocess, sys, tempfile, threading, time

TEXTS = ["Build passed.", "The deployment finished without errors.",
         "All tests passed on the first try. The release is ready to ship tonight."]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(command, env=None):
    """Wall seconds of one run, and its peak RSS (KiB) from a second run under /usr/bin/time
    (a forked Python child would count the interpreter's pages as the program's)."""
    started = time.monotonic()
    if subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        sys.exit(f"{' '.join(command)} failed")
    wall = time.monotonic() - started
    measured = subprocess.run(["/usr/bin/time", "-f", "%M", *command], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    return wall, int(measured.stderr.strip().splitlines()[-1])


class FirstAudio(threading.Thread):
    """Reads the FIFO ALSA's file plugin writes; notes when the first non-zero byte arrives."""

    def __init__(self, fifo):
        super().__init__(daemon=True)
        self.fifo, self.first, self.armed = fifo, None, threading.Event()

    def run(self):
        # The plugin opens the FIFO when a program opens the device, and closes it at the end.
        while True:
            with open(self.fifo, "rb", buffering=0) as pipe:
                while data := pipe.read(65536):
                    if self.first is None and self.armed.is_set() and any(data):
                        self.first = time.monotonic()


def first_audio(command, env, reader):
    reader.first = None
    reader.armed.set()
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if process.wait() != 0:
        sys.exit(f"{' '.join(command)} failed")
    # The writer has exited, so everything it wrote is in the pipe or read; wait for the reader.
    deadline = time.monotonic() + 2
    while reader.first is None and time.monotonic() < deadline:
        time.sleep(0.005)
    reader.armed.clear()
    return None if reader.first is None else reader.first - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build/release/speak"))
    parser.add_argument("--before", help="another speak binary, measured in the same runs")
    options = parser.parse_args()
    speak, runs = os.path.abspath(options.speak), options.runs
    commands = {"speak": speak, "espeak-ng": "espeak-ng"}
    if options.before:
        commands["before"] = os.path.abspath(options.before)
    names = list(commands)

    scratch = tempfile.mkdtemp(prefix="speak-startup-")
    fifo = os.path.join(scratch, "alsa.fifo")
    os.mkfifo(fifo)
    with open(os.path.join(scratch, ".asoundrc"), "w") as rc:
        rc.write(f'pcm.!default {{ type file slave.pcm "null" file "{fifo}" format "raw" }}\n')
    # No PulseAudio: HOME holds the asoundrc, and no pulse server is reachable.
    env = dict(os.environ, HOME=scratch, XDG_RUNTIME_DIR=scratch, PULSE_SERVER=f"unix:{scratch}/none")
    reader = FirstAudio(fifo)
    reader.start()

    results = {"version": {name: [] for name in names}, "file": {name: [] for name in names},
               "first_audio": {text: {name: [] for name in names} for text in TEXTS}}
    for run in range(runs):
        for name in (names if run % 2 == 0 else names[::-1]):
            results["version"][name].append(timed([commands[name], "--version"], env))
            out = os.path.join(scratch, "out.wav")
            flag = "-w" if name == "espeak-ng" else "-o"
            results["file"][name].append(timed([commands[name], flag, out, TEXTS[1]], env)[0])
            for text in TEXTS:
                # Both speak en-us at 175 wpm: speak's default voice.
                command = (["espeak-ng", "-v", "en-us", "-s", "175", text] if name == "espeak-ng"
                           else [commands[name], text])
                results["first_audio"][text][name].append(first_audio(command, env, reader))

    ms = lambda seconds: 1000 * seconds
    median = lambda kind, f=lambda v: v: {name: statistics.median(f(v) for v in results[kind][name]) for name in names}
    rows = [("`--version` wall, ms", {n: ms(v) for n, v in median("version", lambda v: v[0]).items()}),
            ("`--version` peak RSS, MB", {n: v / 1024 for n, v in median("version", lambda v: v[1]).items()}),
            ("`-o x.wav` / `-w x.wav`, one sentence, ms", {n: ms(v) for n, v in median("file").items()})]
    for text in TEXTS:
        values = {name: [v for v in results["first_audio"][text][name] if v is not None] for name in names}
        missing = {name: runs - len(values[name]) for name in names}
        label = (f"first audio, plain ALSA, \"{text[:40]}\", ms"
                 + (f" (no audio: {missing})" if any(missing.values()) else ""))
        rows.append((label, {name: ms(statistics.median(values[name])) for name in names}))
    before = "before" in commands
    print(f"medians of {runs} alternating runs\n")
    print("| what | speak | espeak-ng | ratio |" + (" before | ratio |" if before else "")
          + "\n|---|--:|--:|--:|" + ("--:|--:|" if before else ""))
    for label, value in rows:
        ratio = value["speak"] / value["espeak-ng"]
        line = f"| {label} | {value['speak']:.1f} | {value['espeak-ng']:.1f} | **{ratio:.2f}×** |"
        if before:
            line += f" {value['before']:.1f} | {value['before'] / value['espeak-ng']:.2f}× |"
        print(line)
    os.makedirs(os.path.join(ROOT, "Benchmarks/results"), exist_ok=True)
    with open(os.path.join(ROOT, "Benchmarks/results/startup.json"), "w") as out:
        json.dump({"runs": runs, "load": os.getloadavg(), "binaries": commands,
                   "rows": [{"what": label, **value} for label, value in rows]}, out, indent=1)


if __name__ == "__main__":
    main()

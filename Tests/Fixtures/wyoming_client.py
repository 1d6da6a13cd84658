"""Drives a Wyoming server with the real `wyoming` package (AsyncTcpClient and its event classes),
as Home Assistant does, and prints what came back as one JSON object. Used by WyomingTests.swift.

usage: wyoming_client.py COMMAND PORT [ARGS...]
  info PORT                              describe -> info, within Home Assistant's 1 s
  synthesize PORT VOICE TEXT RAW_OUT     one synthesize; the PCM written to RAW_OUT
  language PORT LANGUAGE TEXT            one synthesize naming only a language: the samples, or the error
  empty PORT                             a synthesize with no data at all, then describe
  stream PORT VOICE SENTENCE...          streaming; the last sentence is sent only after audio came
  transcribe PORT WAV RATE LANGUAGE [WIDTH CHANNELS]
                                         the WAV converted to RATE (and WIDTH, CHANNELS), transcribed
  live PORT SENSITIVITY WAV...           one recording of the WAVs, each followed by silence and sent
                                         once words came for the one before; SENSITIVITY is
                                         vad_sensitivity, or "none": every event up to transcript-stop
  refused PORT                           audio of width 5, 20 chunks, audio-stop, describe: what came
  odd PORT                               audio-start with the rate a string, then audio-stop with no
                                         audio before it: what came back to each, up to describe's info
  stalled PORT TEXT                      one client asks for TEXT and stops reading after audio-start;
                                         how long another client's "Hello." takes meanwhile
  bad PORT                               a bad header line, then an oversized payload
  ha-tts-errors PORT                     Home Assistant's non-streaming TTS reader on refused requests:
                                         what it returned and how long it took
  ha-stt-error PORT WAV                  Home Assistant's STT reader on audio refused as too long
  drip PORT                              64 connections that send one byte and wait, from one address
                                         and from 64: how long a describe then takes
  slow PORT                              an event's header, then a payload, sent a few bytes at a time:
                                         what came back and when
"""

import asyncio
import json
import socket
import sys
import time
import wave

from wyoming.asr import Transcribe, Transcript, TranscriptChunk, TranscriptStart, TranscriptStop
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event, async_read_event, async_write_event
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeVoice
from wyoming.vad import VoiceStarted, VoiceStopped

HOST = "127.0.0.1"
TIMEOUT = 120


async def read(client, timeout=TIMEOUT):
    return await asyncio.wait_for(client.read_event(), timeout)


async def info(port):
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Describe().event())
        # Home Assistant gives up after 1 s.
        event = await read(client, timeout=1.0)
        described = Info.from_event(event)
        # Home Assistant's grouping (wyoming/tts.py): each installed voice under each of its
        # languages, exactly as written, named by its description; the picker asks by one tag.
        by_language = {}
        for program in described.tts[:1]:
            for voice in program.voices:
                if voice.installed:
                    for tag in voice.languages:
                        by_language.setdefault(tag, []).append(voice.description or voice.name)
        return {
            "home_assistant_voices": by_language,
            "tts": [
                {
                    "name": program.name,
                    "installed": program.installed,
                    "streaming": program.supports_synthesize_streaming,
                    "voices": [
                        {
                            "name": voice.name,
                            "languages": voice.languages,
                            "installed": voice.installed,
                            "description": voice.description,
                            "speakers": [s.name for s in voice.speakers or []],
                        }
                        for voice in program.voices
                    ],
                }
                for program in described.tts
            ],
            "asr": [
                {
                    "name": program.name,
                    "installed": program.installed,
                    "streaming": program.supports_transcript_streaming,
                    "external_vad": program.requires_external_vad,
                    "models": [
                        {"name": m.name, "languages": m.languages, "installed": m.installed} for m in program.models
                    ],
                }
                for program in described.asr
            ],
        }


async def collect_audio(client, until):
    """Events up to the first `until` (or an error): their types, the audio formats, the PCM."""
    types, formats, pcm = [], [], bytearray()
    while True:
        event = await read(client)
        if event is None:
            types.append("closed")
            break
        types.append(event.type)
        if AudioStart.is_type(event.type):
            start = AudioStart.from_event(event)
            formats.append([start.rate, start.width, start.channels])
        elif AudioChunk.is_type(event.type):
            chunk = AudioChunk.from_event(event)
            formats.append([chunk.rate, chunk.width, chunk.channels])
            pcm += chunk.audio
        if event.type == until or Error.is_type(event.type):
            break
    return types, formats, bytes(pcm)


def summary(types):
    """Event types with runs of audio-chunk folded into one."""
    folded = []
    for kind in types:
        if kind == "audio-chunk" and folded and folded[-1] == "audio-chunk":
            continue
        folded.append(kind)
    return folded


async def synthesize(port, voice, text, raw_out):
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Synthesize(text=text, voice=SynthesizeVoice(name=voice)).event())
        types, formats, pcm = await collect_audio(client, "audio-stop")
    with open(raw_out, "wb") as file:
        file.write(pcm)
    return {"events": summary(types), "formats": sorted(set(map(tuple, formats))), "samples": len(pcm) // 2}


async def language(port, tag, text):
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Synthesize(text=text, voice=SynthesizeVoice(language=tag)).event())
        samples = 0
        while True:
            event = await read(client)
            if event is None:
                return {"error": "closed"}
            if Error.is_type(event.type):
                error = Error.from_event(event)
                return {"error": error.code, "text": error.text}
            if AudioChunk.is_type(event.type):
                samples += len(AudioChunk.from_event(event).audio) // 2
            if event.type == "audio-stop":
                return {"samples": samples}


async def stalled(port, text):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((HOST, port))
    reader, writer = await asyncio.open_connection(sock=sock)
    try:
        await async_write_event(Synthesize(text=text, voice=SynthesizeVoice(name="default")).event(), writer)
        first = await asyncio.wait_for(async_read_event(reader), TIMEOUT)
        # From here this client reads nothing more, as one whose network stalled.
        started = time.monotonic()
        try:
            async with AsyncTcpClient(HOST, port) as client:
                await client.write_event(Synthesize(text="Hello.", voice=SynthesizeVoice(name="default")).event())
                types, _, _ = await asyncio.wait_for(collect_audio(client, "audio-stop"), 60)
        except asyncio.TimeoutError:
            return {"first": first.type, "timeout": True}
        return {"first": first.type, "events": summary(types), "seconds": time.monotonic() - started}
    finally:
        writer.close()


async def empty(port):
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Event(type="synthesize"))
        types, formats, pcm = await collect_audio(client, "audio-stop")
        await client.write_event(Describe().event())
        after = await read(client)
    return {"events": summary(types), "samples": len(pcm) // 2, "after": after.type if after else None}


async def stream(port, voice, sentences):
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name=voice)).event())
        for sentence in sentences[:-1]:
            for word in sentence.split(" "):
                await client.write_event(SynthesizeChunk(text=word + " ").event())
        # The last sentence goes only once audio has come: a server that waited for the whole
        # text would never answer, and this read would time out.
        types, formats, pcm = [], [], bytearray()
        while True:
            event = await read(client)
            if event is None or Error.is_type(event.type):
                return {"error": event.data if event else "closed before any audio"}
            types.append(event.type)
            if AudioStart.is_type(event.type):
                start = AudioStart.from_event(event)
                formats.append([start.rate, start.width, start.channels])
            if AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                formats.append([chunk.rate, chunk.width, chunk.channels])
                pcm += chunk.audio
                break
        first_audio_before_last_sentence = True
        await client.write_event(SynthesizeChunk(text=sentences[-1]).event())
        # Home Assistant sends the whole text as a plain synthesize too, for servers that do not stream.
        await client.write_event(Synthesize(text=" ".join(sentences), voice=SynthesizeVoice(name=voice)).event())
        await client.write_event(SynthesizeStop().event())
        more, more_formats, more_pcm = await collect_audio(client, "synthesize-stopped")
        types += more
        formats += more_formats
        pcm += more_pcm
    return {
        "first_audio_before_last_sentence": first_audio_before_last_sentence,
        "events": summary(types),
        "formats": sorted(set(map(tuple, formats))),
        "samples": len(pcm) // 2,
    }


async def transcribe(port, wav_path, rate, language, width=2, channels=1):
    with wave.open(wav_path, "rb") as wav:
        audio = wav.readframes(wav.getnframes())
        chunk = AudioChunk(rate=wav.getframerate(), width=wav.getsampwidth(), channels=wav.getnchannels(), audio=audio)
    chunk = AudioChunkConverter(rate=rate, width=width, channels=channels).convert(chunk)
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Transcribe(language=language).event())
        await client.write_event(AudioStart(rate=rate, width=width, channels=channels).event())
        step = 2048 * width * channels
        for offset in range(0, len(chunk.audio), step):
            piece = chunk.audio[offset : offset + step]
            await client.write_event(AudioChunk(rate=rate, width=width, channels=channels, audio=piece).event())
        await client.write_event(AudioStop().event())
        # As Home Assistant reads: on to the transcript, past a streaming server's other events.
        event = await read(client)
        while event is not None and not Transcript.is_type(event.type) and not Error.is_type(event.type):
            event = await read(client)
    if Transcript.is_type(event.type):
        transcript = Transcript.from_event(event)
        seconds = len(chunk.audio) / width / channels / rate
        return {"text": transcript.text, "language": transcript.language, "seconds": seconds}
    return {"event": event.type, "data": event.data}


def described(event):
    """An event as the `wyoming` package's own class reads it."""
    if TranscriptChunk.is_type(event.type):
        return {"type": event.type, "text": TranscriptChunk.from_event(event).text}
    if Transcript.is_type(event.type):
        transcript = Transcript.from_event(event)
        return {"type": event.type, "text": transcript.text, "language": transcript.language}
    if TranscriptStart.is_type(event.type):
        return {"type": event.type, "language": TranscriptStart.from_event(event).language}
    for kind in (VoiceStarted, VoiceStopped):
        if kind.is_type(event.type):
            return {"type": event.type, "timestamp": kind.from_event(event).timestamp}
    if Error.is_type(event.type):
        return {"type": event.type, "code": event.data.get("code"), "text": event.data.get("text")}
    return {"type": event.type}


async def live(port, sensitivity, wav_paths):
    """One recording at 16 kHz, as a microphone's audio comes: each WAV then 1.5 s of silence (a
    pause that ends the turn), the next WAV only once a transcript-chunk came, so those words came
    while the audio still did. Then audio-stop, and every event up to transcript-stop."""
    clips = []
    for path in wav_paths:
        with wave.open(path, "rb") as wav:
            chunk = AudioChunk(rate=wav.getframerate(), width=wav.getsampwidth(), channels=wav.getnchannels(),
                               audio=wav.readframes(wav.getnframes()))
        clips.append(AudioChunkConverter(rate=16000, width=2, channels=1).convert(chunk).audio + bytes(48000))
    request = Transcribe(language="en", vad_sensitivity=None if sensitivity == "none" else sensitivity)
    events, before_stop = [], 0
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(request.event())
        await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
        for audio in clips:
            for offset in range(0, len(audio), 2048):
                piece = audio[offset:offset + 2048]
                await client.write_event(AudioChunk(rate=16000, width=2, channels=1, audio=piece).event())
            while True:
                event = await read(client)
                if event is None:
                    return {"events": events + [{"type": "closed"}]}
                events.append(described(event))
                if TranscriptChunk.is_type(event.type) or Error.is_type(event.type):
                    break
        before_stop = len(events)
        await client.write_event(AudioStop().event())
        while True:
            event = await read(client)
            if event is None:
                events.append({"type": "closed"})
                break
            events.append(described(event))
            if TranscriptStop.is_type(event.type):
                break
    return {"events": events, "before_stop": before_stop,
            "clip_seconds": [len(audio) / 32000 for audio in clips]}


async def answers(port, events):
    """What `events` get, up to the info a describe sent after them gets: error codes, else types."""
    async with AsyncTcpClient(HOST, port) as client:
        for event in events + [Describe().event()]:
            await client.write_event(event)
        seen = []
        while True:
            event = await read(client)
            if event is None:
                return seen + ["closed"]
            seen.append(event.data.get("code") if Error.is_type(event.type) else event.type)
            if event.type == "info":
                return seen


async def refused(port):
    chunks = [AudioChunk(rate=16000, width=5, channels=1, audio=bytes(5 * 1600)).event() for _ in range(20)]
    return {"events": await answers(port, [Transcribe(language="en").event(),
                                           AudioStart(rate=16000, width=5, channels=1).event(), *chunks,
                                           AudioStop().event()])}


async def odd(port):
    string_rate = Event(type="audio-start", data={"rate": "22050", "width": 2, "channels": 1})
    chunk = AudioChunk(rate=22050, width=2, channels=1, audio=bytes(4410)).event()
    return {
        "string_rate": await answers(port, [Transcribe(language="en").event(), string_rate, chunk,
                                            AudioStop().event()]),
        "stop_alone": await answers(port, [Transcribe(language="en").event(), AudioStop().event()]),
    }


async def bad(port):
    result = {}
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(b"this is not a header\n")
    await writer.drain()
    client = AsyncTcpClient(HOST, port)
    client._reader, client._writer = reader, writer
    event = await read(client)
    result["bad_header"] = {"type": event.type, "code": event.data.get("code"), "text": event.data.get("text")}
    await client.write_event(Describe().event())
    after = await read(client)
    result["after_bad_header"] = after.type if after else None
    # An audio chunk claiming a gigabyte: refused before it is read, and the connection closed.
    writer.write(json.dumps({"type": "audio-chunk", "payload_length": 1 << 30}).encode() + b"\n")
    await writer.drain()
    event = await read(client)
    result["oversized"] = {"type": event.type, "code": event.data.get("code"), "text": event.data.get("text")}
    closing = await read(client)
    result["after_oversized"] = closing.type if closing else "closed"
    writer.close()
    async with AsyncTcpClient(HOST, port) as fresh:
        await fresh.write_event(Describe().event())
        event = await read(fresh)
        result["new_connection"] = event.type if event else None
    return result


async def long_chunk(port):
    """One chunk far over the audio limit at a low rate (8 MiB of 1 kHz 8-bit audio: 2.3 hours)."""
    return {"events": await answers(port, [
        Transcribe(language="en").event(), AudioStart(rate=1000, width=1, channels=1).event(),
        AudioChunk(rate=1000, width=1, channels=1, audio=bytes(8 << 20)).event(), AudioStop().event()])}


SSML = ('<speak><prosody rate="x-slow">One sentence here. Another sentence here. A third one here.'
        '</prosody></speak>')


async def ssml(port):
    """The same SSML whole, and streamed a word a chunk: samples of each."""
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Event(type="synthesize", data={"text": SSML, "text_format": "ssml"}))
        _, _, whole = await collect_audio(client, "audio-stop")
        await client.write_event(Event(type="synthesize-start", data={"text_format": "ssml"}))
        for word in SSML.split(" "):
            await client.write_event(SynthesizeChunk(text=word + " ").event())
        await client.write_event(SynthesizeStop().event())
        _, _, streamed = await collect_audio(client, "synthesize-stopped")
    return {"whole": len(whole) // 2, "streamed": len(streamed) // 2}


async def refused_stream(port):
    """A stream whose voice is unknown, sent on as Home Assistant would: every event it answers."""
    voice = SynthesizeVoice(name="no-such-voice")
    chunks = [SynthesizeChunk(text=word).event() for word in ["Hello", " there.", " How", " are", " you?"]]
    return {"events": await answers(port, [
        SynthesizeStart(voice=voice).event(), *chunks,
        Synthesize(text="Hello there. How are you?", voice=voice).event(), SynthesizeStop().event()])}


async def home_assistant_tts(port, text, voice=None, speaker=None):
    """What Home Assistant's `wyoming` TTS entity (homeassistant/components/wyoming/tts.py, 2025.4
    to today, non-streaming) does with one text: read events until `audio-stop` or the end of the
    stream, taking only audio. Returns its answer (None when the connection was lost) and the
    events it read."""
    seen, audio = [], 0
    async with AsyncTcpClient(HOST, port) as client:
        voice = SynthesizeVoice(name=voice, speaker=speaker) if voice is not None else None
        await client.write_event(Synthesize(text=text, voice=voice).event())
        while True:
            event = await client.read_event()
            if event is None:
                return None, seen
            seen.append(event.data.get("code") if Error.is_type(event.type) else event.type)
            if AudioStop.is_type(event.type):
                return ("wav", audio), seen
            if AudioChunk.is_type(event.type):
                audio += len(AudioChunk.from_event(event).audio)


async def ha_tts_errors(port):
    cases = {
        "unknown-voice": dict(text="Hello.", voice="nosuch"),
        "unknown-speaker": dict(text="Hello.", voice="default", speaker="nobody"),
        "text-too-long": dict(text="word " * 4000, voice="default"),
        "spoken": dict(text="Hello.", voice="default"),
    }
    result = {}
    for name, request in cases.items():
        started = time.monotonic()
        try:
            answer, seen = await asyncio.wait_for(home_assistant_tts(port, **request), 10)
            outcome = "no audio (connection lost)" if answer is None else f"{answer[0]} {answer[1]} bytes"
        except asyncio.TimeoutError:
            outcome, seen = "still waiting after 10 s", []
        result[name] = {"outcome": outcome, "events": summary(seen), "seconds": time.monotonic() - started}
    return result


async def ha_stt_error(port, wav_path):
    """Home Assistant's STT entity (wyoming/stt.py): all the audio, then read until `transcript`
    or the end of the stream, ignoring anything else."""
    with wave.open(wav_path, "rb") as wav:
        chunk = AudioChunk(rate=wav.getframerate(), width=wav.getsampwidth(), channels=wav.getnchannels(),
                           audio=wav.readframes(wav.getnframes()))
    audio = AudioChunkConverter(rate=16000, width=2, channels=1).convert(chunk).audio
    started = time.monotonic()

    async def run():
        async with AsyncTcpClient(HOST, port) as client:
            await client.write_event(Transcribe(language="en").event())
            await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
            for offset in range(0, len(audio), 2048):
                piece = audio[offset:offset + 2048]
                await client.write_event(AudioChunk(rate=16000, width=2, channels=1, audio=piece).event())
            await client.write_event(AudioStop().event())
            seen = []
            while True:
                event = await client.read_event()
                if event is None:
                    return "error (connection lost)", seen
                seen.append(event.data.get("code") if Error.is_type(event.type) else event.type)
                if Transcript.is_type(event.type):
                    return "transcript", seen

    try:
        outcome, seen = await asyncio.wait_for(run(), 10)
    except asyncio.TimeoutError:
        outcome, seen = "still waiting after 10 s", []
    return {"outcome": outcome, "events": seen, "seconds": time.monotonic() - started,
            "audio_seconds": len(audio) / 32000}


def drip_connection(port, source):
    """A connection from `source` that has sent the first byte of an event, and nothing more."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect((HOST, port))
    sock.sendall(b"{")
    return sock


async def timed_describe(port):
    """A describe as Home Assistant sends it (it waits 1 s): the answer's type and the seconds taken."""
    started = time.monotonic()
    answer = None
    try:
        async with AsyncTcpClient(HOST, port) as client:
            await client.write_event(Describe().event())
            event = await read(client, timeout=1.0)
            answer = event.type if event else "closed"
            if event is not None and Error.is_type(event.type):
                answer = "error " + event.data.get("code", "")
    except asyncio.TimeoutError:
        answer = "no answer within 1 s"
    except ConnectionError:
        # A refusal closes with the describe unread: a reset, which may come as the client closes.
        answer = answer or "connection reset"
    return {"answer": answer, "seconds": time.monotonic() - started}


def closed_count(sockets):
    """How many of `sockets` the server closed (refused `busy`, or let go for a newer one)."""
    count = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            data = sock.recv(4096)
            count += data == b"" or b"busy" in data
        except BlockingIOError:
            pass
        except ConnectionError:
            count += 1
    return count


async def drip(port):
    result = {}
    # 64 hosts, one connection each, each inside its first event: every slot taken.
    many = [drip_connection(port, f"127.0.1.{index + 1}") for index in range(64)]
    # Accepted in order: by the time the describe is answered, every drip before it was let in.
    result["many_addresses"] = await timed_describe(port)
    result["many_addresses"]["gave_way"] = closed_count(many)
    for sock in many:
        sock.close()
    # One host holding 64 connections. Those above stay in the table until the server has seen
    # their ends; being older, they give way first, so the count below is this host's own.
    one = [drip_connection(port, "127.0.0.2") for _ in range(64)]
    result["one_address"] = {**(await timed_describe(port)), "closed": closed_count(one)}
    for sock in one:
        sock.close()
    return result


async def slow(port):
    """A header line sent a byte every 0.1 s, then a payload at 100 bytes every 0.1 s: each is
    answered `too-slow` and closed, whenever the server's deadline for it passes; `sent` is how
    much of it had gone then."""
    result = {}
    header = json.dumps({"type": "audio-chunk", "payload_length": 40000}).encode() + b"\n"
    for name, first, rest in [("header", b"", header), ("payload", header, bytes(40000))]:
        reader, writer = await asyncio.open_connection(HOST, port)
        started = time.monotonic()
        writer.write(first)
        step = 1 if name == "header" else 100
        answer, sent = None, 0
        try:
            for offset in range(0, len(rest), step):
                writer.write(rest[offset:offset + step])
                await writer.drain()
                sent = offset + len(rest[offset:offset + step])
                try:
                    answer = await asyncio.wait_for(async_read_event(reader), 0.1)
                    break
                except asyncio.TimeoutError:
                    pass
        except (ConnectionError, OSError):
            pass
        code = answer.data.get("code") if answer is not None else None
        result[name] = {"answer": code, "sent": sent, "whole": len(rest), "step": step,
                        "seconds": time.monotonic() - started}
        writer.close()
    return result


def main():
    command, port, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    if command == "info":
        result = asyncio.run(info(port))
    elif command == "synthesize":
        result = asyncio.run(synthesize(port, args[0], args[1], args[2]))
    elif command == "language":
        result = asyncio.run(language(port, args[0], args[1]))
    elif command == "stalled":
        result = asyncio.run(stalled(port, args[0]))
    elif command == "empty":
        result = asyncio.run(empty(port))
    elif command == "stream":
        result = asyncio.run(stream(port, args[0], args[1:]))
    elif command == "transcribe":
        width, channels = (int(args[3]), int(args[4])) if len(args) > 4 else (2, 1)
        result = asyncio.run(transcribe(port, args[0], int(args[1]), args[2], width, channels))
    elif command == "live":
        result = asyncio.run(live(port, args[0], args[1:]))
    elif command == "refused":
        result = asyncio.run(refused(port))
    elif command == "odd":
        result = asyncio.run(odd(port))
    elif command == "bad":
        result = asyncio.run(bad(port))
    elif command == "ssml":
        result = asyncio.run(ssml(port))
    elif command == "refused-stream":
        result = asyncio.run(refused_stream(port))
    elif command == "long-chunk":
        result = asyncio.run(long_chunk(port))
    elif command == "ha-tts-errors":
        result = asyncio.run(ha_tts_errors(port))
    elif command == "ha-stt-error":
        result = asyncio.run(ha_stt_error(port, args[0]))
    elif command == "drip":
        result = asyncio.run(drip(port))
    elif command == "slow":
        result = asyncio.run(slow(port))
    else:
        sys.exit(f"unknown command {command}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

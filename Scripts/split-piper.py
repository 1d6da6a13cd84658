"""Splits a Piper (VITS) model at its HiFi-GAN decoder's input, for speak's decoder streaming.

    split-piper.py MODEL.onnx VERSION

writes, beside MODEL.onnx, the two parts as ONNX Runtime VERSION optimises them (level "extended"):

    MODEL.front.optimized-onnxruntime-VERSION.onnx    phoneme ids -> the latent (text encoder,
                                                      duration predictor, flow): the whole sentence
    MODEL.decoder.optimized-onnxruntime-VERSION.onnx  a span of latent frames -> audio
    MODEL.split.json                                  the latent's name, the decoder's inputs, hop, peak

The decoder's input is found from the graph, not from names: walking back from the first
ConvTranspose (the first upsampling) along each node's first input to the first Conv, the
decoder's first convolution. The split is kept only if, in ONNX Runtime, the front then the
decoder gives the whole model's audio, whole and decoded in windows with speak's context.
Needs the onnx and onnxruntime Python packages (and numpy). Exit status 0 with the parts written,
1 with a one-line reason on stderr.
"""

import json
import os
import sys

import numpy as np
import onnx
import onnx.utils
import onnxruntime

# speak's windows (Sources/SpeakPiper/PiperSplitModel.swift): the first few frames, then larger ones, each with this
# much latent context on either side.
CONTEXT = 10
FIRST = 32
LATER = 256


def fail(reason):
    print(f"split-piper: {reason}", file=sys.stderr)
    sys.exit(1)


def decoder_input(graph):
    producers = {out: node for node in graph.node for out in node.output}
    upsampling = next((n for n in graph.node if n.op_type == "ConvTranspose"), None)
    if upsampling is None:
        fail("no ConvTranspose: not a HiFi-GAN decoder")
    node = upsampling
    for _ in range(16):
        node = producers.get(node.input[0])
        if node is None:
            break
        if node.op_type == "Conv":
            return node.input[0]
    fail("no convolution before the decoder's first upsampling")


def session(path, threads=1):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])


def optimise(source, target):
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = target
    options.log_severity_level = 3
    onnxruntime.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])


def windows(frames):
    """(start, end) of each window's own frames: FIRST, then LATER at a time."""
    spans, start = [], 0
    size = FIRST
    while start < frames:
        spans.append((start, min(start + size, frames)))
        start += size
        size = LATER
    return spans


def main():
    base = sys.argv[1][: -len(".onnx")]
    try:
        split(sys.argv[1], sys.argv[2])
    finally:
        # Nothing half made stays beside the model (a model that does not run leaves no parts).
        for leftover in (f"{base}.front.optimized-onnxruntime-{sys.argv[2]}.onnx.tmp",
                         f"{base}.decoder.optimized-onnxruntime-{sys.argv[2]}.onnx.tmp", base + ".split.json.tmp"):
            if os.path.exists(leftover):
                os.remove(leftover)


def split(model_path, version):
    base = model_path[: -len(".onnx")]
    front_path = f"{base}.front.optimized-onnxruntime-{version}.onnx"
    decoder_path = f"{base}.decoder.optimized-onnxruntime-{version}.onnx"
    with open(model_path + ".json", encoding="utf-8") as f:
        config = json.load(f)

    model = onnx.load(model_path)
    graph = model.graph
    latent = decoder_input(graph)
    inputs = [i.name for i in graph.input]
    output = graph.output[0].name
    scratch = base + f".split-{os.getpid()}"
    front_plain, decoder_plain = scratch + ".front.onnx", scratch + ".decoder.onnx"
    try:
        onnx.utils.extract_model(model_path, front_plain, inputs, [latent])
        # A multi-speaker decoder conditions on the speaker as well: its id stays an input.
        decoder_inputs = [latent] + [name for name in inputs if name == "sid"]
        onnx.utils.extract_model(model_path, decoder_plain, decoder_inputs, [output])
        optimise(front_plain, front_path + ".tmp")
        optimise(decoder_plain, decoder_path + ".tmp")
    finally:
        for path in (front_plain, decoder_plain):
            if os.path.exists(path):
                os.remove(path)

    # The check: a sentence's ids as Piper makes them (^ pad p pad ... $), noise off, so the
    # whole model and the parts see the same latent.
    ids_map = config["phoneme_id_map"]
    text = "ðə bˈɪld fˈɪnɪʃt ɐ fjˈuː mˈɪnɪts ɐɡˈoʊ, ænd ˈɔːl ðə tˈɛsts pˈæst."
    ids = ids_map["^"][:]
    for symbol in text:
        if symbol in ids_map:
            ids += ids_map[symbol] + ids_map["_"]
    ids += ids_map["$"]
    feed = {
        "input": np.array([ids], dtype=np.int64),
        "input_lengths": np.array([len(ids)], dtype=np.int64),
        "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32),
    }
    speaker = {"sid": np.array([0], dtype=np.int64)} if "sid" in inputs else {}
    whole = session(model_path).run(None, {**feed, **speaker})[0].reshape(-1)
    z = session(front_path + ".tmp").run(None, {**feed, **speaker})[0]
    decoder = session(decoder_path + ".tmp")
    frames = z.shape[2]
    decoded = decoder.run(None, {latent: z, **speaker})[0].reshape(-1)
    hop = decoded.size // frames
    if hop * frames != decoded.size or decoded.size != whole.size:
        fail(f"the decoder gives {decoded.size} samples for {frames} frames, the model {whole.size}")
    pieces = []
    for start, end in windows(frames):
        low, high = max(start - CONTEXT, 0), min(end + CONTEXT, frames)
        audio = decoder.run(None, {latent: z[:, :, low:high], **speaker})[0].reshape(-1)
        pieces.append(audio[(start - low) * hop : (end - low) * hop])
    streamed = np.concatenate(pieces)
    worst = max(float(np.max(np.abs(decoded - whole))), float(np.max(np.abs(streamed - whole))))
    if worst > 1e-4:
        fail(f"the parts differ from the whole model by {worst:.2g}")
    # The loudest a sentence of this voice gets, with the config's noise: a streamed sentence is
    # scaled by this before its own peak is known (Piper scales each sentence by its peak).
    inference = config.get("inference", {})
    noisy = np.array(
        [inference.get("noise_scale", 0.667), 1.0, inference.get("noise_w", 0.8)], dtype=np.float32)
    whole_session = session(model_path)
    peak = 0.0
    for sentence in (text, "hˈaɪ!", "jˈɛs, ʃˈʊɹ, ðæts fˈaɪn.", "wˈʌt tˈaɪm ɪz ɪt?"):
        sentence_ids = ids_map["^"][:]
        for symbol in sentence:
            if symbol in ids_map:
                sentence_ids += ids_map[symbol] + ids_map["_"]
        sentence_ids += ids_map["$"]
        for _ in range(3):
            audio = whole_session.run(None, {
                **feed, **speaker, "input": np.array([sentence_ids], dtype=np.int64),
                "input_lengths": np.array([len(sentence_ids)], dtype=np.int64), "scales": noisy})[0]
            peak = max(peak, float(np.max(np.abs(audio))))
    os.replace(front_path + ".tmp", front_path)
    os.replace(decoder_path + ".tmp", decoder_path)
    with open(base + ".split.json.tmp", "w", encoding="utf-8") as f:
        json.dump({"latent": latent, "decoderInputs": decoder_inputs, "hop": hop, "peak": round(peak, 4),
                   "onnxruntime": version}, f)
    os.replace(base + ".split.json.tmp", base + ".split.json")
    print(f"split {os.path.basename(model_path)} at {latent}: {frames} frames, hop {hop}, worst {worst:.2g}")


if __name__ == "__main__":
    main()

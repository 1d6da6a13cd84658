import Foundation

/// The page `speak serve` answers at `/`: type a sentence and hear it, say something and read it.
/// One self-contained HTML file (styles and script inline, nothing fetched from elsewhere), compiled
/// in so an installed binary needs no data directory. The page itself is open; the calls it makes
/// carry the token the user types, kept in the browser's localStorage.
enum WebPage {
    static let response = HTTPResponse(
        headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            // Only this server: no outside scripts, styles, fonts or images, and no framing.
            (
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
                    + "media-src 'self' blob:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
                    + "form-action 'none'"
            ),
        ],
        body: .data(Data(html.utf8)))

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>speak</title>
        <style>
          :root { color-scheme: light dark; --accent: #2458c6; --bad: #b3261e; --good: #1d7a3a; --line: #8884; }
          * { box-sizing: border-box; }
          body { margin: 0; font: 16px/1.45 system-ui, sans-serif; }
          main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
          h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
          h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
          section { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem; margin: 0 0 1rem; }
          label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
          input, select, textarea, button { font: inherit; max-width: 100%; }
          input, select, textarea { width: 100%; padding: .45rem; border: 1px solid var(--line); \#
        border-radius: .35rem; }
          textarea { min-height: 5.5rem; resize: vertical; }
          .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .6rem; }
          button { padding: .5rem 1rem; border-radius: .35rem; border: 1px solid var(--accent); \#
        background: var(--accent); color: #fff; cursor: pointer; }
          button.quiet { background: transparent; color: inherit; border-color: var(--line); }
          button:disabled { opacity: .5; cursor: default; }
          button[aria-pressed="true"] { background: var(--bad); border-color: var(--bad); }
          :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
          audio { width: 100%; margin-top: .6rem; }
          meter { width: 8rem; max-width: 100%; height: 1.1rem; }
          .hint { font-size: .9rem; opacity: .8; margin: .25rem 0 0; }
          .error { color: var(--bad); font-weight: 600; margin: .5rem 0 0; }
          .error:empty, .status:empty { display: none; }
          .status { margin: .5rem 0 0; }
          #transcript { display: block; white-space: pre-wrap; overflow-wrap: anywhere; margin: .6rem 0 0; \#
        padding: .5rem; min-height: 2.4rem; border-radius: .35rem; background: #8881; }
          [hidden] { display: none !important; }
        </style>
        </head>
        <body>
        <main>
        <h1>speak</h1>

        <section aria-labelledby="token-heading">
          <h2 id="token-heading">Your token</h2>
          <label for="token">Token</label>
          <input id="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-hint \#
        token-error">
          <p id="token-hint" class="hint">Kept in this browser only, and sent to this server with each request.</p>
          <p id="token-error" class="error" role="alert"></p>
        </section>

        <section aria-labelledby="speak-heading">
          <h2 id="speak-heading">Speak</h2>
          <label for="voice">Voice</label>
          <select id="voice"><option value="">the server's default</option></select>
          <label for="text">Text</label>
          <textarea id="text" aria-describedby="text-hint">Na gode! Mun karɓi saƙonku.</textarea>
          <p id="text-hint" class="hint">Ctrl+Enter speaks.</p>
          <div class="row"><button id="speak" type="button">Speak</button><button id="stop-speaking" type="button" \#
        class="quiet" hidden>Stop</button></div>
          <audio id="player" controls aria-label="Spoken reply"></audio>
          <p id="speak-status" class="status" aria-live="polite"></p>
          <p id="speak-error" class="error" role="alert"></p>
        </section>

        <section aria-labelledby="listen-heading">
          <h2 id="listen-heading">Transcribe</h2>
          <label for="language">Language <span class="hint">(empty: detect)</span></label>
          <input id="language" value="en" autocomplete="off" spellcheck="false">
          <div class="row">
            <button id="record" type="button" aria-pressed="false">Record</button>
            <button id="cancel" type="button" class="quiet" hidden>Cancel</button>
            <label for="level" style="margin:0">Level</label><meter id="level" min="0" max="1" low="0.15" high="0.9" \#
        optimum="0.5" value="0">0</meter>
            <output id="duration" aria-label="Recording length" aria-live="off">0.0 s</output>
          </div>
          <p id="record-status" class="status" aria-live="polite"></p>
          <p id="record-error" class="error" role="alert"></p>
          <div class="row" id="kept" hidden>
            <button id="retry" type="button">Retry</button><button id="discard" type="button" class="quiet">Discard \#
        recording</button>
          </div>
          <label for="transcript">Text heard</label>
          <output id="transcript" for="record" aria-live="polite"></output>
        </section>
        </main>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const tokenField = $("token"), voicePicker = $("voice");

        // The token stays in this browser; every API call carries it.
        tokenField.value = localStorage.getItem("speak.token") || "";
        // No token typed, no header: a server without a tokens file needs none.
        const auth = () => (tokenField.value.trim() ? { Authorization: "Bearer " + tokenField.value.trim() } : {});

        /// An HTTP failure in words, for the user and for the status code's meaning here.
        async function explain(response, what) {
          let message = "";
          try { message = (await response.json()).error.message || ""; } catch (_) {}
          switch (response.status) {
            case 401: return tokenField.value.trim() ? "Wrong token: check the token above." : "Type your token above.";
            case 413: return what === "upload" ? "The recording is too long for the server (" + (message || "25 MB \#
        at most") + ")." : "The text is too long for the server.";
            case 415: return "The server cannot read this kind of audio" + (message ? " (" + message + ")." : ".");
            case 429: {
              const wait = response.headers.get("Retry-After");
              return "Too many requests: slow down" + (wait ? " and try again in " + wait + " s." : " and try again \#
        shortly.");
            }
            // A proxy's own 502 or 504 (nginx's, with its instances down) says nothing in JSON.
            case 502: case 504: return message ? "The server's upstream failed: " + message : "The server is not \#
        answering behind its proxy (" + response.status + "): try again shortly.";
            case 503: return "The server cannot do this right now: " + message;
            default: return "The server said " + response.status + (message ? ": " + message : ".");
          }
        }
        const unreachable = "Cannot reach the server: check the connection and try again.";

        // MARK: voices
        /// Lists the voices the token may use; with no token too, which a server without a tokens file answers.
        /// Until they come, and when they are refused, only the server's default is offered, never an older
        /// token's list. On arrival with no token typed, a refusal is no error: the user has not acted yet.
        async function loadVoices(arriving = false) {
          $("token-error").textContent = "";
          voicePicker.replaceChildren(new Option("the server's default", ""));
          let response;
          try { response = await fetch("voices", { headers: auth() }); } catch (_) \#
        { $("token-error").textContent = unreachable; document.body.dataset.voices = "unreachable"; return; }
          document.body.dataset.voices = response.ok ? "listed" : "refused";
          if (arriving && response.status === 401 && !tokenField.value.trim()) return;
          if (!response.ok) { $("token-error").textContent = await explain(response, "voices"); return; }
          const { voices } = await response.json();
          const chosen = localStorage.getItem("speak.voice") || voicePicker.value;
          // The first choice names no voice, so the server's own default (its configuration's) answers.
          voicePicker.replaceChildren(new Option("the server's default", ""), ...voices.map((voice) => {
            const option = new Option(voice.name + " (" + voice.language + ", " + voice.engine + ")", voice.name);
            option.title = voice.description || "";
            return option;
          }));
          if (voices.some((voice) => voice.name === chosen)) voicePicker.value = chosen;
        }
        tokenField.addEventListener("change", () => { localStorage.setItem("speak.token", tokenField.value.trim()); \#
        loadVoices(); });
        voicePicker.addEventListener("change", () => localStorage.setItem("speak.voice", voicePicker.value));

        // MARK: speaking
        const player = $("player");
        let speaking = null;

        /// Plays the reply as it arrives: MediaSource takes MP3 in Chromium; elsewhere the whole reply
        /// is collected first and played from a blob.
        async function speak() {
          const text = $("text").value.trim();
          $("speak-error").textContent = "";
          if (!text) { $("speak-error").textContent = "Type something to speak."; return; }
          speaking?.abort();
          const controller = new AbortController();
          speaking = controller;
          $("speak").disabled = true; $("stop-speaking").hidden = false;
          $("speak-status").textContent = "Speaking…";
          player.dataset.mode = ""; player.dataset.bytes = "0"; delete player.dataset.received;
          try {
            const response = await fetch("api/speak", {
              method: "POST", signal: controller.signal,
              headers: { ...auth(), "Content-Type": "application/json", Accept: "audio/mpeg" },
              body: JSON.stringify({ text, voice: voicePicker.value || undefined }),
            });
            if (!response.ok) { $("speak-error").textContent = await explain(response, "speak"); \#
        $("speak-status").textContent = ""; return; }
            if (window.MediaSource && MediaSource.isTypeSupported("audio/mpeg") && response.body) {
              await playStreamed(response, controller);
            } else {
              const blob = await response.blob();
              player.dataset.mode = "blob"; player.dataset.bytes = String(blob.size);
              player.src = URL.createObjectURL(blob);
              await player.play();
            }
            player.dataset.received = "all";
            // Stop stays while the reply is heard, not only while it downloads.
            await playedOut(controller);
            $("speak-status").textContent = "";
          } catch (error) {
            if (error.name !== "AbortError") { $("speak-error").textContent = error.name === "TypeError" ? \#
        unreachable : "Cannot play the reply: " + error.message; }
            $("speak-status").textContent = "";
          } finally {
            if (speaking === controller) { speaking = null; $("speak").disabled = false; \#
        $("stop-speaking").hidden = true; }
          }
        }

        /// Resolves once the player has ended, paused (Stop, or its own controls) or failed, or on abort.
        const playedOut = (controller) => new Promise((resolve) => {
          if (player.paused || player.ended || controller.signal.aborted) { resolve(); return; }
          const events = ["ended", "pause", "error"];
          const done = () => { events.forEach((name) => player.removeEventListener(name, done)); resolve(); };
          events.forEach((name) => player.addEventListener(name, done));
          controller.signal.addEventListener("abort", done, { once: true });
        });

        async function playStreamed(response, controller) {
          const source = new MediaSource();
          player.dataset.mode = "stream";
          player.src = URL.createObjectURL(source);
          await new Promise((resolve) => source.addEventListener("sourceopen", resolve, { once: true }));
          const buffer = source.addSourceBuffer("audio/mpeg");
          const appended = () => new Promise((resolve, reject) => {
            buffer.addEventListener("updateend", resolve, { once: true });
            buffer.addEventListener("error", () => reject(new Error("the browser could not decode the audio")), \#
        { once: true });
          });
          const reader = response.body.getReader();
          let bytes = 0, started = null;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            if (controller.signal.aborted) { reader.cancel(); return; }
            const wait = appended();
            buffer.appendBuffer(value);
            await wait;
            bytes += value.byteLength;
            player.dataset.bytes = String(bytes);
            // Start on the first audio, not the last.
            started ??= player.play();
          }
          if (source.readyState === "open") source.endOfStream();
          await started;
        }

        $("speak").addEventListener("click", speak);
        $("stop-speaking").addEventListener("click", () => { speaking?.abort(); player.pause(); });
        $("text").addEventListener("keydown", (event) => { if (event.key === "Enter" && (event.ctrlKey || \#
        event.metaKey)) { event.preventDefault(); speak(); } });
        player.addEventListener("ended", () => { player.dataset.ended = String(Number(player.dataset.ended || 0) \#
        + 1); });
        player.addEventListener("play", () => { delete player.dataset.ended; });

        // MARK: recording
        // States as in the seed apps: idle → recording (level, duration) → transcribing → idle or error.
        // The recording is kept until a transcription succeeds, so a failure never means speaking again.
        const recordButton = $("record"), meter = $("level"), durationLabel = $("duration");
        let recorder = null, audioContext = null, ticker = null, kept = null, uploading = null;

        // The kept recording also waits in IndexedDB, so closing the tab does not lose it either.
        const pending = {
          open: () => new Promise((resolve, reject) => {
            const request = indexedDB.open("speak", 1);
            request.onupgradeneeded = () => request.result.createObjectStore("pending");
            request.onsuccess = () => resolve(request.result);
            request.onerror = () => reject(request.error);
          }),
          async run(mode, work) {
            const db = await pending.open();
            return new Promise((resolve, reject) => {
              const transaction = db.transaction("pending", mode);
              const request = work(transaction.objectStore("pending"));
              transaction.oncomplete = () => { db.close(); resolve(request.result); };
              transaction.onerror = () => { db.close(); reject(transaction.error); };
            });
          },
          save: (recording) => pending.run("readwrite", (store) => store.put(recording, "recording")).catch(() => {}),
          load: () => pending.run("readonly", (store) => store.get("recording")).catch(() => undefined),
          clear: () => pending.run("readwrite", (store) => store.delete("recording")).catch(() => {}),
        };

        const recordingType = () => ["audio/webm;codecs=opus", "audio/mp4", "audio/ogg;codecs=opus", "audio/webm"]
          .find((type) => window.MediaRecorder && MediaRecorder.isTypeSupported(type)) || "";
        const extension = (type) => type.startsWith("audio/mp4") ? "m4a" : type.startsWith("audio/ogg") \#
        ? "ogg" : "webm";

        function show(state, message = "") {
          recordButton.textContent = state === "recording" ? "Stop" : "Record";
          recordButton.setAttribute("aria-pressed", String(state === "recording"));
          recordButton.disabled = state === "starting" || state === "transcribing";
          $("cancel").hidden = !(state === "recording" || state === "transcribing");
          $("kept").hidden = !(state === "failed" && kept);
          $("record-status").textContent = message;
          document.body.dataset.recorder = state;
        }

        async function startRecording() {
          $("record-error").textContent = "";
          show("starting", "Asking for the microphone…");
          let stream;
          try {
            stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false, \#
        noiseSuppression: false, autoGainControl: false } });
          } catch (error) {
            show("idle");
            $("record-error").textContent = error.name === "NotAllowedError" ? "The microphone is blocked: allow it \#
        in the browser's site settings." : "No microphone: " + error.message;
            return;
          }
          const type = recordingType();
          recorder = new MediaRecorder(stream, type ? { mimeType: type, audioBitsPerSecond: 32000 } : {});
          const chunks = [];
          recorder.addEventListener("dataavailable", (event) => { if (event.data.size) chunks.push(event.data); });
          recorder.addEventListener("stop", () => {
            stream.getTracks().forEach((track) => track.stop());
            audioContext?.close(); audioContext = null;
            clearInterval(ticker); meter.value = 0;
            const cancelled = recorder.cancelled;
            const made = recorder.mimeType || type || "audio/webm";
            recorder = null;
            if (cancelled) { show("idle", "Recording discarded."); return; }
            kept = { blob: new Blob(chunks, { type: made }), name: "note." + extension(made), \#
        seconds: parseFloat(durationLabel.value) };
            pending.save(kept).then(transcribe);
          });
          // Recording starts first, so the meter's setup never costs the first words.
          recorder.start(250);
          const began = performance.now();
          // The level meter: RMS of the last 2048 samples, on a 60 dB scale.
          audioContext = new AudioContext();
          const analyser = audioContext.createAnalyser();
          analyser.fftSize = 2048;
          audioContext.createMediaStreamSource(stream).connect(analyser);
          const samples = new Float32Array(analyser.fftSize);
          ticker = setInterval(() => {
            analyser.getFloatTimeDomainData(samples);
            const rms = Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
            meter.value = Math.max(0, Math.min(1, (20 * Math.log10(rms || 1e-9) + 60) / 60));
            meter.textContent = meter.value.toFixed(2);
            durationLabel.value = ((performance.now() - began) / 1000).toFixed(1) + " s";
          }, 100);
          durationLabel.value = "0.0 s";
          show("recording", "Recording… press Stop when you are done.");
        }

        async function transcribe() {
          if (!kept) return;
          $("record-error").textContent = "";
          show("transcribing", "Transcribing " + kept.seconds.toFixed(1) + " s…");
          // Multipart as the mobile client sends it: the language first, then the file.
          const form = new FormData();
          form.append("language", $("language").value.trim());
          form.append("file", kept.blob, kept.name);
          const controller = new AbortController();
          uploading = controller;
          try {
            const response = await fetch("api/transcribe", { method: "POST", headers: auth(), body: form, \#
        signal: controller.signal });
            if (!response.ok) { $("record-error").textContent = await explain(response, "upload"); show("failed", \#
        "The recording is kept: Retry sends it again."); return; }
            const { text } = await response.json();
            $("transcript").value = text;
            kept = null;
            pending.clear();
            show("idle", text ? "" : "No speech was heard.");
          } catch (error) {
            if (error.name === "AbortError") { show("failed", "Transcription cancelled; the recording is kept."); \#
        return; }
            $("record-error").textContent = unreachable;
            show("failed", "The recording is kept: Retry sends it again.");
          } finally {
            if (uploading === controller) uploading = null;
          }
        }

        recordButton.addEventListener("click", () => { if (recorder) recorder.stop(); else startRecording(); });
        $("cancel").addEventListener("click", () => {
          if (recorder) { recorder.cancelled = true; recorder.stop(); } else uploading?.abort();
        });
        $("retry").addEventListener("click", transcribe);
        $("discard").addEventListener("click", () => { kept = null; pending.clear(); \#
        $("record-error").textContent = ""; show("idle", "Recording discarded."); });
        document.addEventListener("keydown", (event) => { if (event.key === "Escape" && !$("cancel").hidden) \#
        $("cancel").click(); });

        show("idle");
        loadVoices(true);
        pending.load().then((recording) => {
          if (!recording || kept || recorder) return;
          kept = recording;
          show("failed", "A recording of " + kept.seconds.toFixed(1) + " s from before is kept: Retry sends it.");
        });
        </script>
        </body>
        </html>
        """#
}

#!/usr/bin/env python3
"""A stand-in speech-to-text upstream for RemoteTranscriberTests.

usage: whisper_server.py LOG_FILE

Prints its port on stdout. Serves POST .../v1/audio/transcriptions and .../v1/audio/translations
(OpenAI-compatible) and .../api/transcribe (another speak serve), all multipart/form-data. It decodes no audio: the Nth
request of a scenario is transcribed as "piece N", in the requested response_format (json for
/api/transcribe). The first path component picks the behaviour, so each test sets it through the
upstream URL:

  /ok/...          200 with the transcript
  /fail503x2/...   503 for the first 2 requests, then 200
  /ratelimit1/...  429 with Retry-After: 1 for the first request, then 200
  /status401/...   401, echoing the Authorization header in the body (as a careless server might)
  /status400/...   400, likewise
  /html/...        200 with text/html

Each request is appended to LOG_FILE as a JSON line (path, authorization, content_type, fields,
files with their size and content type, time) before the answer is sent.
"""
import email.parser
import email.policy
import json
import sys

from fixture_http import FixtureHandler, serve


def parse_multipart(content_type, body):
    """Form fields as {name: text} and files as [{name, filename, content_type, size}]."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    fields, files = {}, []
    if not message.is_multipart():
        return fields, files
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if part.get_filename() is None:
            fields[name] = payload.decode()
        else:
            files.append({"name": name, "filename": part.get_filename(),
                          "content_type": part.get_content_type(), "size": len(payload),
                          "mp3": payload[:3] == b"ID3" or (len(payload) > 1 and payload[0] == 0xFF
                                                           and payload[1] & 0xE0 == 0xE0)})
    return fields, files


class Handler(FixtureHandler):
    log_path = sys.argv[1]

    def do_POST(self):
        content_type = self.headers.get("Content-Type", "")
        fields, files = parse_multipart(content_type, self.read_body())
        count = self.record(content_type=content_type, fields=fields, files=files)
        if self.path.endswith("/api/transcribe"):
            response_format = "json"
        elif self.path.endswith(("/v1/audio/transcriptions", "/v1/audio/translations")):
            response_format = fields.get("response_format", "json")
        else:
            return self.answer(404, "text/plain", b"no such endpoint")
        if self.failed(count,
                       lambda auth: ("application/json", b'{"error":{"message":"Invalid API Key ' + auth + b'"}}')):
            return
        text = f" piece {count}"
        # Whisper's own estimate would come from decoding; 32 kbps is 4000 bytes a second.
        duration = round(files[0]["size"] / 4000, 2) if files else 0
        if response_format == "text":
            return self.answer(200, "text/plain; charset=utf-8", (text.strip() + "\n").encode())
        if response_format == "verbose_json":
            reply = {"task": "transcribe", "language": "english", "duration": duration, "text": text,
                     "segments": [{"id": 0, "seek": 0, "start": 0.0, "end": duration / 2, "text": text},
                                  {"id": 1, "seek": 0, "start": duration / 2, "end": duration, "text": " end"}],
                     "x_groq": {"id": f"req_{count}"}}
            reply["text"] = text + " end"
        else:
            reply = {"text": text, "x_groq": {"id": f"req_{count}"}}
        self.answer(200, "application/json", json.dumps(reply).encode())


serve(Handler)

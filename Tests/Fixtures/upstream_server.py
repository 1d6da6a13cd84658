#!/usr/bin/env python3
"""A stand-in text-to-speech upstream for UpstreamClientTests.

usage: upstream_server.py MP3_FILE LOG_FILE

Prints its port on stdout. Serves POST .../v1/audio/speech and .../api/speak. The first path
component picks the behaviour, so each test sets it through the upstream URL:

  /ok/...          200 with the MP3 file
  /fail503x2/...   503 for the first 2 requests, then 200
  /ratelimit1/...  429 with Retry-After: 1 for the first request, then 200
  /status400/...   400, echoing the Authorization header in the body (as a careless server might)
  /status401/...   401, likewise
  /hang5/...       sleeps 5 s before answering
  /html/...        200 with text/html
  /redirect/...    302 to the same endpoint under /ok

Each request is appended to LOG_FILE as a JSON line (path, authorization, body, time) before the
answer is sent.
"""
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

mp3 = open(sys.argv[1], "rb").read()
log_path = sys.argv[2]
lock = threading.Lock()
counts = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        scenario = self.path.strip("/").split("/")[0]
        with lock:
            counts[scenario] = counts.get(scenario, 0) + 1
            count = counts[scenario]
            with open(log_path, "a") as log:
                log.write(json.dumps({
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "body": json.loads(body or b"null"),
                    "time": time.monotonic(),
                }) + "\n")
        if not (self.path.endswith("/v1/audio/speech") or self.path.endswith("/api/speak")):
            return self.answer(404, "text/plain", b"no such endpoint")
        auth = (self.headers.get("Authorization") or "").encode()
        if m := re.fullmatch(r"fail503x(\d+)", scenario):
            if count <= int(m[1]):
                return self.answer(503, "text/plain", b"busy")
        elif m := re.fullmatch(r"ratelimit(\d+)", scenario):
            if count == 1:
                return self.answer(429, "application/json", b'{"error":"slow down"}', {"Retry-After": m[1]})
        elif m := re.fullmatch(r"status(\d+)", scenario):
            return self.answer(int(m[1]), "text/plain", b"bad request from " + auth)
        elif m := re.fullmatch(r"hang(\d+)", scenario):
            time.sleep(int(m[1]))
        elif scenario == "redirect":
            location = self.path.replace("/redirect/", "/ok/", 1)
            return self.answer(302, "text/plain", b"moved", {"Location": location})
        elif scenario == "html":
            return self.answer(200, "text/html", b"<html><body>Sign in</body></html>")
        self.answer(200, "audio/mpeg", mp3)

    def answer(self, status, content_type, body, headers={}):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()

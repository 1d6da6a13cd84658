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
import time

from fixture_http import FixtureHandler, serve

mp3 = open(sys.argv[1], "rb").read()


class Handler(FixtureHandler):
    log_path = sys.argv[2]

    def do_POST(self):
        count = self.record(body=json.loads(self.read_body() or b"null"))
        if not (self.path.endswith("/v1/audio/speech") or self.path.endswith("/api/speak")):
            return self.answer(404, "text/plain", b"no such endpoint")
        if self.failed(count, lambda auth: ("text/plain", b"bad request from " + auth)):
            return
        if m := re.fullmatch(r"hang(\d+)", self.scenario):
            time.sleep(int(m[1]))
        elif self.scenario == "redirect":
            location = self.path.replace("/redirect/", "/ok/", 1)
            return self.answer(302, "text/plain", b"moved", {"Location": location})
        self.answer(200, "audio/mpeg", mp3)


serve(Handler)

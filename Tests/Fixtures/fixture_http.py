"""What the stand-in upstream servers share: logging each request, counting per scenario, the
failure scenarios picked by the first path component, answering, and serving on a free port."""
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lock = threading.Lock()
_counts = {}


class FixtureHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None  # set by each fixture

    def log_message(self, *args):
        pass

    @property
    def scenario(self):
        """The first path component: which behaviour the test asked for."""
        return self.path.strip("/").split("/")[0]

    def read_body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def record(self, **details):
        """Counts the request in its scenario and logs it with `details`; returns the count."""
        with _lock:
            _counts[self.scenario] = _counts.get(self.scenario, 0) + 1
            with open(self.log_path, "a") as log:
                log.write(json.dumps({"path": self.path, "authorization": self.headers.get("Authorization"),
                                      **details, "time": time.monotonic()}) + "\n")
            return _counts[self.scenario]

    def failed(self, count, error_body):
        """Answers the shared failure scenarios (fail503xN, ratelimitN, statusN, html); False if
        `scenario` is none of them. `error_body(auth)` is the statusN body, echoing the key."""
        auth = (self.headers.get("Authorization") or "").encode()
        scenario = self.scenario
        if m := re.fullmatch(r"fail503x(\d+)", scenario):
            if count > int(m[1]):
                return False
            self.answer(503, "text/plain", b"busy")
        elif m := re.fullmatch(r"ratelimit(\d+)", scenario):
            if count != 1:
                return False
            self.answer(429, "application/json", b'{"error":"slow down"}', {"Retry-After": m[1]})
        elif m := re.fullmatch(r"status(\d+)", scenario):
            content_type, body = error_body(auth)
            self.answer(int(m[1]), content_type, body)
        elif scenario == "html":
            self.answer(200, "text/html", b"<html><body>Sign in</body></html>")
        else:
            return False
        return True

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


def serve(handler):
    """Serves on a free port on loopback, printing the port first."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()

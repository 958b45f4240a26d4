#!/usr/bin/env python3
"""A misbehaving HTTP server for kcarry's download tests (test tooling).

usage: httpd.py DIR PORTFILE [CERT KEY]

Serves files of DIR and the failures a download must survive, on
127.0.0.1 (a free port, written to PORTFILE); with CERT and KEY over TLS.
Every request is logged to DIR/.log as one line:
    METHOD PATH STATUS inm=IF-NONE-MATCH ims=IF-MODIFIED-SINCE
A request for an absolute URI (a proxy request) is served as its path
and logged with 'proxy' in front.

    /files/NAME          NAME with an ETag; If-None-Match -> 304
    /lm/NAME             NAME with Last-Modified only; If-Modified-Since -> 304
    /status/CODE/...     status CODE, a short text body
    /flaky/N/NAME        500 for the first N requests of this path, then NAME
    /busy/S/NAME         503 with Retry-After: S the first time, then NAME
    /redirect/N/REST     302 to REST, '_' for '/' ('file:__etc_passwd')
    /huge/...            Content-Length: 5000000000, 64 KiB, then nothing
    /endless/...         no Content-Length, zeros for ever
    /drip/...            Content-Length: 100, one byte every 0.9 s
    /stall/...           Content-Length: 100, headers, then nothing
    /html/...            200, text/html: an error page
    /auth/USER:PASS/NAME NAME to Basic credentials USER:PASS, else 401
    /bighead/...         200 with a 10 MB header line
    /manyhead/...        200 with 10 MB of 1 KiB header lines
    /garbage/...         a status line that is no HTTP
    /continue/...        '100 Continue', a line of text, then the end
"""
import base64
import hashlib
import http.server
import os
import socketserver
import ssl
import sys
import threading
import time

ROOT = sys.argv[1]
LOG = os.path.join(ROOT, ".log")
LOCK = threading.Lock()
COUNTS = {}
LAST_MODIFIED = "Tue, 16 Apr 2024 13:08:02 GMT"


def count(path):
    with LOCK:
        COUNTS[path] = COUNTS.get(path, 0) + 1
        return COUNTS[path]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def log(self, status):
        with LOCK, open(LOG, "a") as f:
            f.write("%s%s %s %d inm=%s ims=%s\n" % (
                "proxy " if self.proxied else "", self.command, self.route,
                status, self.headers.get("If-None-Match", "-"),
                self.headers.get("If-Modified-Since", "-")))

    def reply(self, status, body=b"", ctype="text/plain", headers=()):
        self.log(status)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def file(self, name, etag=True, lm=False):
        path = os.path.join(ROOT, name)
        if not os.path.isfile(path):
            return self.reply(404, b"Not Found")
        data = open(path, "rb").read()
        tag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
        headers = []
        if etag:
            headers.append(("ETag", tag))
            if self.headers.get("If-None-Match") == tag:
                return self.reply(304, headers=headers)
        if lm:
            headers.append(("Last-Modified", LAST_MODIFIED))
            if self.headers.get("If-Modified-Since") == LAST_MODIFIED:
                return self.reply(304, headers=headers)
        ctype = "application/gzip" if name.endswith(".gz") else \
            "application/octet-stream"
        self.reply(200, data, ctype, headers)

    def do_POST(self):
        self.do_GET()

    def do_GET(self):
        self.proxied = self.path.startswith("http://")
        self.route = self.path
        if self.proxied:
            rest = self.path[len("http://"):]
            self.route = rest[rest.find("/"):] if "/" in rest else "/"
        parts = self.route.lstrip("/").split("/")
        kind, rest = parts[0], parts[1:]
        if kind == "files":
            return self.file("/".join(rest))
        if kind == "lm":
            return self.file("/".join(rest), etag=False, lm=True)
        if kind == "status":
            code = int(rest[0])
            return self.reply(code, b"error %d\n" % code)
        if kind == "flaky":
            if count(self.route) <= int(rest[0]):
                return self.reply(500, b"try again\n")
            return self.file("/".join(rest[1:]))
        if kind == "busy":
            if count(self.route) == 1:
                return self.reply(503, b"busy\n",
                                  headers=[("Retry-After", rest[0])])
            return self.file("/".join(rest[1:]))
        if kind == "redirect":
            target = "/".join(rest[1:]).replace("_", "/")
            self.log(302)
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "auth":
            want = "Basic " + base64.b64encode(rest[0].encode()).decode()
            if self.headers.get("Authorization") != want:
                return self.reply(401, b"who are you?\n",
                                  headers=[("WWW-Authenticate",
                                            'Basic realm="kcarry"')])
            return self.file("/".join(rest[1:]))
        if kind in ("bighead", "manyhead", "garbage", "continue"):
            self.log(0)
            try:
                if kind == "bighead":
                    self.wfile.write(b"HTTP/1.0 200 OK\r\nX-Big: " +
                                     b"x" * (10 << 20) + b"\r\n\r\n")
                elif kind == "manyhead":
                    self.wfile.write(b"HTTP/1.0 200 OK\r\n")
                    for i in range(10240):
                        self.wfile.write(b"X-Line-%d: %s\r\n" %
                                         (i, b"y" * 1000))
                    self.wfile.write(b"\r\n")
                elif kind == "garbage":
                    self.wfile.write(b"SPLAT 42 nonsense\r\n\r\nbody\n")
                else:
                    self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n"
                                     b"no final status\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if kind == "html":
            return self.reply(200, b"<!DOCTYPE html><html><body>Sorry, "
                              b"this mirror is down.</body></html>\n",
                              "text/html; charset=utf-8")
        if kind in ("huge", "endless", "drip", "stall"):
            self.log(200)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if kind == "huge":
                self.send_header("Content-Length", "5000000000")
            elif kind in ("drip", "stall"):
                self.send_header("Content-Length", "100")
            self.end_headers()
            try:
                if kind == "huge":
                    self.wfile.write(b"\0" * 65536)
                    time.sleep(30)
                elif kind == "endless":
                    chunk = b"\0" * 65536
                    while True:
                        self.wfile.write(chunk)
                elif kind == "drip":
                    for _ in range(100):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(0.9)
                else:
                    time.sleep(30)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.reply(404, b"Not Found")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) > 4:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, sys.argv[2])
    srv.serve_forever()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Measures the peak RSS of `cachechain batch` when its peer misbehaves.

    scripts/batch-memory.py slow-reader [--lines 60000] [--stall 15] [-- extra cachechain options]
    scripts/batch-memory.py gzip-bomb [--decoded-mib 600] [-- extra cachechain options]
    scripts/batch-memory.py large-bodies [--requests 128] [--body-mib 8] [--stall 15] [-- extra cachechain options]

slow-reader: the peer writes every request line at once (all for one cacheable 4 KiB response, so after the
first they are memory hits), then reads nothing for --stall seconds, then drains stdout.
gzip-bomb: one request for a response of about 600 KiB of gzip that decodes to --decoded-mib MiB of the letter a.
large-bodies: --requests requests at once, each for its own uncacheable body of --body-mib MiB (just under the
8 MiB inline limit by default), with the reader paused for --stall seconds: the batch memory bound,
about --max-in-flight x 3 x --max-inline-body.

The origin is a Python http.server on 127.0.0.1. RSS is sampled from /proc every 50 ms; the peak is VmHWM.
Uses .build/debug/cachechain unless CACHECHAIN_BINARY names another build.
"""
import gzip
import http.server
import json
import os
import subprocess
import sys
import threading
import time

BINARY = os.environ.get("CACHECHAIN_BINARY", os.path.join(os.path.dirname(__file__), "..", ".build", "debug", "cachechain"))


def start_origin(decoded_mib, body_bytes=0):
    small = b"x" * 4096
    large = b"y" * body_bytes
    bomb = gzip.compress(b"a" * (decoded_mib << 20), compresslevel=9) if decoded_mib else b""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            if self.path.startswith("/bomb"):
                body, fields = bomb, [("Content-Encoding", "gzip"), ("Cache-Control", "no-store")]
            elif self.path.startswith("/large"):
                body, fields = large, [("Cache-Control", "no-store")]
            else:
                body, fields = small, [("Cache-Control", "max-age=600")]
            self.send_response(200)
            for name, value in fields + [("Content-Length", str(len(body)))]:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer.request_queue_size = 1024  # the default backlog of 5 drops bursts of connections
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, len(bomb)


def rss_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0, True

    def run(self):
        while self.running:
            value = rss_kib(self.pid, "VmHWM")
            if value:
                self.peak = max(self.peak, value)
            time.sleep(0.05)


def main():
    arguments = sys.argv[1:]
    extra = arguments[arguments.index("--") + 1:] if "--" in arguments else []
    arguments = arguments[: arguments.index("--")] if "--" in arguments else arguments
    scenario = arguments[0] if arguments else "slow-reader"
    options = dict(zip(arguments[1::2], arguments[2::2]))
    lines = int(options.get("--lines", 60000))
    stall = float(options.get("--stall", 15))
    decoded_mib = int(options.get("--decoded-mib", 600)) if scenario == "gzip-bomb" else 0
    requests = int(options.get("--requests", 128))
    body_bytes = int(float(options.get("--body-mib", 7.9)) * 1048576) if scenario == "large-bodies" else 0

    origin, bomb_size = start_origin(decoded_mib, body_bytes)
    base = f"http://127.0.0.1:{origin.server_address[1]}"
    process = subprocess.Popen([BINARY, "batch"] + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write(b'{"type":"hello","protocol":1}\n')
    process.stdin.flush()
    process.stdout.readline()
    start_rss = rss_kib(process.pid, "VmRSS")
    sampler = Sampler(process.pid)
    sampler.start()
    started = time.monotonic()

    if scenario == "slow-reader":
        def write_all():
            for number in range(lines):
                process.stdin.write(json.dumps({"type": "request", "id": number, "url": base + "/small"}).encode() + b"\n")
            process.stdin.write(b'{"type":"end"}\n')
            process.stdin.close()

        writer = threading.Thread(target=write_all, daemon=True)
        writer.start()
        time.sleep(stall)
        rss_after_stall = rss_kib(process.pid, "VmRSS")
        replies = sum(1 for _ in process.stdout)
        writer.join()
        detail = f"{replies} replies; RSS after the {stall:.0f} s stall {rss_after_stall / 1024:.0f} MiB"
    elif scenario == "large-bodies":
        for number in range(requests):
            process.stdin.write(json.dumps({"type": "request", "id": number, "url": f"{base}/large?n={number}"}).encode() + b"\n")
        process.stdin.write(b'{"type":"end"}\n')
        process.stdin.flush()
        time.sleep(stall)
        rss_after_stall = rss_kib(process.pid, "VmRSS")
        process.stdin.close()
        replies = sum(1 for _ in process.stdout)
        detail = f"{requests} requests of {body_bytes / 1048576:.1f} MiB, {replies} replies; RSS after the {stall:.0f} s stall {rss_after_stall / 1024:.0f} MiB"
    else:
        process.stdin.write(json.dumps({"type": "request", "id": 1, "url": base + "/bomb"}).encode() + b"\n")
        process.stdin.write(b'{"type":"end"}\n')
        process.stdin.close()
        reply = process.stdout.readline()
        parsed = json.loads(reply)
        shown = {key: (value if len(str(value)) < 120 else f"<{len(str(value))} characters>") for key, value in parsed.items()}
        detail = f"gzip {bomb_size / 1024:.0f} KiB -> {decoded_mib} MiB; reply line {len(reply) / 1048576:.1f} MiB: {shown}"
        process.stdout.read()

    peak = max(sampler.peak, rss_kib(process.pid, "VmHWM") or 0)
    status = process.wait()
    sampler.running = False
    origin.shutdown()
    print(f"{scenario}: exit {status}, RSS at start {start_rss / 1024:.0f} MiB, peak {peak / 1024:.0f} MiB, "
          f"{time.monotonic() - started:.1f} s; {detail}")


if __name__ == "__main__":
    main()

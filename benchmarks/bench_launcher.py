"""Benchmark: what starting, watching and stopping a ``cmd:`` adapter costs, and what the model
gateway's guards cost per request.

    python benchmarks/bench_launcher.py [--megabytes N] [--repeat N]

1. An adapter that logs ``--megabytes`` MiB of 100-byte lines before its ready line, then as
   many again on stdout and on stderr before it answers ``GET /v1/info`` (a kit that does not
   drain its pipes blocks it): the time from start to an answered ``info``, and to stopped.
2. A quiet adapter: start to answered ``info``, and stop (every process of its family found by
   group, session, ancestry and marker: conformance/transports/processes.py).
3. One look at the adapter's descendants (the tracker does one every 0.2 s while it runs).
4. The gateway's nesting guard on a typical chat completion body (next to ``json.loads`` of
   it) and on an 8 MiB hostile one.

Medians of ``--repeat`` runs; figures only, no thresholds (docs/driver-api.md, "Security and
processes").
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time

from subagent_tck.conformance.transports.gateway_chat import nesting, parse_chat
from subagent_tck.conformance.transports.launcher import launch

ADAPTER = """
import json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
INFO = json.dumps({"name": "bench", "version": "0", "protocol": "1.0",
                   "editions": ["preset-composition"], "components": [],
                   "providers": [{"name": "spawn", "capabilities": []}]}).encode()
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(INFO)))
        self.end_headers()
        self.wfile.write(INFO)
def flood(fd, mebibytes):
    block = memoryview((b"x" * 99 + b"\\n") * 16384)
    for _ in range(-(-(mebibytes << 20) // len(block))):
        sent = 0
        while sent < len(block):
            sent += os.write(fd, block[sent:])
mebibytes = int(sys.argv[1])
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
flood(1, mebibytes)
print(f"SUBAGENT_TCK_READY http://127.0.0.1:{server.server_address[1]}", flush=True)
flood(1, mebibytes)
flood(2, mebibytes)
threading.Thread(target=server.serve_forever, daemon=True).start()
threading.Event().wait()
"""


def command(mebibytes: int) -> str:
    return shlex.join([sys.executable, "-c", ADAPTER, str(mebibytes)])


def start_and_stop(mebibytes: int) -> tuple[float, float]:
    started = time.perf_counter()
    target = launch(command(mebibytes), startup_timeout=120, timeout=120)
    ready = time.perf_counter()
    target.close()
    return ready - started, time.perf_counter() - ready


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    floods = [start_and_stop(args.megabytes) for _ in range(args.repeat)]
    print(f"{args.megabytes} MiB of log before the ready line and {2 * args.megabytes} MiB "
          f"after: info answered in {median_ms([f[0] for f in floods])}, stopped in "
          f"{median_ms([f[1] for f in floods])}")
    quiet = [start_and_stop(0) for _ in range(args.repeat)]
    print(f"a quiet adapter: info answered in {median_ms([q[0] for q in quiet])}, stopped in "
          f"{median_ms([q[1] for q in quiet])}")

    target = launch(command(0))
    try:
        family = target.adapter.family
        looks = []
        for _ in range(20):
            began = time.perf_counter()
            family.track()
            looks.append(time.perf_counter() - began)
        scans = []
        for _ in range(5):
            began = time.perf_counter()
            family.members()
            scans.append(time.perf_counter() - began)
    finally:
        target.close()
    print(f"one look at the descendants: {median_ms(looks)} (every 0.2 s while it runs); "
          f"finding the whole family at stop: {median_ms(scans)}")

    typical = json.dumps({"model": "m", "messages": [
        {"role": "system", "content": "You review code. " * 20},
        {"role": "user", "content": "go MARK"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "read", "arguments": "{\"path\": \"a\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "text " * 50}],
        "tools": [{"type": "function", "function": {"name": f"t{i}", "description": "d",
                   "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}}
                  for i in range(10)]}).encode()
    hostile = b"[" * (8 << 20)
    for label, work, times in (
        ("json.loads of a typical chat body", lambda: json.loads(typical), 2000),
        ("parse_chat (guard + json.loads) of it", lambda: parse_chat(typical), 2000),
        ("the exact nesting of it", lambda: nesting(typical), 2000),
        ("the nesting guard on an 8 MiB body of brackets", lambda: nesting(hostile), 3),
    ):
        began = time.perf_counter()
        for _ in range(times):
            work()
        each = (time.perf_counter() - began) / times
        print(f"{label}: {each * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Load on one ``lunzang serve`` (gunicorn, ``LOAD_WORKERS`` workers, default 2), loopback only
(``make bench BENCH_ARGS="-k load"``; figures, no asserts beyond "it answered").

``LOAD_CONNECTIONS`` (default 64) client threads for ``LOAD_SECONDS`` (default 30) each cycle
through four requests: a search page (``/cards?q=龙``), a card page, the collection API with a
token, and a static file. Printed: requests/s, p50/p99 per kind, errors (a status other than
200, or a failed connection), and search p50/p99 against the static file's (the ratio says how
much of a search's time is the app rather than the server and the client). Target: 0 errors,
p99 of search ≤ 10× its p50. SQLite with the sample catalogue; the client runs on the same
machine and takes its share of the cores, so the figures are a floor, not a capacity.
"""

from __future__ import annotations

import http.client
import os
import secrets
import statistics
import threading
import time
import urllib.parse
from collections import defaultdict
from pathlib import Path

from tests.kits.deploy import Server, lunzang

SECONDS = float(os.environ.get("LOAD_SECONDS", "30"))
CONNECTIONS = int(os.environ.get("LOAD_CONNECTIONS", "64"))
WORKERS = int(os.environ.get("LOAD_WORKERS", "2"))
PORT = int(os.environ.get("LOAD_PORT", "18162"))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def test_load(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LUNZANG_ENV", "DATABASE_URL")}
    env |= {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'load.sqlite3'}",
        "SECRET_KEY": secrets.token_hex(32),
        "LUNZANG_HTTPS": "0",
    }
    for args, stdin in ((["init-db", "--with-sample"], ""), (["user", "create", "loader"], "load password\n")):
        assert lunzang(args, env, stdin).returncode == 0
    made = lunzang(["user", "token", "loader"], env)
    token = next(w for w in made.stdout.split() if w.startswith("lz_"))
    server = Server(PORT, env, workers=WORKERS)
    server.start(tmp_path / "server.log")
    try:
        server.wait_healthy()
        requests = {
            "search": ("/cards?" + urllib.parse.urlencode({"q": "龙"}), {}),
            "card": ("/cards/samsara/" + urllib.parse.quote("小红帽·森林歌者"), {}),
            "collection API": ("/api/v1/collection", {"Authorization": f"Bearer {token}"}),
            "static": ("/static/style.css", {}),
        }
        latencies: dict[str, list[float]] = defaultdict(list)
        errors: dict[str, int] = defaultdict(int)
        lock = threading.Lock()
        deadline = time.monotonic() + SECONDS

        def client(index: int) -> None:
            kinds = list(requests)
            step = index
            while time.monotonic() < deadline:
                kind = kinds[step % len(kinds)]
                step += 1
                path, headers = requests[kind]
                started = time.perf_counter()
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
                    connection.request("GET", path, headers=headers)
                    response = connection.getresponse()
                    response.read()
                    ok = response.status == 200
                    connection.close()
                except OSError:
                    ok = False
                elapsed = time.perf_counter() - started
                with lock:
                    latencies[kind].append(elapsed)
                    if not ok:
                        errors[kind] += 1

        started = time.monotonic()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(CONNECTIONS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - started
    finally:
        server.stop()
    total = sum(len(v) for v in latencies.values())
    lines = [
        f"\n{CONNECTIONS} connections × {SECONDS:.0f} s against one lunzang serve ({WORKERS} gunicorn workers, "
        f"SQLite, sample catalogue), client on the same machine (load {os.getloadavg()[0]:.1f}):",
        f"  {total} requests in {wall:.1f} s = {total / wall:.0f} requests/s, errors {sum(errors.values())}",
    ]
    for kind, values in latencies.items():
        lines.append(
            f"  {kind:15} {len(values) / wall:6.0f}/s  p50 {statistics.median(values) * 1000:7.1f} ms  "
            f"p99 {_percentile(values, 0.99) * 1000:7.1f} ms  errors {errors[kind]}"
        )
    search, static = latencies["search"], latencies["static"]
    lines.append(
        f"  search/static: p50 ×{statistics.median(search) / statistics.median(static):.1f}, "
        f"p99 ×{_percentile(search, 0.99) / _percentile(static, 0.99):.1f}; "
        f"search p99/p50 = {_percentile(search, 0.99) / statistics.median(search):.1f} (target ≤ 10)"
    )
    print("\n".join(lines))
    assert total > 0

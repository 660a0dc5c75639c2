"""Redis away must not lock anyone out.

A real ``redis-server`` on a throwaway port (``LUNZANG_TEST_REDIS_PORT``, default 6390), started
and stopped by the test: with it up the sign-in counters live there; stopped, sign-in keeps
working (right password: signed in; wrong ones still limited) on each process's own limiter,
logged and shown by ``/healthz``; started again, the counters go back to it.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from tests.conftest import TEST_PASSWORD


def _free_port() -> int:
    """A port nothing listens on now (two suites on one machine must not share a redis-server)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


PORT = int(os.environ.get("LUNZANG_TEST_REDIS_PORT") or _free_port())
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"

pytestmark = pytest.mark.skipif(not Path(REDIS).exists(), reason="redis-server is not installed")


class RedisServer:
    """One ``redis-server`` on 127.0.0.1:PORT, nothing saved to disk."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.process = folder, None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS, "--port", str(PORT), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", PORT), timeout=0.2) as connection:
                    connection.sendall(b"PING\r\n")
                    if connection.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {PORT}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def keys(self) -> int:
        import redis

        return int(redis.Redis(port=PORT, socket_timeout=2).dbsize())


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def shared_app(database_url: str, redis_server: RedisServer, make_user: Any) -> Iterator[Any]:
    from webapp import create_app
    from webapp.db import get_engine
    from webapp.extensions import limiter

    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "k" * 32,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{PORT}/0",
        }
    )
    with Session(get_engine(app)) as session, session.begin():
        make_user(session, "alice", password=TEST_PASSWORD)
    yield app
    limiter._storage_dead = False  # the limiter object outlives this app


def _sign_in(app: Any, password: str = TEST_PASSWORD) -> int:
    return app.test_client().post("/login", data={"username": "alice", "password": password}).status_code


def test_sign_in_survives_redis_going_away_and_comes_back_to_it(
    shared_app: Any, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = shared_app.test_client()
    assert client.get("/healthz").get_json()["rate_limit_store"] == "ok"
    assert _sign_in(shared_app, "wrong password") == 401  # refused, counted in Redis
    assert redis_server.keys() > 0
    assert _sign_in(shared_app) == 302

    redis_server.stop()
    with caplog.at_level(logging.WARNING):
        assert _sign_in(shared_app) == 302  # was a bare 500
    assert any("falling back to in-memory" in r.getMessage() for r in caplog.records)
    assert client.post("/register", data={"username": "bob", "password": TEST_PASSWORD,
                                          "confirm": TEST_PASSWORD}).status_code == 302  # fmt: skip
    health = client.get("/healthz")
    body = health.get_json()
    assert health.status_code == 200 and body["status"] == "degraded" and body["database"] == "ok"
    assert "redis" in body["rate_limit_store"] and "per process" in body["rate_limit_store"]
    # still limited, per process: 5 wrong passwords for one name, then 429 even for the right one
    assert [_sign_in(shared_app, "wrong password") for _ in range(5)] == [401] * 5
    assert _sign_in(shared_app) == 429

    redis_server.start()  # empty: a fresh server
    deadline = time.monotonic() + 70  # Flask-Limiter re-checks the store with a backoff (1, 2, 4 … 32 s)
    while time.monotonic() < deadline and redis_server.keys() == 0:
        _sign_in(shared_app, "another wrong password")
        time.sleep(0.5)
    assert redis_server.keys() > 0, "the counters never went back to Redis"
    assert shared_app.test_client().get("/healthz").get_json() == {
        "status": "ok", "database": "ok", "rate_limit_store": "ok"
    }  # fmt: skip


def test_serve_check_names_the_fallback(shared_app: Any, redis_server: RedisServer, database_url: str) -> None:
    from tests.kits.deploy import lunzang

    env = {k: v for k, v in os.environ.items() if k != "LUNZANG_ENV"}
    env |= {
        "DATABASE_URL": database_url,
        "SECRET_KEY": "k" * 32,
        "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{PORT}/0",
    }
    assert lunzang(["serve", "--check"], env).returncode == 0
    redis_server.stop()
    down = lunzang(["serve", "--check"], env)
    assert down.returncode == 1 and "rate_limit_store: redis does not answer" in down.stderr
    assert "per process" in down.stderr

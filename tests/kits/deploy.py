"""Running real ``lunzang serve`` servers for the deployment tests and the load benchmark.

Servers are gunicorn processes started here, on loopback ports, stopped by their own process
group id at the end (never by name).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LUNZANG = [sys.executable, "-m", "webapp"]


def lunzang(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LUNZANG, *args], env=env, input=stdin, capture_output=True, text=True, timeout=300, check=False
    )


@dataclass
class Server:
    """One ``lunzang serve`` (gunicorn master + workers) on 127.0.0.1:port."""

    port: int
    env: dict[str, str]
    workers: int = 2
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, log: Path) -> None:
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [*LUNZANG, "serve", "--port", str(self.port), "--workers", str(self.workers)],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped as one at the end
            )

    def wait_healthy(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None and self.process.poll() is None, self.tail()
            try:
                status, _body = Client(self.url).get("/healthz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"{self.url} never became healthy:\n{self.tail()}")

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        found = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.process.pid)], capture_output=True, text=True)
        return [int(p) for p in found.stdout.split()]

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log and self.log.exists() else ""

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)  # the group this Popen created, by its id
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Client:
    """A tiny HTTP client with a cookie jar (shared between servers, as a browser's would be
    behind one load balancer) that returns (status, body) instead of raising on 4xx/5xx."""

    base: str
    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)
    timeout: float = 30

    def _open(self, request: urllib.request.Request) -> tuple[int, bytes]:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())
        try:
            with opener.open(request, timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read()

    def get(self, path: str, headers: dict[str, str] | None = None, base: str | None = None) -> tuple[int, bytes]:
        return self._open(urllib.request.Request((base or self.base) + path, headers=headers or {}))

    def post_form(self, path: str, data: dict[str, str], base: str | None = None) -> tuple[int, bytes]:
        body = urllib.parse.urlencode(data).encode()
        return self._open(urllib.request.Request((base or self.base) + path, data=body, method="POST"))

    def post_json(
        self, path: str, data: Any, headers: dict[str, str] | None = None, base: str | None = None
    ) -> tuple[int, bytes]:
        request = urllib.request.Request(
            (base or self.base) + path,
            data=json.dumps(data).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
            method="POST",
        )
        return self._open(request)

    def csrf(self, path: str, base: str | None = None) -> str:
        status, body = self.get(path, base=base)
        assert status == 200, status
        match = re.search(rb'name="csrf_token" value="([^"]+)"', body)
        assert match, body[:500]
        return match.group(1).decode()

    def sign_in(self, username: str, password: str, base: str | None = None) -> int:
        token = self.csrf("/login", base=base)
        data = {"csrf_token": token, "username": username, "password": password}
        return self.post_form("/login", data, base=base)[0]


REDIS_URL = os.environ.get("LUNZANG_ANSWERS_REDIS", "redis://127.0.0.1:6379/5")


def redis_answers() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping())
    except Exception:
        return False

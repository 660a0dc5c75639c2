"""two ``lunzang serve`` on one PostgreSQL database and one Redis keep the catalogue's
answers in Redis, and after an import (on the command line, on neither server) both answer from
the new catalogue at once: the key of every kept answer holds the catalogue versions each
request reads in its own transaction.

Runs when the suite runs on PostgreSQL (``DATABASE_URL``) and Redis answers: its database is
the suite's name + ``_answers`` (created and dropped here), Redis ``LUNZANG_ANSWERS_REDIS``
(default db 5 of the local one: kept answers are named by a hash of the database URL, so
nothing is flushed). Ports ``LUNZANG_ANSWERS_PORT`` and the next one (default 18166).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy.engine import make_url

from catalog import db as catalog_db
from tests.conftest import ON_POSTGRES, POSTGRES_URL
from tests.kits.deploy import REDIS_URL, Client, Server, lunzang, redis_answers
from tests.kits.ingest import ROWS, write_folder

FIRST_PORT = int(os.environ.get("LUNZANG_ANSWERS_PORT", "18166"))

pytestmark = pytest.mark.skipif(
    not (ON_POSTGRES and redis_answers()), reason="needs the suite on PostgreSQL (DATABASE_URL) and Redis"
)


def _recreate(url: str) -> None:
    parsed = make_url(url)
    server = catalog_db.make_engine(parsed.set(database="postgres").render_as_string(hide_password=False))
    with server.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
        connection.exec_driver_sql(f'CREATE DATABASE "{parsed.database}"')
    server.dispose()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    parsed = make_url(POSTGRES_URL)
    url = parsed.set(database=f"{parsed.database}_answers").render_as_string(hide_password=False)
    _recreate(url)
    env = {k: v for k, v in os.environ.items() if k not in ("LUNZANG_ENV", "FLASK_APP")}
    env |= {
        "DATABASE_URL": url,
        "SECRET_KEY": secrets.token_hex(32),
        "RATELIMIT_STORAGE_URI": REDIS_URL,  # the answers follow it into Redis
        "LUNZANG_HTTPS": "0",
    }
    done = lunzang(["init-db", "--with-sample"], env)
    assert done.returncode == 0, done.stderr
    logs = tmp_path_factory.mktemp("answer-servers")
    running = [Server(FIRST_PORT + i, env) for i in range(2)]
    try:
        for server in running:
            server.start(logs / f"server{server.port}.log")
        for server in running:
            server.wait_healthy()
        yield {"env": env, "servers": running, "folder": tmp_path_factory.mktemp("import")}
    finally:
        for server in running:
            server.stop()
        _drop(url)


def _drop(url: str) -> None:
    parsed = make_url(url)
    server = catalog_db.make_engine(parsed.set(database="postgres").render_as_string(hide_password=False))
    with server.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
    server.dispose()


def _sets(server: Server) -> list[str]:
    status, body = Client(server.url).get("/api/v1/sets")
    assert status == 200
    return [f"{s['game']}/{s['code']}" for s in json.loads(body)["sets"]]


def test_after_an_import_every_server_answers_from_the_new_catalogue(servers: dict[str, Any]) -> None:
    a, b = servers["servers"]
    card = "/api/v1/cards/samsara/" + quote("孙悟空")
    before = {server.port: (_sets(server), Client(server.url).get(card)) for server in (a, b)}
    assert before[a.port] == before[b.port]  # the same kept answer on both
    etag_status, _ = Client(a.url).get("/api/v1/sets", headers={"If-None-Match": "*"})
    assert etag_status in (200, 304)
    assert "samsara/T1" not in before[a.port][0]
    for _round in range(3):  # kept now: every worker of both has answered
        assert _sets(a) == _sets(b) == before[a.port][0]

    folder: Path = servers["folder"]
    changed = [row.replace("进场时抽一张牌。", "进场时抽两张牌。") for row in ROWS]
    done = lunzang(["import", str(write_folder(folder, rows=changed))], servers["env"])
    assert done.returncode == 0, done.stdout + done.stderr

    for server in (a, b):
        for _round in range(4):  # each worker of each server, the first answer after the import
            assert "samsara/T1" in _sets(server)
            status, body = Client(server.url).get("/api/v1/cards/samsara/" + quote("火龙"))
            assert status == 200 and "进场时抽两张牌。" in json.loads(body)["text"]

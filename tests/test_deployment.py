"""the deployment of DESIGN §9, for real.

Two ``lunzang serve`` instances (gunicorn, 2 workers each) on two loopback ports share one
PostgreSQL database and one Redis. Proven here: a session and a token made on one work on the
other; the sign-in limit counts across both; concurrent collection writes spread over both keep
the ledger exact; a worker killed with ``kill -9`` mid-request loses nothing; the database
connections cut under load (``pg_terminate_backend`` on this database's connections — not a
cluster restart: other test runs share the cluster) give 503s at most, never a 500, and the
servers recover on their own (``pool_pre_ping``).

Runs when the suite runs on PostgreSQL (``DATABASE_URL``) and Redis answers: its database is
the suite's name + ``_deploy`` (created and dropped here), Redis ``LUNZANG_DEPLOY_REDIS``
(default ``redis://127.0.0.1:6379/15``, flushed first). Ports ``LUNZANG_DEPLOY_PORT`` and the
next one (default 18160).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlmodel import Session

from catalog import db as catalog_db
from tests.conftest import ON_POSTGRES, POSTGRES_URL
from tests.kits.deploy import Client, Server, lunzang

REDIS_URL = os.environ.get("LUNZANG_DEPLOY_REDIS", "redis://127.0.0.1:6379/15")
FIRST_PORT = int(os.environ.get("LUNZANG_DEPLOY_PORT", "18160"))
PASSWORD = "deployment password"


def _redis_answers() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping())
    except Exception:
        return False


pytestmark = pytest.mark.skipif(
    not (ON_POSTGRES and _redis_answers()), reason="needs the suite on PostgreSQL (DATABASE_URL) and Redis"
)


def _deploy_url() -> str:
    url = make_url(POSTGRES_URL)
    return url.set(database=f"{url.database}_deploy").render_as_string(hide_password=False)


def _recreate(url: str) -> None:
    parsed = make_url(url)
    server = catalog_db.make_engine(parsed.set(database="postgres").render_as_string(hide_password=False))
    with server.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
        connection.exec_driver_sql(f'CREATE DATABASE "{parsed.database}"')
    server.dispose()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    import redis

    url = _deploy_url()
    _recreate(url)
    redis.Redis.from_url(REDIS_URL).flushdb()
    env = {k: v for k, v in os.environ.items() if k not in ("LUNZANG_ENV", "FLASK_APP")}
    env |= {
        "DATABASE_URL": url,
        "SECRET_KEY": secrets.token_hex(32),  # the one key every server shares
        "RATELIMIT_STORAGE_URI": REDIS_URL,
        "LUNZANG_HTTPS": "0",  # plain HTTP on loopback
    }
    for args, stdin in ((["init-db", "--with-sample"], ""), (["user", "create", "alice"], PASSWORD + "\n")):
        done = lunzang(args, env, stdin)
        assert done.returncode == 0, done.stderr
    made = lunzang(["user", "token", "alice", "--name", "deploy"], env)
    assert made.returncode == 0, made.stderr
    token = next(w for w in made.stdout.split() if w.startswith("lz_"))
    logs = tmp_path_factory.mktemp("servers")
    servers = [Server(FIRST_PORT + i, env) for i in range(2)]
    try:
        for server in servers:
            server.start(logs / f"server{server.port}.log")
        for server in servers:
            server.wait_healthy()
        yield {"url": url, "servers": servers, "token": token, "env": env}
    finally:
        for server in servers:
            server.stop()


def _bearer(deployment: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {deployment['token']}"}


def test_health_names_the_database_and_redis(deployment: dict[str, Any]) -> None:
    for server in deployment["servers"]:
        status, body = Client(server.url).get("/healthz")
        assert status == 200 and json.loads(body) == {"status": "ok", "database": "ok", "rate_limit_store": "ok"}
    check = lunzang(["serve", "--check"], deployment["env"])
    assert check.returncode == 0 and "rate_limit_store: ok" in check.stdout
    unreachable = lunzang(["serve", "--check"], deployment["env"] | {"RATELIMIT_STORAGE_URI": "redis://127.0.0.1:1/0"})
    assert unreachable.returncode == 1


def test_a_session_and_a_token_from_one_server_work_on_the_other(deployment: dict[str, Any]) -> None:
    a, b = deployment["servers"]
    browser = Client(a.url)
    assert browser.sign_in("alice", PASSWORD) == 302
    for server in (a, b):
        status, body = browser.get("/account", base=server.url)
        assert status == 200 and "alice" in body.decode()
        status, body = Client(server.url).get("/api/v1/me", headers=_bearer(deployment))
        assert status == 200 and json.loads(body)["username"] == "alice"
    # A form rendered by one server is accepted by the other (same key, same CSRF secret).
    token = browser.csrf("/account", base=a.url)
    status, _body = browser.post_form("/account/lists", {"csrf_token": token, "lists_public": "y"}, base=b.url)
    assert status == 302


def test_the_sign_in_limit_counts_across_both_servers(deployment: dict[str, Any]) -> None:
    a, b = deployment["servers"]
    statuses = []
    for attempt in range(6):  # 5 failures a minute per name and address: 3 on each server
        client = Client((a, b)[attempt % 2].url)
        statuses.append(client.sign_in("alice", "wrong password"))
    assert statuses == [401] * 5 + [429]


def _writer(
    server_urls: list[str], headers: dict[str, str], count: int, seed: int, outcomes: list[tuple[int, int | str]]
) -> None:
    rng = random.Random(seed)
    for index in range(count):
        client = Client(server_urls[index % len(server_urls)], timeout=60)
        delta = rng.choice((1, 1, -1))
        body = {"set": "M4", "number": "M4-002", "delta": delta}
        try:
            status: int | str = client.post_json("/api/v1/collection/items", body, headers=headers)[0]
        except (OSError, http.client.HTTPException) as error:  # the connection died with its worker: unconfirmed
            # (IncompleteRead: the worker died between the response's headers and its body)
            status = type(error).__name__
        outcomes.append((delta, status))


def _quantity_and_ledger(url: str) -> tuple[int, list[str]]:
    from catalog.collection.ledger import check_ledger

    engine = catalog_db.make_engine(url)
    with Session(engine) as session:
        quantity = session.execute(
            text(
                "SELECT COALESCE(SUM(ci.quantity), 0) FROM collection_item ci JOIN printing p ON p.id = ci.printing_id "
                "WHERE p.number = 'M4-002'"
            )
        ).scalar_one()
        problems = check_ledger(session)
    engine.dispose()
    return int(quantity), problems


def _spread_writes(deployment: dict[str, Any], urls: list[str], threads: int, each: int, during: Any = None) -> Any:
    outcomes: list[tuple[int, int | str]] = []
    before, _ = _quantity_and_ledger(deployment["url"])
    workers = [
        threading.Thread(target=_writer, args=(urls, _bearer(deployment), each, seed, outcomes))
        for seed in range(threads)
    ]
    for worker in workers:
        worker.start()
    if during is not None:
        during()
    for worker in workers:
        worker.join()
    after, problems = _quantity_and_ledger(deployment["url"])
    return before, after, problems, outcomes


def test_concurrent_writes_spread_over_both_servers_keep_the_ledger_exact(deployment: dict[str, Any]) -> None:
    urls = [s.url for s in deployment["servers"]]
    before, after, problems, outcomes = _spread_writes(deployment, urls, threads=8, each=25)
    statuses = Counter(status for _delta, status in outcomes)
    assert set(statuses) <= {200, 409}, statuses
    confirmed = sum(delta for delta, status in outcomes if status == 200)
    assert after == before + confirmed and not problems


def test_a_worker_killed_mid_request_loses_nothing(deployment: dict[str, Any]) -> None:
    a = deployment["servers"][0]
    killed: list[int] = []

    def kill_one_worker() -> None:
        time.sleep(1.0)
        pid = a.worker_pids()[0]
        os.kill(pid, signal.SIGKILL)  # a worker this test's server started, by its id
        killed.append(pid)

    before, after, problems, outcomes = _spread_writes(deployment, [a.url], threads=6, each=25, during=kill_one_worker)
    assert killed and not problems
    statuses = Counter(status for _delta, status in outcomes)
    assert 500 not in statuses and set(statuses) - {200, 409} <= {
        "RemoteDisconnected",
        "ConnectionResetError",
        "URLError",
        "IncompleteRead",
    }
    confirmed = sum(delta for delta, status in outcomes if status == 200)
    unconfirmed = [delta for delta, status in outcomes if not isinstance(status, int)]
    # Every confirmed write is there; an unconfirmed one is there whole or not at all.
    assert after - before - confirmed in {sum(s) for s in _subsets(unconfirmed)}
    a.wait_healthy()  # the master replaced the worker
    print(f"\nkill -9 of worker {killed[0]} mid-load: {dict(statuses)}")


def _subsets(values: list[int]) -> list[list[int]]:
    ups, downs = values.count(1), values.count(-1)
    return [[1] * u + [-1] * d for u in range(ups + 1) for d in range(downs + 1)]


def test_cut_database_connections_give_503_at_most_and_recover(deployment: dict[str, Any]) -> None:
    urls = [s.url for s in deployment["servers"]]
    url = deployment["url"]
    reads: list[int | str] = []
    stop = threading.Event()

    def reader(index: int) -> None:
        while not stop.is_set():
            client = Client(urls[index % 2], timeout=60)
            try:
                reads.append(client.get("/api/v1/collection", headers=_bearer(deployment))[0])
            except OSError as error:
                reads.append(type(error).__name__)

    def cut() -> None:
        time.sleep(1.0)
        engine = catalog_db.make_engine(url)
        database = make_url(url).database
        with engine.connect() as connection:
            cut_count = connection.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = :db AND pid <> pg_backend_pid()"
                ),
                {"db": database},
            ).scalar_one()
            connection.commit()
        engine.dispose()
        print(f"\nterminated {cut_count} connections of {database}")
        time.sleep(2.0)

    readers = [threading.Thread(target=reader, args=(i,)) for i in range(4)]
    for thread in readers:
        thread.start()
    before, after, problems, outcomes = _spread_writes(deployment, urls, threads=4, each=20, during=cut)
    stop.set()
    for thread in readers:
        thread.join()
    statuses = Counter(status for _delta, status in outcomes) + Counter(reads)
    print(f"statuses during the cut: {dict(statuses)}")
    tracebacks = [s.log.read_text(errors="replace") for s in deployment["servers"] if s.log]
    assert 500 not in statuses and set(statuses) <= {200, 409, 503}, (statuses, [t[-4000:] for t in tracebacks])
    confirmed = sum(delta for delta, status in outcomes if status == 200)
    assert after == before + confirmed and not problems
    for server_url in urls:  # recovered on their own
        assert Client(server_url).get("/api/v1/collection", headers=_bearer(deployment))[0] == 200

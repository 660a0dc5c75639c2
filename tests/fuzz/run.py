"""``make fuzz``: schemathesis against a live ``lunzang serve`` (bounded: ``FUZZ_SECONDS``).

A throwaway SQLite database with the sample catalogue; one server on 127.0.0.1:``FUZZ_PORT``
(default 18163), stopped at the end. Every operation of ``/api/v1/openapi.json`` gets
``FUZZ_EXAMPLES`` generated cases (default 40) with every check (server errors, status codes,
content types, response schemas, headers …), then the stateful phase follows the document's
OpenAPI links: a proposed trade is read, countered, accepted, cancelled, sent,
received, disputed; an event's pairings lead to its results.

What the run needs to get past "nothing of that name" is seeded first (:func:`seed`): the fuzzer
(an organiser) and a partner holding cards for trade, offers from the partner waiting for the
fuzzer and accepted mail trades, an event open for registration and one whose round 1 is paired.
Schemathesis runs on the live document with the fields that must name seeded data narrowed to it
(:func:`fuzz_profile`: the partner's name, the seeded cards, a legal decklist …) — everything
else is generated as the document allows. At the end: the share of operations that got at least
one 2xx answer (from schemathesis' HAR report). Exit status: schemathesis's (0 = no failure), or 1
when that share is under ``FUZZ_MIN_2XX`` (default 0.9).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from tests.kits.deploy import Client, Server, lunzang  # noqa: E402

PORT = int(os.environ.get("FUZZ_PORT", "18163"))
EXAMPLES = os.environ.get("FUZZ_EXAMPLES", "40")
TIME_LIMIT = int(os.environ.get("FUZZ_SECONDS", "300"))
MIN_SHARE = float(os.environ.get("FUZZ_MIN_2XX", "0.9"))
KEEP_HAR = os.environ.get("FUZZ_HAR")  # a path: the run's HAR report is copied there

CARDS = ("M4-001", "M4-002", "M4-003")  # in the sample catalogue; both users hold many for trade
STOCK = 900


def _run(args: list[str], env: dict[str, str], stdin: str = "") -> str:
    done = lunzang(args, env, stdin)
    if done.returncode:
        raise RuntimeError(f"lunzang {' '.join(args)}: {done.stderr.strip()}")
    return str(done.stdout)


def prepare(env: dict[str, str]) -> dict[str, Any]:
    """The database before the server starts: catalogue, users, tokens, collections, events —
    written here after ``init-db`` (each ``lunzang`` command would be a Python start of its own)."""
    from datetime import UTC, date, datetime

    from catalog import db as catalog_db
    from catalog.accounts import create_user, issue_token
    from catalog.collection.imports import import_collection
    from catalog.events import registration, running
    from tests.kits.deck import legal_samsara_list

    _run(["init-db", "--with-sample"], env)
    now = datetime.now(UTC)
    stock = "set,number,quantity,for_trade\n" + "".join(f"M4,{n},{STOCK},{STOCK}\n" for n in CARDS)
    engine = catalog_db.make_engine(env["DATABASE_URL"])
    try:
        tokens, ids = {}, {}
        with catalog_db.transaction(engine, write=True) as session:
            for name, role in (("fuzzer", "organizer"), ("partner", "user")):
                user = create_user(session=session, username=name, password="fuzz password", role=role, now=now,
                                   hash_method="pbkdf2:sha256:1")  # fmt: skip
                session.flush()
                assert user.id is not None
                ids[name] = user.id
                tokens[name] = issue_token(session=session, user=user, now=now)[1]
                import_collection(session=session, user_id=user.id, data=stock.encode(), now=now)
            # no store: the fuzzer, who made the events, manages them (a store's events are
            # managed by its staff, and the fuzzer is on none: walk-ins would answer 403)
            shared: dict[str, Any] = {"game": "samsara", "format_code": "standard", "now": now}
            # the walk-ins below bring no decks: the event plays on and flags them (the default
            # policy, "required", refuses to pair them)
            event = registration.create_event(
                session=session, name="进行中", date=date(2026, 12, 5), organizer_id=ids["fuzzer"],
                deck_policy="flag", **shared,
            )  # fmt: skip
            for player in ("甲", "乙", "丙", "丁", "戊", "己"):
                registration.register_player(session=session, event=event, player_name=player, now=now)
            running.pair_next_round(session=session, event=event, seed=1, now=now)
            paired = event.id
            registration.create_event(
                session=session, name="报名中", date=date(2026, 12, 31), organizer_id=ids["fuzzer"], **shared
            )
        return {"tokens": tokens, "deck": legal_samsara_list(engine), "paired": paired}
    finally:
        engine.dispose()


def seed_trades(url: str, tokens: dict[str, str]) -> None:
    """Offers from the partner waiting for the fuzzer (accept, decline, counter them) and
    accepted mail trades (sent, received, dispute): what the API alone cannot make, since a
    token acts only for its own user."""
    client = Client(url + "/api/v1")
    partner, fuzzer = ({"Authorization": f"Bearer {tokens[n]}"} for n in ("partner", "fuzzer"))
    line = {"set": "M4", "number": CARDS[0], "quantity": 1}
    # The first three are accepted at once (local: completed): accounts with fewer completed
    # trades may hold only 5 open offers (TradeSettings), which the run would reach in seconds.
    for i in range(15):
        mail = i >= 3 and i % 2 == 1
        offer = {
            "to": "fuzzer",
            "give": [line],
            "get": [dict(line, number=CARDS[1])],
            "mode": "mail" if mail else "local",
        }
        status, body = client.post_json("/trades", offer, headers=partner)
        if status != 201:
            raise RuntimeError(f"seeding a trade: {status} {body[:200]!r}")
        if i < 3 or i % 4 == 1:  # accepted: completed (local), or sent/received/dispute to come (mail)
            trade = json.loads(body)
            status, body = client.post_json(f"/trades/{trade['id']}/accept", {"version": 1}, headers=fuzzer)
            if status != 200:
                raise RuntimeError(f"accepting a seeded trade: {status} {body[:200]!r}")


def fuzz_profile(document: dict[str, Any], deck: str, paired: int) -> dict[str, Any]:
    """The live document with the fields that must name seeded data narrowed to it."""
    schemas = document["components"]["schemas"]
    card = {"type": "string", "enum": list(CARDS)}
    schemas["TradeLineIn"] = {
        "type": "object",
        "required": ["set", "number", "quantity"],
        "properties": {
            "set": {"type": "string", "enum": ["M4"]},
            "number": card,
            "quantity": {"type": "integer", "minimum": 1, "maximum": 2},
        },
    }
    lines = {"type": "array", "items": {"$ref": "#/components/schemas/TradeLineIn"}, "minItems": 1, "maxItems": 2}
    schemas["TradeOffer"]["properties"] |= {"to": {"type": "string", "enum": ["partner"]}, "give": lines, "get": lines}
    counter = document["paths"]["/trades/{trade_id}/counter"]["post"]["requestBody"]["content"]["application/json"]
    counter["schema"]["properties"] |= {"give": lines, "get": lines}
    schemas["CollectionChange"]["properties"] |= {"set": {"type": "string", "enum": ["M4"]}, "number": card}
    schemas["PackOpenRequest"]["properties"]["set"] = {"type": "string", "enum": ["M4", "M5"]}
    schemas["DeckCheckRequest"] = {
        "type": "object",
        "required": ["decklist"],
        "properties": {"decklist": {"type": "string", "enum": [deck]}, "game": {"type": "string", "enum": ["samsara"]}},
    }
    for path, name, values in (
        ("/packs/odds", "set", ["M4", "M5"]),
        ("/cards/{game_slug}/{name}", "game_slug", ["samsara"]),
        ("/cards/{game_slug}/{name}", "name", ["小红帽·森林歌者", "小红帽·狼猎手"]),
    ):
        for operation in document["paths"][path].values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == name:
                    parameter["schema"] = {"type": "string", "enum": values}
    for operation in document["paths"]["/decks/check"].values():
        operation["parameters"] = [p for p in operation.get("parameters", []) if p["name"] not in ("game", "format")]
        operation["requestBody"]["content"] = {
            "application/json": {"schema": {"$ref": "#/components/schemas/DeckCheckRequest"}}
        }
    body = document["paths"]["/collection/import"]["post"]["requestBody"]
    body["content"] = {"text/csv": {"schema": {"type": "string", "enum": [f"set,number,quantity\nM4,{CARDS[2]},1\n"]}}}
    register = document["paths"]["/events/{event_id}/registrations"]["post"]["requestBody"]["content"]
    register["application/json"]["schema"]["properties"]["deck"] = {"type": "string", "enum": [deck]}
    # a result names the paired event's round 1 and one of its three tables, with a score that
    # may be played (the draws stay as the document has them: some sums are impossible)
    results = document["paths"]["/events/{event_id}/results"]["post"]
    for parameter in results.get("parameters", []):
        if parameter["name"] == "event_id":
            parameter["schema"] = {"type": "integer", "enum": [paired]}
    report = results["requestBody"]["content"]["application/json"]["schema"]["properties"]
    report |= {
        "round": {"type": "integer", "enum": [1]},
        "table": {"type": "integer", "enum": [1, 2, 3]},
        "wins_a": {"type": "integer", "enum": [2, 1]},
        "wins_b": {"type": "integer", "enum": [0, 1]},
    }
    return document


def answers_2xx(har: Path, document: dict[str, Any]) -> dict[str, int]:
    """How many 2xx answers each of the document's operations got (``"POST /trades": 12``)."""
    patterns = [
        (method.upper(), re.compile("^/api/v1" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), f"{method.upper()} {path}")
        for path, item in document["paths"].items()
        for method in item
    ]
    patterns.sort(key=lambda p: p[2].count("{"))  # a literal segment wins over a parameter (/trades/matches)
    counts = {label: 0 for _m, _p, label in patterns}
    for entry in json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]:
        method = entry["request"]["method"]
        path = re.sub(r"^https?://[^/]+", "", entry["request"]["url"]).split("?")[0]
        for wanted, pattern, label in patterns:
            if method == wanted and pattern.match(path):
                counts[label] += 200 <= entry["response"]["status"] < 300
                break
    return counts


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="lunzang-fuzz-") as name:
        folder = Path(name)
        env = {k: v for k, v in os.environ.items() if k not in ("LUNZANG_ENV", "DATABASE_URL")}
        env |= {
            "DATABASE_URL": f"sqlite:///{folder / 'fuzz.sqlite3'}",
            "SECRET_KEY": secrets.token_hex(32),
            "LUNZANG_HTTPS": "0",
        }
        try:
            seeded = prepare(env)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 2
        server = Server(PORT, env, workers=2)
        server.start(folder / "server.log")
        try:
            server.wait_healthy()
            seed_trades(server.url, seeded["tokens"])
            _status, raw = Client(server.url).get("/api/v1/openapi.json")
            document = json.loads(raw)
            profile = folder / "openapi.json"
            narrowed = fuzz_profile(json.loads(raw), seeded["deck"], seeded["paired"])
            profile.write_text(json.dumps(narrowed), encoding="utf-8")
            har = folder / "fuzz.har"
            command = [
                str(Path(sys.executable).with_name("schemathesis")),
                # every check is on (schemathesis' default; "--checks all" here would override the
                # file); the file says per operation which answers a schema-valid request may get
                "--config-file",
                str(Path(__file__).with_name("schemathesis.toml")),
                "run",
                str(profile),
                "--url",
                f"{server.url}/api/v1",
                "--header",
                f"Authorization: Bearer {seeded['tokens']['fuzzer']}",
                "--max-examples",
                EXAMPLES,
                "--request-timeout",
                "30",
                "--generation-deterministic",
                # A NUL byte is refused by the validation layer on every operation (PostgreSQL
                # cannot store it), as the document's 400 says; generating it only finds that.
                "--generation-allow-x00",
                "false",
                "--report",
                "har",
                "--report-har-path",
                str(har),
                *sys.argv[1:],
            ]
            try:
                code = subprocess.run(command, timeout=TIME_LIMIT, check=False).returncode
            except subprocess.TimeoutExpired:
                print(f"schemathesis stopped after {TIME_LIMIT} s", file=sys.stderr)
                return 1
            if har.exists():
                if KEEP_HAR:  # every request and answer, to read after the run
                    shutil.copyfile(har, KEEP_HAR)
                counts = answers_2xx(har, document)
                reached = [label for label, n in counts.items() if n]
                share = len(reached) / len(counts)
                print(f"operations with a 2xx answer: {len(reached)} of {len(counts)} ({share:.0%})")
                print("  2xx on the state machines: " + ", ".join(
                    f"{label.split(' ')[0]} {label.split('}')[-1] or label.split(' ')[1]} {n}"
                    for label, n in counts.items() if "{" in label
                ))  # fmt: skip
                for label, n in counts.items():
                    if not n:
                        print(f"  no 2xx: {label}")
                if code == 0 and share < MIN_SHARE:
                    print(f"under FUZZ_MIN_2XX={MIN_SHARE:.0%}", file=sys.stderr)
                    code = 1
            return code
        finally:
            server.stop()
            log = server.tail()
            if "Traceback" in log:
                print("server errors:\n" + log, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

"""one strict integer parser for names, values, queries, JSON and CLI.

ASCII digits only (``1_0``, ``²``, ``１`` refused), bounded by the column the number is stored
in (2³¹−1 for an ``Integer``): a clear 4xx in the user's language, nothing changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from catalog.numbers import INT32, INT64, BadNumber, parse_int
from tests.kits.db import table_counts
from tests.kits.event import make_event
from tests.kits.trade import Kit, make_kit
from webapp.db import get_engine

BIG = [2**31, 2**40, 2**63 - 1, 2**63, 10**24]


@pytest.mark.parametrize(
    ("raw", "low", "high", "expected"),
    [
        ("0", 0, INT32, 0),
        (" 42 ", 0, INT32, 42),
        ("007", 0, INT32, 7),
        (str(INT32), 0, INT32, INT32),
        ("-5", -10, 10, -5),
        (7, 0, INT32, 7),
        (str(INT64), 0, INT64, INT64),
    ],
)
def test_parse_int_takes_ascii_whole_numbers_in_range(raw: Any, low: int, high: int, expected: int) -> None:
    assert parse_int(raw, field="n", low=low, high=high) == expected


@pytest.mark.parametrize(
    "raw",
    ["", " ", "1_0", "²", "１", "٣", "1.0", "1e3", "+1", "-1", "0x10", "1 0", str(2**31), "9" * 25, "0" * 50 + "9" * 12,
     "1\x00", 2**31, -1, True, None, 1.0, "9" * 100_000],
)  # fmt: skip
def test_parse_int_refuses_anything_else_with_a_message_in_both_languages(raw: Any) -> None:
    with pytest.raises(BadNumber) as caught:
        parse_int(raw, field="quantity")
    assert "quantity" in caught.value.message.zh and "0–9" in caught.value.message.zh
    assert "quantity" in caught.value.message.en and caught.value.status == 400


@pytest.fixture
def kit(app: Any, engine: Any, make_user: Any, tmp_path: Path) -> Kit:
    kit = make_kit(engine, make_user, tmp_path)
    kit.stock("alice", "T1-001", 3, 2)
    kit.stock("bob", "T1-005", 1, 1)
    return kit


@pytest.mark.parametrize(
    "name",
    ["give:²:NM:简中:普通", "give:１:NM:简中:普通", "give:1_0:NM:简中:普通", "give:" + "9" * 25 + ":NM:简中:普通",
     f"get:{2**31}:NM:简中:普通", f"get:{2**63}:NM:简中:普通"],
)  # fmt: skip
def test_trade_form_field_names_are_checked(app: Any, kit: Kit, login: Any, name: str) -> None:
    alice = app.test_client()
    login(alice, "alice")
    made = alice.post("/trades", data={"to": "bob", f"give:{kit.pids['T1-001']}:NM:简中:普通": "1"})
    assert made.status_code == 302
    tid = made.headers["Location"].rsplit("/", 1)[1]
    before = table_counts(kit.engine)
    for url in ("/trades", f"/trades/{tid}/counter"):
        answer = alice.post(url, data={"to": "bob", "version": "1", name: "1"})
        assert answer.status_code == 400, (url, answer.status_code)
        assert "0–9" in answer.get_data(as_text=True)
    assert table_counts(kit.engine) == before


@pytest.mark.parametrize(
    "value", ["1:NM:简中:普通:²", "1:NM:简中:普通:１", "1:NM:简中:普通:" + "9" * 25, "9" * 25 + ":NM:简中:普通:1"]
)
def test_trade_composer_prefill_is_checked(app: Any, kit: Kit, login: Any, value: str) -> None:
    alice = app.test_client()
    login(alice, "alice")
    answer = alice.get("/trades/new", query_string={"to": "bob", "get": value})
    assert answer.status_code == 400 and "0–9" in answer.get_data(as_text=True)


def test_trade_quantity_and_version_are_bounded(app: Any, kit: Kit, login: Any) -> None:
    alice = app.test_client()
    login(alice, "alice")
    pid = kit.pids["T1-001"]
    before = table_counts(kit.engine)
    huge = alice.post("/trades", data={"to": "bob", f"give:{pid}:NM:简中:普通": str(2**40)})
    assert huge.status_code == 400
    assert alice.post("/trades/1/accept", data={"version": str(2**63)}).status_code in (400, 404)
    assert table_counts(kit.engine) == before


def _token(app: Any, make_user: Any, name: str, role: str = "user") -> str:
    from datetime import UTC, datetime

    from catalog.accounts import issue_token

    with app.app_context(), Session(get_engine()) as session, session.begin():
        user = make_user(session, name, role=role)
        _row, token = issue_token(session=session, user=user, now=datetime(2026, 1, 1, tzinfo=UTC))
    return token


@pytest.mark.parametrize("key", ["round", "table", "wins_a", "wins_b", "draws"])
@pytest.mark.parametrize("value", BIG)
def test_api_results_refuse_numbers_beyond_the_column(sample_app: Any, make_user: Any, key: str, value: int) -> None:
    token = _token(sample_app, make_user, "shop", "organizer")
    with sample_app.app_context(), Session(get_engine()) as session, session.begin():
        event_id = int(make_event(session).id)
    before = table_counts(get_engine(sample_app))
    body = {"round": 1, "table": 1, "wins_a": 2, "wins_b": 0, "draws": 0, key: value}
    answer = sample_app.test_client().post(
        f"/api/v1/events/{event_id}/results", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 400, answer.get_data(as_text=True)
    error = answer.get_json()["error"]
    assert key in error["message"] and key in error["message_en"]
    after = table_counts(get_engine(sample_app))
    assert {k: v for k, v in after.items() if k != "api_token"} == {k: v for k, v in before.items() if k != "api_token"}


@pytest.mark.parametrize("item", ["9" * 25, str(2**31), "²", "1_0"])
def test_exchange_item_ids_are_bounded(sample_app: Any, login: Any, item: str) -> None:
    from tests.kits.event import staff_store

    shop = sample_app.test_client()
    login(shop, "shop", role="organizer")
    with Session(get_engine(sample_app)) as session, session.begin():
        staff_store(session, "卡牌竞技场", "shop")  # organisers act only for the stores they staff
    before = table_counts(get_engine(sample_app))
    store = "/stores/卡牌竞技场/exchange"
    for data in ({"name": "卡套", "price": "3", "item": item}, {"action": "redeem", "player": "x", "item": item}):
        answer = shop.post(store, data=data, follow_redirects=True)
        assert answer.status_code < 500 and "0–9" in answer.get_data(as_text=True), data
    assert table_counts(get_engine(sample_app)) == before


@pytest.mark.parametrize("value", ["1_0", "１", "9" * 25])
def test_collection_and_wants_forms_refuse_what_int_took(sample_app: Any, client: Any, login: Any, value: str) -> None:
    """``int("1_0")`` is 10 and ``int("１")`` is 1: the forms took them as numbers."""
    login(client, "alice")
    before = table_counts(get_engine(sample_app))
    changed = client.post("/collection/items", data={"set": "M4", "number": "M4-001", "delta": value})
    assert changed.status_code in (303, 400)  # the page again, with the reason
    wanted = client.post("/wants", data={"set": "M4", "number": "M4-001", "quantity": value})
    assert wanted.status_code in (302, 400) and wanted.status_code < 500
    assert table_counts(get_engine(sample_app)) == before


@pytest.mark.parametrize(
    "args",
    [
        ["search", "swk", "--page", "1_0"],
        ["search", "swk", "--per-page", "１"],
        ["collection", "undo", "alice", "9" * 25],
        ["demo", "synth", "--printings", "1_0", "--out", "{tmp}"],
        ["serve", "--port", "99999", "--check"],
    ],
)
def test_cli_options_go_through_the_strict_parser(
    sample_app: Any, runner: Any, tmp_path: Path, args: list[str]
) -> None:
    result = runner.invoke(args=[a.replace("{tmp}", str(tmp_path / "synth")) for a in args])
    assert result.exit_code == 2, (args, result.output)
    assert "0–9" in result.output and not (result.exception and not isinstance(result.exception, SystemExit))

"""Trading pages: inbox, composer, trade page, actions, matches, price list, profile."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from catalog.collection.wants import set_want
from catalog.models import Printing
from tests.kits.trade import NOW, Kit, make_kit


@pytest.fixture
def kit(app: Any, engine: Any, make_user: Any, tmp_path: Path) -> Kit:
    kit = make_kit(engine, make_user, tmp_path)
    kit.stock("alice", "T1-001", 3, 2)
    kit.stock("bob", "T1-005", 1, 1)
    return kit


def field(kit: Kit, side: str, number: str) -> str:
    return f"{side}:{kit.pids[number]}:NM:简中:普通"


def test_compose_propose_counter_accept_on_the_pages(app: Any, kit: Kit, login: Any) -> None:
    alice, bob = app.test_client(), app.test_client()
    login(alice, "alice")
    login(bob, "bob")
    page = alice.get("/trades/new?to=bob")
    assert page.status_code == 200 and "圣光骑士" in page.get_data(as_text=True)  # bob's T1-005
    filtered = alice.get("/trades/new?to=bob&q_theirs=r>=UR").get_data(as_text=True)
    assert "圣光骑士" not in filtered  # PR is below UR
    r = alice.post(
        "/trades",
        data={"to": "bob", field(kit, "give", "T1-001"): "1", field(kit, "get", "T1-005"): "1", "mode": "local"},
    )
    assert r.status_code == 302
    tid = int(r.headers["Location"].rsplit("/", 1)[1])
    assert "1" in bob.get("/").get_data(as_text=True).split("nav-badge")[1][:40]  # bob has one waiting
    inbox = bob.get("/trades?tab=incoming").get_data(as_text=True)
    assert f"交易 #{tid}" in inbox
    form = bob.get(f"/trades/{tid}/counter")
    assert form.status_code == 200 and 'value="1"' in form.get_data(as_text=True)
    r = bob.post(
        f"/trades/{tid}/counter",
        data={"version": "1", field(kit, "give", "T1-005"): "1", field(kit, "get", "T1-001"): "2"},
    )
    assert r.status_code == 302
    stale = alice.post(f"/trades/{tid}/accept", data={"version": "1"})
    assert stale.status_code == 409 and "请刷新" in stale.get_data(as_text=True)
    assert alice.post(f"/trades/{tid}/accept", data={"version": "2"}).status_code == 302
    page = alice.get(f"/trades/{tid}").get_data(as_text=True)
    assert "已完成" in page and "时间线" in page and "稀有度点数" in page
    assert kit.owned("bob", "T1-001") == (2, 0)
    history = bob.get("/collection/history").get_data(as_text=True)
    assert f"交易 #{tid}" in history
    # feedback after completion, shown on the profile with the completed count
    assert alice.post(f"/trades/{tid}/feedback", data={"rating": "positive", "message": "爽快"}).status_code == 302
    profile = bob.get("/u/bob").get_data(as_text=True)
    assert "已完成 1 笔交易" in profile and "爽快" in profile


def test_refusals_on_the_pages_change_nothing(app: Any, kit: Kit, login: Any) -> None:
    alice = app.test_client()
    login(alice, "alice")
    r = alice.post("/trades", data={"to": "bob", field(kit, "get", "T1-005"): "2"})
    assert r.status_code == 409 and "可交换的只有 1 张" in r.get_data(as_text=True)
    r = alice.post("/trades", data={"to": "bob", field(kit, "give", "T1-001"): "-1"})
    assert r.status_code == 400 and "数量必须是" in r.get_data(as_text=True)
    assert alice.get("/trades/new?to=nobody").status_code == 404
    assert kit.trade_rows() == 0


def test_only_the_parties_and_admins_see_a_trade(app: Any, kit: Kit, login: Any) -> None:
    alice, carol, root = app.test_client(), app.test_client(), app.test_client()
    login(alice, "alice")
    r = alice.post("/trades", data={"to": "bob", field(kit, "give", "T1-001"): "1"})
    tid = int(r.headers["Location"].rsplit("/", 1)[1])
    login(carol, "carol")
    assert carol.get(f"/trades/{tid}").status_code == 404
    assert carol.post(f"/trades/{tid}/accept", data={"version": "1"}).status_code == 404
    assert carol.get(f"/trades/{tid}/counter").status_code == 404
    login(root, "root", role="admin")
    assert root.get(f"/trades/{tid}").status_code == 200
    assert kit.trade(tid).status == "proposed"
    assert app.test_client().get(f"/trades/{tid}").status_code == 302  # to the sign-in page


def test_matches_page_turns_into_a_prefilled_offer(app: Any, kit: Kit, login: Any) -> None:
    with Session(kit.engine) as session, session.begin():
        for who, number in (("alice", "T1-005"), ("bob", "T1-001")):
            card_id = session.get(Printing, kit.pids[number]).card_id
            set_want(session=session, user_id=kit.users[who], card_id=card_id, quantity=1, now=NOW)
    alice = app.test_client()
    login(alice, "alice")
    page = alice.get("/trades/matches").get_data(as_text=True)
    assert "bob" in page and "对方能给你 1 张，你能给对方 1 张" in page
    link = page.split('href="/trades/new?', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    composer = alice.get("/trades/new?" + link).get_data(as_text=True)
    assert re.search(field(kit, "get", "T1-005") + r'"[^>]*value="1"', composer)
    assert re.search(field(kit, "give", "T1-001") + r'"[^>]*value="1"', composer)


def test_price_list_import_weighs_the_balance(app: Any, kit: Kit, login: Any) -> None:
    alice = app.test_client()
    login(alice, "alice")
    bad = alice.post(
        "/trades/prices", data={"file": (__import__("io").BytesIO(b"set,number,price\nT1,T1-001,abc\n"), "p.csv")}
    )
    assert bad.status_code == 422 and "第 2 行" in bad.get_data(as_text=True)
    ok = alice.post(
        "/trades/prices", data={"file": (__import__("io").BytesIO(b"set,number,price\nT1,T1-001,12.5\n"), "p.csv")}
    )
    assert ok.status_code == 302
    r = alice.post("/trades", data={"to": "bob", field(kit, "give", "T1-001"): "2", field(kit, "get", "T1-005"): "1"})
    page = alice.get(r.headers["Location"]).get_data(as_text=True)
    assert "25.0" in page and "1 张没有价格" in page


def _allowance(page: str, name: str) -> tuple[int, int]:
    """(the 可交换 cell, the input's max) of the composer row whose input is ``name``."""
    row = re.search(
        rf"<td>(\d+)</td>\s*<td><input type=\"number\" name=\"{re.escape(name)}\" min=\"0\" max=\"(\d+)\"", page
    )
    assert row is not None, name
    return int(row.group(1)), int(row.group(2))


def test_the_counter_form_shows_and_the_server_enforces_what_the_new_version_may_take(
    app: Any, kit: Kit, login: Any
) -> None:
    """countering bob's version, alice's rows showed for trade plus what the trade
    asks of her (her lines are not held by bob's version): 2 shown as 4, owning 1 shown as 2."""
    from tests.kits.trade import headers

    kit.stock("alice", "T1-002", 1, 1)
    alice, bob = app.test_client(), app.test_client()
    login(alice, "alice")
    login(bob, "bob")
    r = bob.post(
        "/trades",
        data={
            "to": "alice",
            field(kit, "give", "T1-005"): "1",
            field(kit, "get", "T1-001"): "2",
            field(kit, "get", "T1-002"): "1",
        },
    )
    tid = int(r.headers["Location"].rsplit("/", 1)[1])
    page = alice.get(f"/trades/{tid}/counter").get_data(as_text=True)
    assert _allowance(page, field(kit, "give", "T1-001")) == (2, 2)
    assert _allowance(page, field(kit, "give", "T1-002")) == (1, 1)
    assert _allowance(page, field(kit, "get", "T1-005")) == (1, 1)  # bob's line, held by this trade alone
    # alice's offer to carol holds one of her T1-001: one is left for bob's trade
    assert alice.post("/trades", data={"to": "carol", field(kit, "give", "T1-001"): "1"}).status_code == 302
    page = alice.get(f"/trades/{tid}/counter").get_data(as_text=True)
    assert _allowance(page, field(kit, "give", "T1-001")) == (1, 1)
    over = alice.post(f"/trades/{tid}/counter", data={"version": "1", field(kit, "give", "T1-001"): "2"})
    text = over.get_data(as_text=True)
    assert over.status_code == 409 and "T1-001" in text and "可交换的只有 1 张" in text
    api = app.test_client().post(
        f"/api/v1/trades/{tid}/counter",
        json={"version": 1, "give": [{"set": "T1", "number": "T1-001", "quantity": 2}], "get": []},
        headers=headers(kit, "alice"),
    )
    assert api.status_code == 409
    (short,) = api.get_json()["error"]["lines"]
    assert (short["number"], short["quantity"], short["available"]) == ("T1-001", 2, 1)
    assert kit.trade(tid).version == 1  # nothing changed
    ok = alice.post(
        f"/trades/{tid}/counter",
        data={"version": "1", field(kit, "give", "T1-001"): "1", field(kit, "get", "T1-005"): "1"},
    )
    assert ok.status_code == 302 and kit.trade(tid).version == 2
    # now alice wrote the version: her line is held by it, and still counts once
    page = alice.get(f"/trades/{tid}/counter").get_data(as_text=True)
    assert _allowance(page, field(kit, "give", "T1-001")) == (1, 1)
    # a line of the trade the new version can no longer take still shows, at 0
    kit.stock("bob", "T1-005", -1, -1)
    page = bob.get(f"/trades/{tid}/counter").get_data(as_text=True)
    assert _allowance(page, field(kit, "give", "T1-005")) == (0, 0)


@pytest.mark.parametrize(
    "body",
    [
        b"set,number,price\nT1,T1-001," + b"9" * (5 * 1024 * 1024) + b"\n",
        b'set,number,price\nT1,"' + b"x" * (5 * 1024 * 1024) + b'",1\n',
        b"set,number," + b"p" * 200_000 + b"\n",
        b"set,number,price\nT1,T1-001\x00,1\n",
    ],
    ids=["5 MB price", "5 MB quoted field", "huge header", "NUL"],
)
def test_a_price_list_the_csv_module_cannot_read_is_a_422(app: Any, kit: Kit, login: Any, body: bytes) -> None:
    """a field over the csv module's limit answered 500 (``_csv.Error``)."""
    alice = app.test_client()
    login(alice, "alice")
    # the multipart body written here: the test client would spool a large one to a file it never closes
    head = b'--B\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n'
    payload = head + body + b"\r\n--B--\r\n"
    refused = alice.post("/trades/prices", data=payload, content_type="multipart/form-data; boundary=B")
    assert refused.status_code == 422, refused.status_code
    assert "行" in refused.get_data(as_text=True)


def test_grade_cells_read_in_english_on_english_pages(app: Any, kit: Kit, login: Any) -> None:
    """trade lines read "LP · 简中 · 普通" on the English pages."""
    alice = app.test_client()
    login(alice, "alice")
    composer = alice.get("/trades/new?to=bob&lang=en").get_data(as_text=True)
    assert "NM · Simplified Chinese · Non-foil" in composer and "简中 · 普通" not in composer
    r = alice.post("/trades", data={"to": "bob", field(kit, "get", "T1-005"): "1", "mode": "local"})
    page = alice.get(r.headers["Location"]).get_data(as_text=True)
    assert "NM · Simplified Chinese · Non-foil" in page and "简中 · 普通" not in page
    chinese = alice.get(r.headers["Location"] + "?lang=zh").get_data(as_text=True)
    assert "NM · 简中 · 普通" in chinese

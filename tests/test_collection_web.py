"""The collection pages: my collection, the item forms, set completion and checklist,
CSV import with preview and undo, history, export. Every page is the signed-in user's own."""

from __future__ import annotations

import base64
import os
import re
from io import BytesIO
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import apply_deltas
from catalog.models import CollectionImport, LedgerEntry
from tests.kits.collection import (
    NM,
    NOW,
    collection_of,
    confirm,
    db,
    owned_now,
    pid,
    printing_id,
    upload,
)
from webapp.db import get_engine

PAGES = [
    "/collection",
    "/collection?q=a:火&sort=name",
    "/collection/sets",
    "/collection/sets?game=samsara&started=1",
    "/collection/sets/samsara/M4",
    "/collection/import",
    "/collection/imports",
    "/collection/history",
    "/collection/export.csv",
    "/collection/export.csv?preset=deckbox",
]


def ledger_rows(app: Any, user_id: int) -> int:
    with db(app) as session:
        return session.scalar(select(func.count()).where(LedgerEntry.user_id == user_id)) or 0


def give(app: Any, user_id: int, items: dict[int, int], grade: ItemGrade = NM) -> None:
    with db(app) as session, session.begin():
        apply_deltas(
            session=session,
            user_id=user_id,
            deltas={(p, grade): n for p, n in items.items()},
            reason="manual",
            now=NOW,
        )


def flashes(page: str) -> list[str]:
    found = re.search(r'<ul class="flashes"[^>]*>(.*?)</ul>', page, re.S)
    return re.findall(r"<li[^>]*>(.*?)</li>", found.group(1), re.S) if found else []


def add(client: Any, **fields: Any) -> Any:
    return client.post("/collection/items", data={k: str(v) for k, v in fields.items()})


# ---------------------------------------------------------------------------- access


@pytest.mark.parametrize("url", PAGES)
def test_every_page_answers_its_owner(sample_app, client, login, url: str) -> None:
    login(client)
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]


@pytest.mark.parametrize(
    ("method", "url"),
    [(m, u) for m, u in (("GET", p.split("?")[0]) for p in PAGES)]
    + [("POST", "/collection/items"), ("POST", "/collection/items/trade"), ("POST", "/collection/items/note")]
    + [("POST", "/collection/import"), ("POST", "/collection/imports/1/undo"), ("POST", "/collection/sets/samsara/M4")],
)
def test_anonymous_visitors_are_sent_to_sign_in(sample_app, method: str, url: str) -> None:
    response = sample_app.test_client().open(url, method=method, data={"delta": "1", "printing_id": "1"})
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login?next=")


def test_nav_links_to_my_collection_when_signed_in(sample_app, client, login) -> None:
    assert 'href="/collection"' not in client.get("/").get_data(as_text=True)
    login(client)
    assert 'href="/collection"' in client.get("/").get_data(as_text=True)


# ---------------------------------------------------------------------------- +1 / −1


def test_plus_and_minus_one_redirect_to_next(sample_app, client, login) -> None:
    alice = login(client)
    printing = pid(sample_app)
    response = add(client, printing_id=printing, delta=1, next="/cards/samsara/x?view=table")
    assert response.status_code == 303
    assert response.headers["Location"] == "/cards/samsara/x?view=table"
    assert owned_now(sample_app, alice.id, printing) == (1, 0)
    add(client, printing_id=printing, delta=2)
    assert owned_now(sample_app, alice.id, printing) == (3, 0)
    response = add(client, printing_id=printing, delta=-1, next="/collection?page=1")
    assert response.headers["Location"] == "/collection?page=1"
    assert owned_now(sample_app, alice.id, printing) == (2, 0)
    page = client.get("/collection").get_data(as_text=True)
    assert flashes(page) == [
        "已加入收藏：小红帽·森林歌者（M4 M4-001） ×1",
        "已加入收藏：小红帽·森林歌者（M4 M4-001） ×2",
        "已移出收藏：小红帽·森林歌者（M4 M4-001） ×1",
    ]


@pytest.mark.parametrize("target", ["https://evil.example/x", "//evil.example/x", "/\\evil.example", "javascript:x"])
def test_a_non_local_next_goes_back_to_the_collection(sample_app, client, login, target: str) -> None:
    login(client)
    response = add(client, printing_id=pid(sample_app), delta=1, next=target)
    assert response.status_code == 303
    assert response.headers["Location"] == "/collection"


def test_minus_one_at_zero_is_refused_and_changes_nothing(sample_app, client, login) -> None:
    alice = login(client)
    printing = pid(sample_app)
    response = add(client, printing_id=printing, delta=-1, next="/collection/sets")
    assert response.status_code == 303
    assert response.headers["Location"] == "/collection/sets"
    assert owned_now(sample_app, alice.id, printing) == (0, 0)
    assert ledger_rows(sample_app, alice.id) == 0
    assert collection_of(sample_app, alice.id) == {}
    messages = flashes(client.get("/collection").get_data(as_text=True))
    assert messages == ["数量不能小于 0：现有 0 张，要减少 1 张"]


def test_set_number_and_grade_words_name_the_item(sample_app, client, login) -> None:
    alice = login(client)
    response = add(
        client, set="m4", number="M4-002", game="samsara", delta=2, condition="lp", language="English", finish="foil"
    )
    assert response.status_code == 303
    printing = pid(sample_app, "M4", "M4-002")
    assert owned_now(sample_app, alice.id, printing, ItemGrade("LP", "EN", "闪")) == (2, 0)
    assert owned_now(sample_app, alice.id, printing) == (0, 0)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"delta": "abc"}, "数量变化必须是整数"),
        ({"delta": "99999"}, "数量变化必须是 -10000 到 10000 之间的整数"),
        ({"delta": "1", "condition": "shiny"}, "未知的品相「shiny」"),
        ({"delta": "1", "printing_id": "999999"}, "没有编号为 999999 的印刷"),
        ({"delta": "1", "printing_id": "", "set": "M4", "number": "M4-999"}, "系列 M4 中没有编号 M4-999"),
        ({"delta": "1", "printing_id": ""}, "请给出 printing_id，或系列和编号"),
    ],
)
def test_bad_item_forms_flash_the_error_and_change_nothing(sample_app, client, login, fields, message) -> None:
    alice = login(client)
    data = {"printing_id": str(pid(sample_app)), **fields}
    response = client.post("/collection/items", data=data)
    assert response.status_code == 303
    assert any(message in m for m in flashes(client.get("/collection/sets").get_data(as_text=True)))
    assert collection_of(sample_app, alice.id) == {}


def test_scripts_get_json(sample_app, client, login) -> None:
    login(client)
    printing = pid(sample_app)
    response = client.post(
        "/collection/items", data={"printing_id": printing, "delta": 1}, headers={"Accept": "application/json"}
    )
    assert response.status_code == 200
    body = response.get_json()
    assert body["item"]["quantity"] == 1 and body["item"]["set"] == "M4" and body["item"]["number"] == "M4-001"
    assert body["message"].startswith("已加入收藏")
    response = client.post(
        "/collection/items", data={"printing_id": printing, "delta": -2}, headers={"X-Requested-With": "fetch"}
    )
    assert response.status_code == 409
    assert response.get_json()["error"]["code"] == "negative_quantity"
    response = client.post(
        "/collection/items", data={"printing_id": 999999, "delta": 1}, headers={"Accept": "application/json"}
    )
    assert response.status_code == 404
    response = client.post(
        "/collection/items", data={"printing_id": printing, "delta": "x"}, headers={"Accept": "application/json"}
    )
    assert response.status_code == 400


def test_quantity_for_trade_and_its_limits(sample_app, client, login) -> None:
    alice = login(client)
    printing = pid(sample_app)
    give(sample_app, alice.id, {printing: 2})
    form = {"printing_id": printing, "for_trade": 1, "next": "/collection"}
    assert client.post("/collection/items/trade", data=form).status_code == 303
    assert owned_now(sample_app, alice.id, printing) == (2, 1)
    client.post("/collection/items/trade", data={**form, "for_trade": 3})
    assert owned_now(sample_app, alice.id, printing) == (2, 1)
    messages = flashes(client.get("/collection").get_data(as_text=True))
    assert messages[0] == "可交换数量已设为 1：小红帽·森林歌者（M4 M4-001）"
    assert "可交换数量必须在 0 到 2 之间" in messages[1]
    page = client.get("/collection?trade=1").get_data(as_text=True)
    assert "小红帽·森林歌者" in page


def test_notes_are_saved_and_escaped(sample_app, client, login) -> None:
    alice = login(client)
    printing = pid(sample_app)
    note = '<script>alert("x")</script> 签名版'
    response = client.post("/collection/items/note", data={"printing_id": printing, "note": note})
    assert response.status_code == 303  # no such item yet: refused
    assert "你的收藏里没有这一项" in flashes(client.get("/collection/sets").get_data(as_text=True))[0]
    give(sample_app, alice.id, {printing: 1})
    client.post("/collection/items/note", data={"printing_id": printing, "note": note})
    page = client.get("/collection").get_data(as_text=True)
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; 签名版" in page


def test_csrf_token_is_required(csrf_app, sample_catalogue, login) -> None:
    client = csrf_app.test_client()
    alice = login(client)
    printing = pid(csrf_app)
    for url, data in [
        ("/collection/items", {"printing_id": printing, "delta": 1}),
        ("/collection/items/trade", {"printing_id": printing, "for_trade": 0}),
        ("/collection/sets/samsara/M4", {f"q-{printing}": "2", f"was-{printing}": "0"}),
        ("/collection/imports/1/undo", {}),
    ]:
        assert client.post(url, data=data).status_code == 400
    assert collection_of(csrf_app, alice.id) == {}
    page = client.get("/collection/sets/samsara/M4").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    response = client.post("/collection/items", data={"printing_id": printing, "delta": 1, "csrf_token": token})
    assert response.status_code == 303
    assert owned_now(csrf_app, alice.id, printing) == (1, 0)


# ---------------------------------------------------------------------------- my collection


def test_collection_page_lists_filters_sorts_and_pages(sample_app, client, login) -> None:
    alice = login(client)
    with db(sample_app) as session:
        from catalog.models import CardSet, Printing

        m4 = session.scalars(
            select(Printing.id).join(CardSet, CardSet.id == Printing.set_id).where(CardSet.code.in_(["M4", "M5"]))
        ).all()
    give(sample_app, alice.id, {p: 1 for p in m4})
    give(sample_app, alice.id, {pid(sample_app, "M1", "M1-001"): 3})
    page = client.get("/collection").get_data(as_text=True)
    assert f'<dd class="num" data-total="printings">{len(m4) + 1}</dd>' in page
    assert f'<dd class="num" data-total="cards">{len(m4) + 3}</dd>' in page
    assert page.count("<tr data-printing=") == 50
    assert 'href="/collection?page=2"' in page
    second = client.get("/collection?page=2").get_data(as_text=True)
    assert second.count("<tr data-printing=") == len(m4) + 1 - 50
    # search language: a set, and a rarity; the game filter; plain names and pinyin
    only_m1 = client.get("/collection?q=set:M1").get_data(as_text=True)
    assert only_m1.count("<tr data-printing=") == 1 and "龙人豪杰·赤鳞" in only_m1
    rare = client.get("/collection?q=set:M4+r>=SR").get_data(as_text=True)
    assert 0 < rare.count("<tr data-printing=") < 45
    assert 'data-rarity="C"' not in rare
    assert client.get("/collection?game=longzhiyi").get_data(as_text=True).count("<tr data-printing=") == 0
    assert "龙人豪杰·赤鳞" in client.get("/collection?q=赤鳞").get_data(as_text=True)
    # sort by name: pinyin order, so the first row is not M4-001
    number = r'<td class="number[^"]*">([^<]+)</td>'
    by_set = re.findall(number, page)
    by_name = re.findall(number, client.get("/collection?sort=name").get_data(as_text=True))
    assert by_set[:2] == ["M1-001", "M4-001"] and by_name != by_set


def test_a_bad_query_is_explained_with_400(sample_app, client, login) -> None:
    login(client)
    response = client.get("/collection?q=rarity>>UR")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "无法理解这个查询" in page and 'class="bad-term' in page


def test_other_users_never_see_nor_change_my_items(sample_app, login) -> None:
    alice_client, bob_client = sample_app.test_client(), sample_app.test_client()
    alice = login(alice_client, "alice")
    bob = login(bob_client, "bob")
    printing = pid(sample_app)
    add(alice_client, printing_id=printing, delta=2)
    csv = b"set,number,quantity\nM4,M4-002,3\n"
    alice_client.post(
        "/collection/import",
        data={"file": (BytesIO(csv), "mine.csv"), "mode": "add"},
        content_type="multipart/form-data",
    )
    preview = alice_client.post(
        "/collection/import", data={"file": (BytesIO(csv), "mine.csv")}, content_type="multipart/form-data"
    ).get_data(as_text=True)
    payload = re.search(r'name="payload" value="([^"]+)"', preview).group(1)
    alice_client.post("/collection/import", data={"payload": payload, "confirm": "1", "mode": "add"})
    with db(sample_app) as session:
        import_id = session.scalar(select(CollectionImport.id).where(CollectionImport.user_id == alice.id))
    mine = collection_of(sample_app, alice.id)
    assert len(mine) == 2
    for url in ["/collection", "/collection/history", f"/collection/history?import={import_id}", "/collection/imports"]:
        page = bob_client.get(url).get_data(as_text=True)
        assert "小红帽·森林歌者" not in page and "小红帽·狼猎手" not in page, url
        assert "mine.csv" not in page
    assert bob_client.get("/collection/export.csv").get_data(as_text=True).count("\n") == 1  # the header alone
    response = bob_client.post(f"/collection/imports/{import_id}/undo", data={"confirm": "1"})
    assert response.status_code == 303
    assert flashes(bob_client.get("/collection").get_data(as_text=True)) == [f"没有编号为 {import_id} 的导入"]
    # Bob's +1 on the same printing changes his collection only
    add(bob_client, printing_id=printing, delta=1)
    add(bob_client, printing_id=printing, delta=-1)
    add(bob_client, printing_id=printing, delta=-1)
    assert collection_of(sample_app, alice.id) == mine
    assert owned_now(sample_app, bob.id, printing) == (0, 0)


# ---------------------------------------------------------------------------- sets and checklist


def test_set_completion_moves_with_the_collection(sample_app, client, login) -> None:
    alice = login(client)
    page = client.get("/collection/sets?game=samsara").get_data(as_text=True)
    assert 'href="/collection/sets/samsara/M4"' in page
    row = re.search(r'<tr data-set="M4">.*?</tr>', page, re.S).group(0)
    assert '<progress max="45" value="0"' in row
    give(sample_app, alice.id, {pid(sample_app): 2, pid(sample_app, "M4", "M4-002"): 1})
    page = client.get("/collection/sets?game=samsara&started=1").get_data(as_text=True)
    row = re.search(r'<tr data-set="M4">.*?</tr>', page, re.S).group(0)
    assert '<progress max="45" value="2"' in row and "2 / 45" in row
    assert 'data-set="M1"' not in page  # not started


def checklist_form(page: str) -> dict[str, str]:
    form = re.search(r'<form class="checklist-form".*?</form>', page, re.S).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    fields.update(dict(re.findall(r'name="(q-\d+)"[^>]*value="([^"]*)"', form)))
    return fields


def test_checklist_applies_every_change_in_one_submit(sample_app, client, login) -> None:
    alice = login(client)
    one, two, three = (pid(sample_app, "M4", f"M4-00{n}") for n in (1, 2, 3))
    give(sample_app, alice.id, {three: 4})
    page = client.get("/collection/sets/samsara/M4").get_data(as_text=True)
    assert page.count('inputmode="numeric"') == 45
    numbers = re.findall(r'data-number="([^"]+)"', page)
    assert numbers[:3] == ["M4-001", "M4-002", "M4-003"]
    form = checklist_form(page)
    assert form[f"q-{three}"] == "4" and form[f"was-{three}"] == "4" and form["condition"] == "NM"
    rows_before = ledger_rows(sample_app, alice.id)
    form.update({f"q-{one}": "2", f"q-{two}": " 1 ", f"q-{three}": "1"})
    response = client.post("/collection/sets/samsara/M4", data=form)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "已保存 3 处更改" in page
    assert "4 → <strong>1</strong>" in page
    assert owned_now(sample_app, alice.id, one) == (2, 0)
    assert owned_now(sample_app, alice.id, two) == (1, 0)
    assert owned_now(sample_app, alice.id, three) == (1, 0)
    assert ledger_rows(sample_app, alice.id) == rows_before + 3
    assert '<span class="ratio" data-completion>3 / 45</span>' in page
    # The same form sent again (a reload) changes nothing: the quantities are already so.
    again = client.post("/collection/sets/samsara/M4", data=form).get_data(as_text=True)
    assert "没有需要保存的更改" in again
    assert owned_now(sample_app, alice.id, one) == (2, 0)
    assert ledger_rows(sample_app, alice.id) == rows_before + 3


def test_checklist_in_another_grade(sample_app, client, login) -> None:
    alice = login(client)
    one = pid(sample_app)
    page = client.get("/collection/sets/samsara/M4?condition=LP&language=繁中&finish=闪").get_data(as_text=True)
    form = checklist_form(page)
    assert (form["condition"], form["language"], form["finish"]) == ("LP", "繁中", "闪")
    form[f"q-{one}"] = "3"
    client.post("/collection/sets/samsara/M4", data=form)
    assert owned_now(sample_app, alice.id, one, ItemGrade("LP", "繁中", "闪")) == (3, 0)
    assert owned_now(sample_app, alice.id, one) == (0, 0)
    assert client.get("/collection/sets/samsara/M4?condition=weird").status_code == 200


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "请填写 0 到 9999 之间的整数"),
        ("1.5", "请填写 0 到 9999 之间的整数"),
        ("两", "请填写 0 到 9999 之间的整数"),
        ("10000", "不能超过 9999 张"),
    ],
)
def test_checklist_errors_write_nothing(sample_app, client, login, value: str, message: str) -> None:
    alice = login(client)
    one, two = pid(sample_app, "M4", "M4-001"), pid(sample_app, "M4", "M4-002")
    form = checklist_form(client.get("/collection/sets/samsara/M4").get_data(as_text=True))
    form.update({f"q-{one}": "2", f"q-{two}": value})
    response = client.post("/collection/sets/samsara/M4", data=form)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert f'<span class="field-error" id="error-{two}">{message}</span>' in page
    assert f'id="q-{two}"' in page and 'aria-invalid="true"' in page
    assert re.search(rf'name="q-{one}"[^>]*value="2"', page)  # what was typed stays
    assert collection_of(sample_app, alice.id) == {}
    assert ledger_rows(sample_app, alice.id) == 0


def test_checklist_refuses_a_stale_form(sample_app, client, login) -> None:
    alice = login(client)
    one, two = pid(sample_app, "M4", "M4-001"), pid(sample_app, "M4", "M4-002")
    form = checklist_form(client.get("/collection/sets/samsara/M4").get_data(as_text=True))
    give(sample_app, alice.id, {one: 1})  # meanwhile, in another tab
    form.update({f"q-{one}": "3", f"q-{two}": "1"})
    response = client.post("/collection/sets/samsara/M4", data=form)
    assert response.status_code == 409
    assert "打开此页后，这一项的数量已变为 1" in response.get_data(as_text=True)
    assert collection_of(sample_app, alice.id) == {(one, "NM", "简中", "普通"): (1, 0)}


def test_unknown_set_is_404(sample_app, client, login) -> None:
    login(client)
    assert client.get("/collection/sets/samsara/ZZ").status_code == 404
    assert client.get("/collection/sets/nogame/M4").status_code == 404


# ---------------------------------------------------------------------------- import, undo, export


def test_import_preview_then_confirm_then_undo(sample_app, client, login) -> None:
    alice = login(client)
    one, two = pid(sample_app, "M4", "M4-001"), pid(sample_app, "M4", "M4-002")
    give(sample_app, alice.id, {one: 1})
    data = "set,number,name,quantity,condition\nM4,M4-001,,2,\nM4,M4-002,小红帽·狼猎手,1,LP\n".encode()
    response = upload(client, data)
    assert response.status_code == 200
    preview = response.get_data(as_text=True)
    assert "预览：尚未导入" in preview and "确认导入" in preview
    assert '<dd class="num" data-count="added">1</dd>' in preview
    assert '<dd class="num" data-count="changed">1</dd>' in preview
    assert "小红帽·狼猎手" in preview
    assert collection_of(sample_app, alice.id) == {(one, "NM", "简中", "普通"): (1, 0)}  # a dry run
    response = confirm(client, preview)
    assert response.status_code == 303
    with db(sample_app) as session:
        record = session.scalars(select(CollectionImport).where(CollectionImport.user_id == alice.id)).one()
    assert response.headers["Location"] == f"/collection/history?import={record.id}"
    assert record.filename == "cards.csv" and record.mode == "add"
    assert owned_now(sample_app, alice.id, one) == (3, 0)
    assert owned_now(sample_app, alice.id, two, ItemGrade(condition="LP")) == (1, 0)
    history = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "已导入 #" in history and history.count("<tr>") == 3  # header + two changes
    imports = client.get("/collection/imports").get_data(as_text=True)
    assert f'href="/collection/imports/{record.id}/undo"' in imports  # a question first, then the form
    question = client.get(f"/collection/imports/{record.id}/undo").get_data(as_text=True)
    assert f'action="/collection/imports/{record.id}/undo"' in question and 'name="confirm" value="1"' in question
    unasked = client.post(f"/collection/imports/{record.id}/undo")  # without the confirmation: the question
    assert unasked.status_code == 303 and unasked.location.endswith(f"/collection/imports/{record.id}/undo")
    response = client.post(f"/collection/imports/{record.id}/undo", data={"confirm": "1"})
    assert response.status_code == 303
    assert collection_of(sample_app, alice.id) == {(one, "NM", "简中", "普通"): (1, 0)}
    imports = client.get("/collection/imports").get_data(as_text=True)
    assert f"已撤销导入 #{record.id}" in imports and f'href="/collection/imports/{record.id}/undo"' not in imports
    client.post(f"/collection/imports/{record.id}/undo", data={"confirm": "1"})
    assert "已经撤销过了" in flashes(client.get("/collection").get_data(as_text=True))[0]


def test_undo_is_refused_when_cards_were_removed_since(sample_app, client, login) -> None:
    alice = login(client)
    one = pid(sample_app)
    confirm(client, upload(client, b"set,number,quantity\nM4,M4-001,2\n").get_data(as_text=True))
    add(client, printing_id=one, delta=-2)
    with db(sample_app) as session:
        import_id = session.scalar(select(CollectionImport.id))
    client.get("/collection")  # consume the flashes so far
    client.post(f"/collection/imports/{import_id}/undo", data={"confirm": "1"})
    message = flashes(client.get("/collection/imports").get_data(as_text=True))[0]
    assert f"无法撤销导入 #{import_id}" in message
    assert owned_now(sample_app, alice.id, one) == (0, 0)


def test_import_errors_list_line_and_column(sample_app, client, login) -> None:
    alice = login(client)
    data = b"set,number,quantity,condition\nM4,M4-001,2,NM\nM4,M4-999,1,NM\nM4,M4-002,x,shiny\n"
    response = upload(client, data)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "无法导入，未作任何改动" in page
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]+)</td><td>([^<]+)</td></tr>', page)
    assert ("3", "number", "系列 M4 中没有编号 M4-999") in rows
    assert any(line == "4" and column == "quantity" for line, column, _m in rows)
    assert any(line == "4" and column == "condition" for line, column, _m in rows)
    assert collection_of(sample_app, alice.id) == {}
    assert upload(client, b"").status_code in (400, 422)
    assert client.post("/collection/import", data={"mode": "add"}).status_code == 400
    assert client.post("/collection/import", data={"confirm": "1", "payload": "!!not base64"}).status_code == 400
    # A confirmation carries the file in a form field larger than Flask's default 500 kB limit.
    large = base64.b64encode(os.urandom(600_000)).decode()
    response = client.post("/collection/import", data={"confirm": "1", "payload": large})
    assert response.status_code == 400 and "文件数据已损坏" in response.get_data(as_text=True)
    assert collection_of(sample_app, alice.id) == {}


def test_export_then_reimport_in_replace_mode_changes_nothing(sample_app, client, login) -> None:
    alice = login(client)
    give(sample_app, alice.id, {pid(sample_app): 2, pid(sample_app, "M1", "M1-001"): 1})
    give(sample_app, alice.id, {pid(sample_app): 1}, ItemGrade("HP", "日", "闪"))
    client.post("/collection/items/trade", data={"printing_id": pid(sample_app), "for_trade": 1})
    response = client.get("/collection/export.csv")
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="lunzang-collection.csv"'
    exported = response.get_data()
    assert exported.startswith("\ufeffset,number,name,quantity".encode())
    before = collection_of(sample_app, alice.id)
    preview = upload(client, exported, mode="replace").get_data(as_text=True)
    assert "导入不会改变你的收藏" in preview and "确认导入" not in preview
    deckbox = client.get("/collection/export.csv?preset=deckbox")
    assert deckbox.headers["Content-Disposition"] == 'attachment; filename="lunzang-collection-deckbox.csv"'
    assert "Count,Name,Edition" in deckbox.get_data(as_text=True)
    assert client.get("/collection/export.csv?preset=nope").status_code == 400
    assert collection_of(sample_app, alice.id) == before


def test_history_filters_and_pages(sample_app, client, login) -> None:
    alice = login(client)
    one, two = pid(sample_app, "M4", "M4-001"), pid(sample_app, "M4", "M4-002")
    for _ in range(3):
        add(client, printing_id=two, delta=1)
    for _ in range(101):
        add(client, printing_id=one, delta=1)
    page = client.get("/collection/history").get_data(as_text=True)
    assert page.count("<tr>") == 101 and 'href="/collection/history?page=2"' in page
    second = client.get("/collection/history?page=2").get_data(as_text=True)
    assert second.count("<tr>") == 5 and "小红帽·狼猎手" in second  # header + 1 + 3
    only_two = client.get(f"/collection/history?printing={two}").get_data(as_text=True)
    assert only_two.count("<tr>") == 4 and "小红帽·森林歌者" not in only_two
    assert ledger_rows(sample_app, alice.id) == 104


def test_grades_are_shown_in_the_readers_language(sample_app: Any, client: Any, login: Any) -> None:
    """Stored grades are the CSV values (简中, 闪); the English interface names them."""
    alice = login(client, "alice")
    with Session(get_engine(sample_app)) as session:
        pid = printing_id(session, "M4", "M4-001")
    give(sample_app, alice.id, {pid: 1}, ItemGrade("LP", "繁中", "闪"))
    chinese = client.get("/collection").get_data(as_text=True)
    assert "<td>繁中</td>" in chinese and "<td>闪卡</td>" in chinese
    english = client.get("/collection?lang=en").get_data(as_text=True)
    assert "<td>Traditional Chinese</td>" in english and "<td>Foil</td>" in english
    assert "<td>繁中</td>" not in english


def test_the_rows_escape_what_the_request_and_the_data_bring(sample_app, client, login) -> None:
    """The rows are written out in Python (webapp/collection/rows.py ROW): the page's own
    address (each form's ``next``), the note and the card's text come escaped."""
    alice = login(client)
    printing = pid(sample_app)
    give(sample_app, alice.id, {printing: 1})
    client.post("/collection/items/note", data={"printing_id": printing, "note": "a&b <i>"})
    page = client.get('/collection?x="><b>y</b>').get_data(as_text=True)
    assert "<b>y" not in page and '"><b>' not in page
    assert 'name="next" value="/collection?x=&#34;&gt;&lt;b&gt;y&lt;/b&gt;"' in page
    assert '<span class="note">a&amp;b &lt;i&gt;</span>' in page
    assert 'value="a&amp;b &lt;i&gt;"' in page
    assert page.count('<tr data-printing="') == 1

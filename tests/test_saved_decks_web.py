"""Saved decks on the web: save from the check page, the list with legality and
what the collection covers, one deck's page, missing cards into the want list, owner-only."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.saved_decks import save_deck
from catalog.models import Card, SavedDeck, WantItem
from tests.kits.collection import NOW
from tests.kits.deck import legal_samsara_list
from tests.kits.wants import engine_of, give

SMALL = "名称: 小红帽\n2 小红帽·森林歌者\n1 小红帽·狼猎手\n"


def decks_of(client: Any, user_id: int) -> list[tuple[str, str, str]]:
    with Session(engine_of(client)) as session:
        rows = session.scalars(select(SavedDeck).where(SavedDeck.user_id == user_id).order_by(SavedDeck.id))
        return [(d.name, d.format_code, d.text) for d in rows]


def save(client: Any, text: str = SMALL, name: str = "童话", **form: str) -> Any:
    return client.post("/decks/mine", data={"name": name, "game": "samsara", "format": "", "list": text, **form})


def deck_id_from(response: Any) -> int:
    match = re.fullmatch(r"/decks/mine/(\d+)", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/decks/mine"),
        ("post", "/decks/mine"),
        ("get", "/decks/mine/1"),
        ("post", "/decks/mine/1"),
        ("post", "/decks/mine/1/delete"),
        ("post", "/decks/mine/1/wants"),
    ],
)
def test_anonymous_visitors_are_sent_to_sign_in(sample_app: Any, method: str, path: str) -> None:
    response = getattr(sample_app.test_client(), method)(path)
    assert response.status_code == 302 and "/login?next=" in response.headers["Location"]


def test_check_page_offers_the_save_form_to_signed_in_users(sample_app: Any, client: Any, login: Any) -> None:
    query = {"game": "samsara", "format": "m8", "list": SMALL}
    assert 'action="/decks/mine"' not in client.get("/decks", query_string=query).get_data(as_text=True)
    login(client, "alice")
    page = client.get("/decks", query_string=query).get_data(as_text=True)
    form = re.search(r'<form class="save-deck" method="post" action="/decks/mine"[^>]*>(.*?)</form>', page, re.S)
    assert form, "no save form"
    body = form.group(1)
    assert 'name="csrf_token"' in body
    assert 'name="list" value="名称: 小红帽\n2 小红帽·森林歌者\n1 小红帽·狼猎手\n"' in body
    assert 'id="save-name" name="name" maxlength="100" required value="小红帽"' in body  # the list's own name
    assert '<option value="samsara" selected>' in body and '<option value="m8" selected>' in body


def test_save_list_and_open_a_deck(sample_app: Any, client: Any, sample_catalogue: Any, login: Any) -> None:
    alice = login(client, "alice")
    give(client, alice.id, "M4", "M4-001", 2)
    give(client, alice.id, "M4", "M4-002", 1)
    small = deck_id_from(save(client, name="童话"))
    legal_text = legal_samsara_list(sample_catalogue)
    copies = sum(int(line.split()[0]) for line in legal_text.splitlines() if line[:1].isdigit())
    legal = deck_id_from(save(client, legal_text, name="样例", format="m8"))
    assert decks_of(client, alice.id)[1][:2] == ("样例", "m8")

    page = client.get("/decks/mine").get_data(as_text=True)
    rows = dict(re.findall(r'<tr id="deck-(\d+)">(.*?)</tr>', page, re.S))
    assert "童话" in rows[str(small)] and "不合法" in rows[str(small)]
    assert "可用收藏组成" in rows[str(small)] and '<td class="num">3 / 3</td>' in rows[str(small)]
    assert 'class="legality verdict legal"' in rows[str(legal)] and "可用收藏组成" not in rows[str(legal)]
    assert f'<td class="num">0 / {copies}</td>' in rows[str(legal)]

    page = client.get(f"/decks/mine/{legal}").get_data(as_text=True)
    assert "<h1>样例</h1>" in page and f"共缺少 {copies} 张。" in page
    assert "把缺少的卡加入需求列表" in page
    links = {
        name: parse_qs(urlsplit(href.replace("&amp;", "&")).query)
        for href, name in re.findall(r'<a class="button secondary" href="([^"]+)"[^>]*>([^<]+)</a>', page)
    }
    form = re.search(r'<form class="proxy-form" method="get" action="/decks/proxies.pdf">(.*?)</form>', page, re.S)
    assert form and "打印代理 PDF" in form.group(1)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form.group(1)))
    links["打印代理 PDF"] = {k: [html.unescape(v)] for k, v in fields.items()}
    for label in ("载入构筑检查（设为当前卡组）", "下载卡组图片", "打印代理 PDF"):
        assert links[label]["game"] == ["samsara"] and links[label]["format"] == ["m8"]
        assert links[label]["list"] == [legal_text]

    page = client.get(f"/decks/mine/{small}").get_data(as_text=True)
    lines = re.findall(
        r'<tr(?: class="missing")?>\s*<th scope="row"[^>]*><a [^>]*>([^<]+)</a></th>\s*'
        r'<td class="num">(\d+)</td>\s*<td class="num">(\d+)</td>\s*<td class="num">(\d+)</td>',
        page,
    )
    assert sorted(lines) == [("小红帽·森林歌者", "2", "2", "0"), ("小红帽·狼猎手", "1", "1", "0")]
    assert "把缺少的卡加入需求列表" not in page  # nothing missing
    # Illegal (too small), yet offered its image and proxies, beside the 不合法 badge.
    assert "不合法" in page and "下载卡组图片" in page and 'class="proxy-form"' in page


def test_add_missing_cards_to_the_want_list(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    give(client, alice.id, "M4", "M4-001", 1)
    deck = deck_id_from(save(client))
    page = client.get(f"/decks/mine/{deck}").get_data(as_text=True)
    assert '<tr class="missing">' in page and "共缺少 2 张。" in page
    response = client.post(f"/decks/mine/{deck}/wants")
    assert response.status_code == 302 and response.headers["Location"] == f"/decks/mine/{deck}"
    with Session(engine_of(client)) as session:
        names = {c.id: c.name for c in session.scalars(select(Card))}
        wants = {(names[w.card_id], w.printing_id, w.quantity) for w in session.scalars(select(WantItem))}
    assert wants == {("小红帽·森林歌者", None, 1), ("小红帽·狼猎手", None, 1)}
    assert "已把 2 种缺少的卡加入需求列表" in client.get(f"/decks/mine/{deck}").get_data(as_text=True)
    client.post(f"/decks/mine/{deck}/wants")
    assert "缺少的卡都已在需求列表中" in client.get(f"/decks/mine/{deck}").get_data(as_text=True)


def test_rename_update_and_delete(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    deck = deck_id_from(save(client))
    form = {"name": "新名字", "game": "samsara", "format": "standard", "list": "3 小红帽·森林歌者\n"}
    assert client.post(f"/decks/mine/{deck}", data=form).status_code == 302
    assert decks_of(client, alice.id) == [("新名字", "standard", "3 小红帽·森林歌者\n")]
    response = client.post(f"/decks/mine/{deck}/delete")
    assert response.status_code == 302 and response.headers["Location"] == "/decks/mine"
    assert decks_of(client, alice.id) == []
    assert "卡组「新名字」已删除" in client.get("/decks/mine").get_data(as_text=True)


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"name": "  "}, "请给卡组起个名字"),
        ({"format": "没有的赛制"}, "没有赛制「没有的赛制」"),
        ({"game": "chess"}, "未知的游戏「chess」"),
        ({"list": "x" * 20_001}, "卡组文本太长"),
    ],
)
def test_bad_deck_input_is_explained_and_changes_nothing(
    sample_app: Any, client: Any, login: Any, form: dict[str, str], message: str
) -> None:
    alice = login(client, "alice")
    response = save(client, **form)
    assert response.status_code == 400 and message in response.get_data(as_text=True)
    assert decks_of(client, alice.id) == []
    deck = deck_id_from(save(client))
    before = decks_of(client, alice.id)
    data = {"name": "童话", "game": "samsara", "format": "", "list": SMALL, **form}
    response = client.post(f"/decks/mine/{deck}", data=data)
    assert response.status_code == 400 and message in response.get_data(as_text=True)
    assert decks_of(client, alice.id) == before


def test_another_users_deck_is_a_404_and_stays_as_it_was(sample_app: Any, login: Any) -> None:
    alice_client, bob_client = sample_app.test_client(), sample_app.test_client()
    alice = login(alice_client, "alice")
    bob = login(bob_client, "bob")
    deck = deck_id_from(save(alice_client, name="爱丽丝的秘密卡组"))
    before = decks_of(alice_client, alice.id)
    assert bob_client.get(f"/decks/mine/{deck}").status_code == 404
    form = {"name": "偷来的", "game": "samsara", "list": SMALL}
    assert bob_client.post(f"/decks/mine/{deck}", data=form).status_code == 404
    assert bob_client.post(f"/decks/mine/{deck}/wants").status_code == 404
    assert bob_client.post(f"/decks/mine/{deck}/delete").status_code == 404
    assert decks_of(alice_client, alice.id) == before and decks_of(bob_client, bob.id) == []
    with Session(engine_of(bob_client)) as session:
        assert session.scalars(select(WantItem)).all() == []
    assert "爱丽丝的秘密卡组" not in bob_client.get("/decks/mine").get_data(as_text=True)
    assert bob_client.get("/decks/mine/999999").status_code == 404


def test_html_in_deck_names_is_escaped(sample_app: Any, client: Any, login: Any) -> None:
    login(client, "alice")
    evil = "<script>alert('x')</script>"
    deck = deck_id_from(save(client, name=evil))
    for path in ("/decks/mine", f"/decks/mine/{deck}"):
        page = client.get(path).get_data(as_text=True)
        assert evil not in page and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page


@pytest.mark.parametrize(
    "path", ["/decks/mine", "/decks/mine/{id}", "/decks/mine/{id}/delete", "/decks/mine/{id}/wants"]
)
def test_deck_posts_without_csrf_token_are_refused(
    csrf_client: Any, sample_catalogue: Any, login: Any, path: str
) -> None:
    alice = login(csrf_client, "alice")
    with Session(engine_of(csrf_client)) as session, session.begin():
        deck = save_deck(session=session, user_id=alice.id, game="samsara", name="童话", text=SMALL, now=NOW)
        deck_id = deck.id
    before = decks_of(csrf_client, alice.id)
    form = {"name": "改名", "game": "samsara", "format": "", "list": SMALL}
    for data in (form, {**form, "csrf_token": "forged"}):
        response = csrf_client.post(path.format(id=deck_id), data=data)
        assert response.status_code == 400 and "安全令牌" in response.get_data(as_text=True)
    assert decks_of(csrf_client, alice.id) == before
    with Session(engine_of(csrf_client)) as session:
        assert session.scalars(select(WantItem)).all() == []


def test_saved_deck_header_image_title_and_sheet_name(sample_app: Any, client: Any, login: Any) -> None:
    """the header shows 标准 (not standard), the image link carries the deck's name
    (its title read 未命名卡组), and the registration sheet fills in the signed-in player."""
    import re

    login(client, "alice")
    saved = client.post(
        "/decks/mine",
        data={"name": "圆桌速攻", "game": "samsara", "format": "standard", "list": "3 小红帽·森林歌者\n"},
    )
    page = client.get(saved.headers["Location"]).get_data(as_text=True)
    header = page.split('class="description">', 1)[1].split("</p>", 1)[0]
    assert "标准" in header and "standard" not in header
    image = re.search(r'href="(/decks/image\.png[^"]*)"', page)
    assert image and "name=" in image.group(1)
    sheet = client.get("/decks/print", query_string={"game": "samsara", "list": "3 小红帽·森林歌者\n"})
    assert '<dd class="blank">alice</dd>' in sheet.get_data(as_text=True)

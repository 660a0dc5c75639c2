"""Deck pages: the checker (verdict, highlighted lines, charts, odds), export, print sheet, rules pages."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from catalog.decks.stats import p_at_least_one
from catalog.rules import DrawModel
from tests.kits.deck import legal_samsara_list


def test_hypergeometric_is_exact() -> None:
    from fractions import Fraction

    assert p_at_least_one(50, 3, 5) == 1 - Fraction(47 * 46 * 45 * 44 * 43, 50 * 49 * 48 * 47 * 46)
    assert p_at_least_one(40, 0, 7) == 0
    assert p_at_least_one(40, 1, 40) == 1
    assert p_at_least_one(10, 3, 99) == 1  # more draws than cards: capped at the deck
    assert DrawModel(5).seen_by_turn(3) == 8
    assert DrawModel(7, first_turn_draw=False).seen_by_turn(1) == 7


def test_checker_page_without_a_list_shows_the_form(sample_app: Any) -> None:
    page = sample_app.test_client().get("/decks").get_data(as_text=True)
    assert 'name="list"' in page and "构筑检查" in page
    assert "M8 新环境 (m8)" in page  # formats of the manifests, grouped by game


def test_checker_page_points_at_the_lines(sample_app: Any) -> None:
    text = "名称: 测试\n4 小红帽·森林歌者\n1 不存在的卡\n额外卡组:\n2 火之法力石\n"
    page = sample_app.test_client().get("/decks", query_string={"game": "samsara", "list": text}).get_data(as_text=True)
    assert "不合法" in page
    assert 'data-code="too_many_copies"' in page and 'data-code="unknown_card"' in page
    assert re.search(r'<li id="line-2" value="2" class="error" data-codes="too_many_copies', page)
    assert re.search(r'<li id="line-3" value="3" class="error" data-codes="unknown_card"', page)
    assert '<li id="line-5" value="5"><code>' in page  # an untouched line is not marked
    assert 'href="#line-2"' in page
    assert 'data-chart="curve"' in page and 'data-chart="attributes"' in page and 'data-chart="types"' in page
    assert "抽到至少一张的概率" in page and "第 5 回合" in page


def test_checker_page_in_english(sample_app: Any) -> None:
    query = {"game": "samsara", "list": "4 小红帽·森林歌者\n", "lang": "en"}
    page = sample_app.test_client().get("/decks", query_string=query).get_data(as_text=True)
    assert "Not legal" in page and "4 copies of &#39;小红帽·森林歌者&#39;" in page


def test_legal_deck_page_and_odds_table(sample_app: Any, sample_catalogue: Any) -> None:
    text = legal_samsara_list(sample_catalogue)
    page = sample_app.test_client().get("/decks", query_string={"game": "samsara", "format": "m8", "list": text})
    body = page.get_data(as_text=True)
    assert 'class="verdict legal"' in body
    # 3 copies in 51 cards, 5-card opening hand: 1 - C(48,5)/C(51,5) = 1 - 91080/124950 = 27.1 %
    assert "27.1%" in body


def test_unreadable_list_is_explained_on_the_page(sample_app: Any) -> None:
    page = sample_app.test_client().get("/decks", query_string={"game": "samsara", "list": "1 x\n杂项:\n"})
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "无法读取卡组" in body and "第 2 行" in body


@pytest.mark.parametrize("kind", ["txt", "json"])
def test_export(sample_app: Any, kind: str) -> None:
    query = {"game": "samsara", "list": "名称: 导出\n3x M4-001\n额外卡组:\n2 火之法力石\n"}
    response = sample_app.test_client().get(f"/decks/export.{kind}", query_string=query)
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    body = response.get_data(as_text=True)
    if kind == "json":
        data = json.loads(body)
        assert data["name"] == "导出" and data["main"] == [{"card": "小红帽·森林歌者", "count": 3, "set": "M4"}]
    else:
        assert body.startswith("名称: 导出\n") and "主卡组:\n3 小红帽·森林歌者 (M4)\n" in body


def test_print_sheet(sample_app: Any) -> None:
    query = {"game": "samsara", "format": "m8", "list": "3 亚瑟王·圣剑之誓\n额外卡组:\n2 风之法力石\n"}
    response = sample_app.test_client().get("/decks/print", query_string=query)
    body = response.get_data(as_text=True)
    assert response.status_code == 200 and "卡组登记表" in body and "亚瑟王·圣剑之誓" in body
    assert "M8 新环境" in body and "decks.css" in body
    assert sample_app.test_client().get("/decks/print").status_code == 400


@pytest.mark.parametrize(
    ("game", "seed", "words"),
    [
        ("samsara", "000_3f4769f9eb2a054d.txt", "基本法力石不受 3 张限制"),
        ("longzhiyi", "001_8b66ae0f33d52d89.txt", "恰好一张武器牌"),
        ("zhutian", "002_5760857c48ea0168.txt", "限制 1 张、准限制 2 张、无 4 张"),
        ("keyforge", "004_1f8fe3ec01abfa21.txt", "恰好来自 3 个派系"),
    ],
)
def test_rules_pages(client: Any, game: str, seed: str, words: str) -> None:
    body = client.get(f"/rules/{game}").get_data(as_text=True)
    assert seed not in body and words in body  # the seed file name is internal: not shown to readers
    english = client.get(f"/rules/{game}?lang=en").get_data(as_text=True)
    assert "Construction rules" in english or "construction rules" in english


def test_rules_page_of_an_unknown_game_is_404(client: Any) -> None:
    assert client.get("/rules/nosuch").status_code == 404


def test_nav_links_to_the_checker(client: Any) -> None:
    page = client.get("/decks").get_data(as_text=True)
    assert re.search(r'href="/decks"\s*aria-current="page">构筑检查</a>', page)


def test_plus_minus_and_add_post_the_list_and_never_put_it_in_a_url(sample_app: Any, client: Any) -> None:
    """the + / − buttons and "add" post the list; the answer is the bare /decks."""
    base = {"game": "samsara", "list": "3 小红帽·森林歌者\n"}
    page = client.post("/decks", data=base)
    assert page.status_code == 303 and "list=" not in page.headers["Location"]
    body = client.get(page.headers["Location"]).get_data(as_text=True)
    assert 'name="inc" value="1"' in body and 'name="dec" value="1"' in body and 'name="add"' in body
    assert "list=" not in body and "inc=" not in body  # no link carries the deck
    plus = client.post("/decks", data={**base, "inc": "1"})
    assert plus.status_code == 303 and "list=" not in plus.headers["Location"]
    followed = client.get(plus.headers["Location"]).get_data(as_text=True)
    assert "4 小红帽·森林歌者" in followed and 'data-code="too_many_copies"' in followed
    minus = client.post("/decks", data={"game": "samsara", "list": "4 小红帽·森林歌者\n", "dec": "1"})
    assert "3 小红帽·森林歌者" in client.get(minus.headers["Location"]).get_data(as_text=True)
    added = client.post("/decks", data={**base, "add": "火之法力石", "add_count": "4", "add_section": "extra"})
    followed = client.get(added.headers["Location"]).get_data(as_text=True)
    assert "额外卡组:\n4 火之法力石" in followed


def test_a_list_too_long_for_the_session_is_answered_directly(sample_app: Any, client: Any) -> None:
    text = "".join(f"# {'注' * 40} {n}\n" for n in range(40)) + "3 小红帽·森林歌者\n"
    response = client.post("/decks", data={"game": "samsara", "list": text, "inc": str(41)})
    assert response.status_code == 200
    assert "4 小红帽·森林歌者" in response.get_data(as_text=True)


def test_longzhiyi_odds_leave_the_weapon_out(sample_app: Any) -> None:
    people = ["書院弟子", "持戒武僧", "白衣醫者", "玉京守將", "太清真人"]
    text = "1 青霜劍\n" + "".join(f"3 {name}\n" for name in people)
    page = sample_app.test_client().get("/decks", query_string={"game": "longzhiyi", "list": text})
    body = page.get_data(as_text=True)
    assert "主卡组 15 张" in body and "起手 7 张" in body  # 15 people, the weapon set aside
    odds = body[body.index('<table class="odds">') :]
    assert "青霜劍" not in odds


def test_working_deck_is_kept_in_the_session(sample_app: Any, client: Any) -> None:
    client.post("/decks", data={"game": "samsara", "list": "3 小红帽·森林歌者\n"})
    again = client.get("/decks").get_data(as_text=True)  # a bare visit shows the deck being built
    assert "3 小红帽·森林歌者" in again and "清空卡组" in again
    # a link from elsewhere (a search result) adds to it
    added = client.get("/decks", query_string={"game": "samsara", "add": "小红帽·狼猎手"})
    assert added.status_code == 303
    page = client.get(added.headers["Location"]).get_data(as_text=True)
    assert "3 小红帽·森林歌者\n1 小红帽·狼猎手" in page
    # another game starts a new list rather than mixing games
    other = client.get("/decks", query_string={"game": "keyforge", "add": "山岳拳王"})
    assert "list=" not in other.headers["Location"]
    page = client.get(other.headers["Location"]).get_data(as_text=True)
    assert "1 山岳拳王" in page and "小红帽" not in page
    client.get("/decks", query_string={"clear": "1"})
    assert "3 小红帽·森林歌者" not in client.get("/decks").get_data(as_text=True)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/cards?q=swk", "/cards?q=swk"),
        ("https://evil.example/", "/decks"),
        ("//evil.example/", "/decks"),
        ("/\\evil.example", "/decks"),
        # browsers drop tabs and newlines from URLs: "/\t/evil.example" is "//evil.example" to them
        ("/\t/evil.example", "/decks"),
        ("/\n/evil.example", "/decks"),
        ("javascript:alert(1)", "/decks"),
        ("", "/decks"),
    ],
)
def test_working_deck_edits_go_back_to_local_paths_only(client: Any, target: str, expected: str) -> None:
    form = {"game": "samsara", "name": "孙悟空", "action": "add", "next": target}
    response = client.post("/decks/working", data=form)
    assert response.status_code == 302
    assert response.headers["Location"] == expected


def test_print_sheet_fills_the_set_column(sample_app: Any) -> None:
    """a line without (SET) shows the sets the card is printed in."""
    body = (
        sample_app.test_client()
        .get("/decks/print", query_string={"game": "samsara", "list": "3 孙悟空\n1 小红帽·狼猎手 (M4)\n"})
        .get_data(as_text=True)
    )
    rows = re.findall(r"<tr><td class=\"num\">(\d+)</td><td[^>]*>([^<]+)</td><td>[^<]*</td><td>([^<]*)</td></tr>", body)
    assert ("1", "小红帽·狼猎手", "M4") in rows
    assert any(name == "孙悟空" and "P2" in sets for _n, name, sets in rows)


def test_deck_image_of_unknown_cards_is_the_sites_error_page(sample_app: Any) -> None:
    """not Werkzeug's bare "400 Bad Request" page."""
    response = sample_app.test_client().get(
        "/decks/image.png", query_string={"game": "samsara", "list": "3 nosuchcard"}
    )
    body = response.get_data(as_text=True)
    assert response.status_code == 400
    assert '<main id="main"' in body and "nosuchcard" in body and "<title>400 Bad Request" not in body


def test_an_illegal_deck_is_offered_its_image_and_proxies_with_the_illegal_badge(sample_app: Any, client: Any) -> None:
    """a deck that breaks the rules (too small here) can still be drawn and
    printed; the page says 不合法 beside the links and the image carries the red badge."""
    import io

    from PIL import Image

    from catalog.images import decks as deckimages

    query = {"game": "samsara", "list": "3 孙悟空\n"}
    page = client.get("/decks", query_string=query).get_data(as_text=True)
    assert 'class="verdict illegal"' in page
    assert "下载卡组图片" in page and 'class="proxy-form"' in page and "打印代理 PDF" in page
    image = client.get("/decks/image.png", query_string=query)
    assert image.status_code == 200
    picture = Image.open(io.BytesIO(image.data)).convert("RGB")
    badge = picture.getpixel((picture.width - deckimages.MARGIN - 8, deckimages.MARGIN + 33))
    assert badge == deckimages.ILLEGAL
    pdf = client.get("/decks/proxies.pdf", query_string=query)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF-")


def test_the_type_chart_says_it_counts_the_extra_deck(sample_app: Any, sample_catalogue: Any) -> None:
    """the other charts count the main deck; the type chart's title says it
    counts both, and its bars include the extra deck's stones."""
    from tests.kits.deck import legal_samsara_list

    page = sample_app.test_client().get(
        "/decks", query_string={"game": "samsara", "list": legal_samsara_list(sample_catalogue)}
    )
    body = page.get_data(as_text=True)
    assert "费用曲线（主卡组）" in body and "类型（主卡组与额外卡组）" in body
    types = re.search(r'data-chart="types">(.*?)</figure>', body, re.S)
    assert types and 'data-label="法力石"' in types.group(1)

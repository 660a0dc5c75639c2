"""the card page (legality per format, add to deck / collection /
wants, prints and reprints, the card's own keyword parameters), the set page's image grid and
its links, and game words in English on English pages."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

import pytest
from sqlalchemy import select
from sqlmodel import Session

from catalog.decks.legality import BANNED, LEGAL, LIMITED, NOT_LEGAL, FormatStatus, format_status
from catalog.games import GAMES
from catalog.models import CollectionItem, WantItem
from catalog.rules import FormatSpec, PoolCard
from tests.kits.web import page, section, visible_text
from webapp.db import get_engine
from webapp.helpers import WORKING_DECK


@pytest.fixture
def web(sample_app):
    return sample_app.test_client()


def card_url(game: str, name: str, query: str = "") -> str:
    return f"/cards/{game}/{quote(name)}" + (f"?{query}" if query else "")


# ---------------------------------------------------------------------------- the domain answer


def soul(**fields) -> PoolCard:
    values = {"id": 7, "name": "试验战魂", "name_key": "试验战魂", "type": "战魂", "set_codes": frozenset({"M4"})}
    return PoolCard(**(values | fields))


LEGION_5 = ({"kind": "legion", "value": 5, "subject": None, "label": "军团(5)"},)


@pytest.mark.parametrize(
    ("card", "legal_sets", "bans", "expected"),
    [
        (soul(), ("*",), {}, (LEGAL, 3)),
        (soul(keywords=LEGION_5), ("*",), {}, (LEGAL, 5)),  # 军团(X) raises the limit
        (soul(type="法力石"), ("*",), {}, (LEGAL, None)),  # a basic stone has none
        (soul(), ("*",), {7: 0}, (BANNED, None)),
        (soul(), ("*",), {7: 1}, (LIMITED, 1)),
        (soul(), ("*",), {7: 2}, (LIMITED, 2)),
        (soul(keywords=LEGION_5), ("*",), {7: 2}, (LIMITED, 2)),  # the ban list wins downward
        (soul(), ("M8", "G*"), {}, (NOT_LEGAL, None)),
        (soul(set_codes=frozenset({"M4", "G2"})), ("M8", "G*"), {}, (LEGAL, 3)),  # a reprint counts
        (soul(), ("M8",), {7: 0}, (BANNED, None)),
        (soul(), ("*",), {8: 0}, (LEGAL, 3)),  # another card's ban
    ],
)
def test_format_status_follows_the_rules_of_the_format(card, legal_sets, bans, expected) -> None:
    fmt = FormatSpec("samsara", "m8", "standard", "M8 新环境", {"copy_limit": 3}, legal_sets, bans)
    found = format_status(card, fmt)
    assert (found.status, found.limit) == expected
    assert (found.code, found.name) == ("m8", "M8 新环境")


@pytest.mark.parametrize(
    ("restriction", "limit"),
    [("限制", 1), ("準限制", 2), ("無", 4)],
)
def test_format_status_uses_each_games_own_copy_limit(restriction: str, limit: int) -> None:
    card = PoolCard(
        id=1, name="卡", name_key="卡", type="活物", extra={"restriction": restriction, "copy_limit": limit}
    )
    fmt = FormatSpec("zhutian", "competitive", "competitive", "競技規則", {"main_min": 36})
    assert format_status(card, fmt) == FormatStatus("competitive", "競技規則", LEGAL, limit)
    keyforge = FormatSpec("keyforge", "archon", "archon", "执政官", {})
    assert format_status(PoolCard(id=2, name="k", name_key="k", type="生物"), keyforge).limit is None


@pytest.mark.parametrize(
    ("game", "kind", "value", "subject", "expected"),
    [
        ("samsara", "restricted", None, "悟空", "放入这张卡的卡组中，不能有特征『悟空』以外的战魂。"),
        ("samsara", "restricted", None, None, "放入这张卡的卡组中，不能有特征『A』以外的战魂。"),
        ("samsara", "carrier", 3, "龙人", "这张载具最多可搭载3张具有特征『龙人』的战魂。"),
        ("samsara", "shield", 2, None, "每次受到伤害时，伤害减少2。"),
        ("samsara", "legion", 5, None, "构筑时同名卡最多可以放入5张，代替通常的三张上限。"),
        ("samsara", "flying", None, None, "可以越过对方防守区的卡牌，直接攻击对方玩家。"),
        ("keyforge", "assault", 3, None, "发起战斗时，先对被攻击的生物造成 3 点伤害。"),
    ],
)
def test_keyword_explanation_takes_the_cards_own_parameter(game, kind, value, subject, expected) -> None:
    assert GAMES[game].keyword_info(kind).explain(value=value, subject=subject) == expected


# ---------------------------------------------------------------------------- the card page


def legality_rows(markup: str) -> dict[str, tuple[str, str]]:
    """format code → (status, visible text of the row)."""
    table = section(markup, '<table class="legality">', "</table>")
    return {
        code: (status, visible_text(body))
        for code, status, body in re.findall(
            r'<tr data-format="([^"]+)" data-status="([^"]+)">(.*?)</tr>', table, flags=re.S
        )
    }


@pytest.mark.parametrize(
    ("name", "standard", "m8"),
    [
        ("仙女教母", ("legal", "标准 可用 每副卡组最多 3 张"), ("not_legal", "M8 新环境 不在此赛制")),
        ("虚华·空暝之主", ("legal", "标准 可用 每副卡组最多 3 张"), ("banned", "M8 新环境 禁止")),
        (
            "绝闪·龙皇降临",
            ("legal", "标准 可用 每副卡组最多 3 张"),
            ("limited", "M8 新环境 限制 1 张 每副卡组最多 1 张"),
        ),
        (
            "亚瑟王·圣剑之誓",
            ("legal", "标准 可用 每副卡组最多 3 张"),
            ("limited", "M8 新环境 限制 2 张 每副卡组最多 2 张"),
        ),
        ("火之法力石", ("legal", "标准 可用 不限张数"), ("legal", "M8 新环境 可用 不限张数")),
    ],
)
def test_card_page_has_a_legality_row_per_format(web, name: str, standard, m8) -> None:
    found = legality_rows(page(web, card_url("samsara", name)))
    assert found == {"standard": standard, "m8": m8}


def test_legality_in_english_names_the_formats_in_english(web) -> None:
    found = legality_rows(page(web, card_url("samsara", "绝闪·龙皇降临", "lang=en")))
    assert found["standard"][1] == "Standard Legal Up to 3 per deck"
    assert found["m8"][1] == "M8 new environment Limited to 1 Up to 1 per deck"
    zhutian = legality_rows(page(web, card_url("zhutian", "煉妖壺", "lang=en")))
    assert zhutian["competitive"] == ("banned", "Competitive Banned")


def test_keyword_explanation_on_the_page_names_the_cards_trait(web) -> None:
    keywords = section(page(web, card_url("samsara", "仙女教母")), '<dl class="keywords">', "</dl>")
    assert "不能有特征『童话』以外的战魂" in keywords
    assert "『A』" not in keywords
    assert GAMES["samsara"].keyword_info("unique").explanation in keywords  # no parameter: as in the glossary


def test_visitors_get_the_deck_form_and_a_sign_in_link(web) -> None:
    markup = page(web, card_url("samsara", "仙女教母"))
    actions = section(markup, 'class="card-actions"', "</section>")
    assert 'action="/decks/working"' in actions
    assert 'action="/collection/items"' not in actions and 'action="/wants"' not in actions
    link = re.search(r'<a href="(/login\?next=[^"]+)">登录</a>', actions)
    assert link and unquote(link[1]).endswith("/cards/samsara/仙女教母")


def test_signed_in_forms_carry_csrf_and_post_to_the_existing_endpoints(sample_app, client, login) -> None:
    sample_app.config["WTF_CSRF_ENABLED"] = True  # as in production: the forms carry their token
    login(client)
    markup = page(client, card_url("samsara", "龙人豪杰·赤鳞"))
    actions = section(markup, 'class="card-actions"', "</section>")
    forms = re.findall(r'<form [^>]*action="([^"]+)"[^>]*>(.*?)</form>', actions, flags=re.S)
    assert [action for action, _body in forms] == ["/decks/working", "/collection/items", "/wants"]
    for _action, body in forms:
        assert re.search(r'name="csrf_token" value="[^"]+"', body)
    # the collection form names each printing
    collection = forms[1][1]
    assert re.findall(r"<option value=\"\d+\"[^>]*>(\w+ [\w-]+)</option>", collection) == ["M1 M1-001", "G2 G2-001"]


def test_adding_from_the_card_page_changes_deck_collection_and_wants(sample_app, client, login) -> None:
    user = login(client)
    back = card_url("samsara", "火之法力石")
    markup = page(client, back)
    printing = re.search(r'<select id="collection-printing" name="printing_id">\s*<option value="(\d+)"', markup)
    assert printing

    response = client.post(
        "/decks/working", data={"game": "samsara", "name": "火之法力石", "section": "extra", "next": back}
    )
    assert response.status_code == 302 and unquote(response.location).endswith(unquote(back))
    with client.session_transaction() as web_session:
        assert "额外卡组:\n1 火之法力石" in web_session[WORKING_DECK]["list"]
    assert "卡组中 1 张" in page(client, back)
    # a section the page does not offer changes nothing
    client.post("/decks/working", data={"game": "samsara", "name": "火之法力石", "section": "x", "next": back})
    with client.session_transaction() as web_session:
        assert web_session[WORKING_DECK]["list"].count("火之法力石") == 1

    form = {"printing_id": printing[1], "delta": "2", "condition": "LP", "language": "en", "finish": "foil"}
    response = client.post("/collection/items", data={**form, "next": back})
    assert response.status_code == 303
    with Session(get_engine(sample_app)) as session:
        items = session.scalars(select(CollectionItem).where(CollectionItem.user_id == user.id)).all()
        assert [(i.printing_id, i.quantity, i.condition, i.language, i.finish) for i in items] == [
            (int(printing[1]), 2, "LP", "EN", "闪")  # stored codes (the aliases en / foil)
        ]
    assert "我有 2 张" in section(page(client, back), 'class="card-actions"', "</section>")

    card_id = re.search(r'name="card_id" value="(\d+)"', markup)
    assert card_id
    client.post("/wants", data={"card_id": card_id[1], "quantity": "3", "min_condition": "MP", "next": back})
    with Session(get_engine(sample_app)) as session:
        wants = session.scalars(select(WantItem).where(WantItem.user_id == user.id)).all()
        assert [(w.card_id, w.quantity) for w in wants] == [(int(card_id[1]), 3)]


def test_deck_form_gives_way_to_a_note_when_the_deck_is_of_another_game(web) -> None:
    with web.session_transaction() as web_session:
        web_session[WORKING_DECK] = {"list": "3 青霜劍", "game": "longzhiyi", "format": ""}
    actions = section(page(web, card_url("samsara", "仙女教母")), 'class="card-actions"', "</section>")
    assert 'action="/decks/working"' not in actions
    assert "正在构筑的卡组属于龍之弈。" in visible_text(actions)


def test_prints_list_marks_the_first_printing_and_shows_a_chosen_printings_face(web) -> None:
    markup = page(web, card_url("samsara", "龙人豪杰·赤鳞"))
    table = section(markup, 'id="printings-heading"', "</table>")
    body = re.findall(r"<tr>(.*?)</tr>", section(table, "<tbody>", "</tbody>"), flags=re.S)
    texts = [visible_text(row) for row in body]
    assert texts[0].startswith("M1 ") and "首印 显示中" in texts[0]
    assert texts[1].startswith("G2 ") and "重印 看这张卡图" in texts[1]
    assert '<a href="/sets/samsara/G2">' in body[1]  # the set's name links to the set too
    assert 'src="/images/samsara/M1/M1-001.normal.webp' in section(markup, '<figure class="card-image', "</figure>")

    reprint = re.search(r'<a href="([^"]+)">看这张卡图</a>', body[1])
    assert reprint and "set=G2" in reprint[1] and "number=G2-001" in reprint[1]
    chosen = page(web, reprint[1].replace("&amp;", "&"))
    figure = section(chosen, '<figure class="card-image', "</figure>")
    assert 'src="/images/samsara/G2/G2-001.normal.webp' in figure and "G2 G2-001" in figure
    table_then = section(chosen, 'id="printings-heading"', "</table>")
    rows_then = re.findall(r"<tr>(.*?)</tr>", section(table_then, "<tbody>", "</tbody>"), flags=re.S)
    assert "显示中" in rows_then[1] and "显示中" not in rows_then[0]
    # a printing the card does not have falls back to the usual face
    other = page(web, card_url("samsara", "龙人豪杰·赤鳞", "set=M4&number=M4-001"))
    assert 'src="/images/samsara/M1/M1-001.normal.webp' in other


def test_card_page_is_two_columns_by_its_markup_and_stylesheet(web) -> None:
    markup = page(web, card_url("samsara", "仙女教母"))
    layout = section(markup, '<div class="card-layout">', '<section class="card-printings"')
    for part in ('class="page-header card-head"', '<figure class="card-image">', 'class="card-main"'):
        assert part in layout
    assert layout.index("card-facts") > layout.index("card-main") and "card-legality" in layout


# ---------------------------------------------------------------------------- the set page


def test_set_page_links_to_packs_odds_and_checklist(web) -> None:
    actions = section(page(web, "/sets/samsara/M4"), 'class="buttons set-actions"', "</p>")
    for href in (
        "/packs/samsara/M4/open?packs=1",
        "/packs/samsara/M4/open?boxes=1",
        "/packs/samsara/M4/odds",
        "/collection/sets/samsara/M4",
    ):
        assert f'href="{href}"' in actions, href


def test_set_page_image_grid_shows_every_face_lazily(web) -> None:
    table = page(web, "/sets/samsara/M4")
    assert '<ul class="set-grid">' not in table and '<table class="printings stack">' in table
    assert 'href="/sets/samsara/M4?view=grid"' in table
    grid = page(web, "/sets/samsara/M4?view=grid")
    assert '<table class="printings stack">' not in grid
    items = re.findall(r"<li>\s*<a href=\"([^\"]+)\">\s*<img ([^>]+)>", section(grid, '<ul class="set-grid">', "</ul>"))
    assert len(items) == 45  # every printing of M4
    first_href, first_img = items[0]
    assert unquote(first_href) == "/cards/samsara/小红帽·森林歌者"
    assert 'src="/images/samsara/M4/M4-001.small.webp?v=' in first_img
    assert all('loading="lazy"' in img and 'alt="' in img for _href, img in items)
    assert re.search(r'<a href="/sets/samsara/M4\?view=grid" aria-current="true">', grid)
    response = web.get(re.search(r'src="([^"]+)"', first_img)[1].replace("&amp;", "&"))
    assert response.status_code == 200 and response.mimetype == "image/webp"


# ---------------------------------------------------------------------------- English (item 18)


def test_english_card_page_shows_game_words_in_english(web) -> None:
    markup = page(web, card_url("samsara", "灰姑娘·水晶王妃", "lang=en"))
    facts = visible_text(section(markup, '<dl class="facts">', "</dl>"))
    assert "Game Eternal Samsara" in facts and "Type Soul" in facts
    assert "Attribute Water Light" in facts and "Cost 1 Water 3 Light 2 Colorless" in facts
    assert '<span class="attr attr-word" data-attr="水" lang="en">Water</span>' in markup
    assert "灰姑娘·水晶王妃" in markup  # card data stays as written
    breadcrumbs = visible_text(section(markup, '<nav class="breadcrumbs"', "</nav>"))
    assert "Home Eternal Samsara M4 灰姑娘·水晶王妃" in breadcrumbs
    # in Chinese the chips stay characters
    chinese = page(web, card_url("samsara", "灰姑娘·水晶王妃", "lang=zh"))
    assert '<span class="attr" data-attr="水">水</span>' in chinese


def test_english_set_page_shows_game_words_in_english(web) -> None:
    markup = page(web, "/sets/samsara/M4?lang=en")
    facts = visible_text(section(markup, '<dl class="facts">', "</dl>"))
    assert "Game Eternal Samsara" in facts
    table = section(markup, '<table class="printings stack">', "</table>")
    assert ">Soul" in table and ">Fire</span>" in table and ">火</span>" not in table


def test_english_pages_name_games_formats_rarities_and_houses_in_english(web, login) -> None:
    deck = page(web, "/decks?lang=en&game=samsara&list=" + quote("3 孙悟空\n额外卡组:\n10 地之法力石"))
    selects = section(deck, '<select id="deck-game"', '<label for="deck-list">')
    assert ">Eternal Samsara</option>" in selects and '<optgroup label="KeyForge">' in selects
    assert ">Standard (standard)</option>" in selects and ">M8 new environment (m8)</option>" in selects
    assert ">Competitive (competitive)</option>" in selects and "标准" not in selects
    types = section(deck, 'data-chart="types"', "</figure>")
    assert 'class="label">Soul</text>' in types and 'class="label">Mana stone</text>' in types
    attributes = section(deck, 'data-chart="attributes"', "</figure>")
    assert 'class="label">Earth</text>' in attributes and 'data-attr="地"' in attributes

    sets = page(web, "/sets?lang=en")
    assert '<caption class="visually-hidden">Eternal Samsara · Series M</caption>' in sets
    assert '<span class="visually-hidden"> (Common)</span>' in sets and "（Common）" not in sets
    odds = page(web, "/packs/samsara/M4/odds?lang=en")
    assert "7 cards: " in odds and "7 cards：" not in odds
    missing = page(web, card_url("samsara", "nosuchcard", "lang=en"), status=404)
    assert "Eternal Samsara has no card named “nosuchcard”" in missing
    house = visible_text(section(page(web, card_url("keyforge", "雷鸣鼓手", "lang=en")), '<dl class="facts">', "</dl>"))
    assert "House Brobnar" in house

    login(web)
    assert '<h2 id="game-samsara" lang="en">Eternal Samsara</h2>' in page(web, "/collection/sets?lang=en")
    haves = page(web, "/haves?lang=en")
    assert "Keep of Common" in haves and "Keep of 普通" not in haves

"""Search pages through the Flask test client: results (grid and table), pagination, sorting,
bad queries, the syntax help and the keyword glossary."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

import pytest
from sqlmodel import Session

from catalog.games import GAMES
from catalog.search import QueryError, search
from catalog.search.compile import ORDERS
from catalog.search.keys import FLAGS, KEYS
from tests.kits.web import card_url, ensure_translations_compiled, page, rows, section, visible_text
from webapp.cards.search import ACCOUNT_KEYS, EXAMPLES


@pytest.fixture(autouse=True)
def _compiled_translations() -> None:
    ensure_translations_compiled()


@pytest.fixture
def web(sample_app):
    return sample_app.test_client()


def results_url(query: str, **params: object) -> str:
    return "/cards?" + urlencode({"q": query, **params})


def tile_names(markup: str) -> list[str]:
    """The card names of the tiles, in order."""
    return [html.unescape(n) for n in re.findall(r'<span class="tile-name"[^>]*>([^<]+)</span>', markup)]


def table_names(markup: str) -> list[str]:
    table = section(markup, '<table class="printings results stack">', "</table>")
    return [html.unescape(re.search(r"<a [^>]*>([^<]+)</a>", row)[1]) for row in rows(table)]


def links(markup: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', markup)]


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def engine_result(sample_catalogue, query: str, **kwargs):
    with Session(sample_catalogue) as session:
        return search(session=session, text=query, **kwargs)


# ---- results ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected", "game"),
    [
        ("孙悟空", "孙悟空", "samsara"),  # a name
        ("sunwukong", "孙悟空", "samsara"),  # full pinyin
        ("swk", "孙悟空", "samsara"),  # pinyin initials
        ("龍王", "东海龙王", "samsara"),  # Traditional finds Simplified
        ("龙 g:longzhiyi", "四海龍王", "longzhiyi"),  # and back: 龍之弈 data is written in Traditional
    ],
)
def test_search_finds_cards_by_name_pinyin_and_either_script(web, query: str, expected: str, game: str) -> None:
    markup = page(web, results_url(query))
    assert expected in tile_names(markup)
    assert f'href="{card_url(game, expected)}"' in markup


def test_exactly_one_result_goes_to_the_card(web) -> None:
    response = web.get(results_url("四海龙王"))  # Simplified finds the Traditional 龍之弈 name
    assert response.status_code == 302
    assert response.location == card_url("longzhiyi", "四海龍王")
    assert web.get(results_url("龙 g:longzhiyi")).status_code == 200  # several: the results page


def test_results_page_shows_the_total_and_keeps_the_query_in_the_box(web, sample_catalogue) -> None:
    markup = page(web, results_url("龍王"))
    total = engine_result(sample_catalogue, "龍王").total
    assert f"找到 {total} 张卡牌" in visible_text(markup)
    box = re.search(r'<input id="site-search-q"[^>]*>', markup)[0]
    assert 'value="龍王"' in box
    assert "<title>搜索：龍王 · 轮藏 Lunzang</title>" in markup


def test_grid_and_table_show_the_same_cards_in_the_same_order(web, sample_catalogue) -> None:
    expected = [hit.card.name for hit in engine_result(sample_catalogue, "t:战魂 a:火").hits]
    grid = page(web, results_url("t:战魂 a:火"))
    table = page(web, results_url("t:战魂 a:火", view="table"))
    assert '<ul class="tiles">' in grid and "<table" not in section(grid, "<main", "</main>")
    assert '<ul class="tiles">' not in table
    assert tile_names(grid) == table_names(table) == expected
    # the toggle: the current view is marked, the other one a link keeping the query
    toggle = section(table, 'class="view-toggle"', "</nav>")
    assert 'aria-current="true">紧凑表格' in toggle
    grid_link = next(h for h in links(toggle) if "view" not in query_of(h))
    assert query_of(grid_link)["q"] == ["t:战魂 a:火"]


def test_tile_shows_the_card_facts_and_links_to_the_card(web) -> None:
    markup = page(web, results_url("龙人四灵"))
    tile = next(t for t in markup.split('<li class="tile"')[1:] if "龙人四灵·玄武圣尊</span>" in t).split("</li>")[0]
    assert 'data-attr="水"' in tile and 'data-attr2="地"' in tile  # a two-coloured frame
    text = visible_text(tile)
    for fact in ("龙人四灵·玄武圣尊", "战魂", "攻击力 4", "防御力 8"):
        assert fact in text
    assert re.search(r'class="rarity" data-game="samsara" data-rarity="\w+"', tile)
    assert f'href="{card_url("samsara", "龙人四灵·玄武圣尊")}"' in tile
    # The only picture is the face rendered from this printing's data, never other art.
    assert tile.count("<img") == 1
    assert re.search(r'<img class="tile-image" src="/images/samsara/M\d+/M\d+-\d+\.small\.webp\?v=\w+" alt=""', tile)


def test_table_columns_and_set_links(web) -> None:
    markup = page(web, results_url("set:M4", view="table"))
    table = section(markup, '<table class="printings results stack">', "</table>")
    head = visible_text(section(table, "<thead>", "</thead>")).replace("▲", "")
    assert head.split() == ["卡名", "类型", "属性", "费用", "攻击力", "防御力", "稀有度", "系列", "编号", "构筑"]
    assert all('href="/sets/samsara/M4"' in row for row in rows(table))


def test_results_of_several_games_name_the_game(web) -> None:
    markup = page(web, results_url("lv>=1", view="table"))
    head = visible_text(section(markup, "<thead>", "</thead>"))
    assert "游戏" in head


def test_pagination_links_keep_the_query_view_and_order(web, sample_catalogue) -> None:
    total = engine_result(sample_catalogue, "t:战魂").total
    pages = -(-total // 60)
    assert pages >= 3
    first = page(web, results_url("t:战魂", view="table", order="cost"))
    nav = section(first, 'class="pagination"', "</nav>")
    assert "上一页</span>" in nav  # no previous page on page 1
    next_link = html.unescape(re.search(r'<a rel="next" href="([^"]+)"', nav)[1])
    assert query_of(next_link) == {"q": ["t:战魂"], "view": ["table"], "order": ["cost"], "page": ["2"]}
    numbers = re.findall(r">(\d+)</a>", nav)
    assert numbers[0] == "1" and numbers[-1] == str(pages)
    assert 'aria-current="page">1</a>' in nav

    second = page(web, next_link)
    nav = section(second, 'class="pagination"', "</nav>")
    previous = html.unescape(re.search(r'<a rel="prev" href="([^"]+)"', nav)[1])
    assert query_of(previous) == {"q": ["t:战魂"], "view": ["table"], "order": ["cost"]}
    assert 'aria-current="page">2</a>' in nav
    one, two = table_names(first), table_names(second)
    assert len(one) == 60 and not set(one) & set(two)

    last = page(web, results_url("t:战魂", page=pages))
    assert '<a rel="next"' not in last and len(tile_names(last)) == total - 60 * (pages - 1)


def test_a_page_past_the_end_says_so(web) -> None:
    markup = page(web, results_url("t:战魂", page=999))
    assert "这一页没有结果" in markup and tile_names(markup) == []


@pytest.mark.parametrize("raw", ["0", "-1", "abc", "", "9999999999"])
def test_a_bad_page_number_is_page_one(web, raw: str) -> None:
    markup = page(web, results_url("t:战魂", page=raw))
    assert "第 1 / " in visible_text(markup)


def stats(markup: str, column: int) -> list[int]:
    """The numbers of one column of the results table (0 = name)."""
    table = section(markup, '<table class="printings results stack">', "</table>")
    cells = [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S) for row in rows(table)]
    return [int(c[column]) for c in cells if c[column].strip().isdigit()]


def test_sort_by_column_and_direction(web, sample_catalogue) -> None:
    markup = page(web, results_url("t:战魂 a:火", view="table", order="atk", dir="desc"))
    expected = engine_result(sample_catalogue, "t:战魂 a:火 order:atk direction:desc")
    assert table_names(markup) == [hit.card.name for hit in expected.hits]
    attack = [hit.card.attack for hit in expected.hits]
    assert attack == sorted(attack, reverse=True)
    head = section(markup, "<thead>", "</thead>")
    assert 'aria-sort="descending"' in head
    # the header of the current order flips the direction; another column sorts ascending
    atk_link = html.unescape(re.search(r'href="([^"]+)">攻击力<span class="sort-arrow"', head)[1])
    assert query_of(atk_link)["dir"] == ["asc"] and query_of(atk_link)["order"] == ["atk"]
    cost_link = next(h for h in links(head) if query_of(h).get("order") == ["cost"])
    assert query_of(cost_link)["dir"] == ["asc"] and query_of(cost_link)["view"] == ["table"]


def test_sort_bar_offers_every_order(web) -> None:
    markup = page(web, results_url("t:战魂"))
    bar = section(markup, 'class="sort-bar"', "</nav>")
    orders = [query_of(h)["order"][0] for h in links(bar)]
    assert orders == list(ORDERS)


def test_the_query_own_order_wins_over_the_url(web, sample_catalogue) -> None:
    markup = page(web, results_url("t:战魂 a:火 order:cost", view="table", order="atk", dir="desc"))
    expected = engine_result(sample_catalogue, "t:战魂 a:火 order:cost")
    assert table_names(markup) == [hit.card.name for hit in expected.hits]
    assert "决定排序" in markup
    assert "order=" not in "".join(links(section(markup, 'class="sort-bar"', "</nav>")))


def test_sorting_an_or_query_keeps_its_meaning(web, sample_catalogue) -> None:
    """The URL's order applies to the whole query, also when the query is an or at the top."""
    markup = page(web, results_url("t:魔法 or a:火", view="table", order="cost", dir="desc"))
    expected = engine_result(sample_catalogue, "(t:魔法 or a:火) order:cost direction:desc")
    assert expected.total > engine_result(sample_catalogue, "t:魔法").total
    assert table_names(markup) == [hit.card.name for hit in expected.hits]


@pytest.mark.parametrize("query", ["t:战魂 foo:bar", "a:火 or", "(t:战魂 or a:火) cost<=x", "t:战魂 or foo:1"])
def test_a_bad_query_is_marked_where_typed_also_when_sorted(web, query: str) -> None:
    plain = web.get(results_url(query)).get_data(as_text=True)
    sorted_ = web.get(results_url(query, order="cost", dir="desc"))
    assert sorted_.status_code == 400
    markup = sorted_.get_data(as_text=True)
    for part in ('<p class="error-message"', '<p class="marked-query">'):
        assert section(markup, part, "</p>") == section(plain, part, "</p>")


@pytest.mark.parametrize("raw", [{"order": "nonsense"}, {"dir": "sideways"}, {"view": "cards"}])
def test_unknown_parameters_fall_back_to_defaults(web, raw: dict[str, str]) -> None:
    markup = page(web, results_url("t:战魂", **raw))
    assert tile_names(markup)


# ---- bad and empty queries -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "bad"),
    [
        ("foo:bar", "foo:bar"),  # unknown key
        ("t:战魂 cost<=x", "cost<=x"),  # not a number
        ("t:战魂 a:", "a:"),  # no value
        ('n:"东海', '"东海'),  # unclosed quote
        ("t:战魂 ) 火", ")"),  # stray parenthesis
        ("a:火 or", "or"),  # or with nothing after it
        ("r>=ZZ", "r>=ZZ"),  # unknown rarity
        ("set:QQ9 t:战魂", "set:QQ9"),  # unknown set
        ("kw:不存在", "kw:不存在"),  # unknown keyword
        ("t:战魂 order:zz", "order:zz"),  # unknown order
        ("t:战魂 -", "-"),  # negates nothing
        ("()", "()"),  # empty parentheses
        ("龙王 (t:战魂", "("),  # unclosed parenthesis
        ("t:战魂 (", ""),  # nothing after the parenthesis: the end of the query is marked
    ],
)
def test_bad_query_shows_the_message_and_marks_the_term(web, sample_catalogue, query: str, bad: str) -> None:
    response = web.get(results_url(query))
    assert response.status_code == 400
    markup = response.get_data(as_text=True)
    with Session(sample_catalogue) as session, pytest.raises(QueryError) as caught:
        search(session=session, text=query)
    message = section(markup, '<p class="error-message"', "</p>")
    assert html.escape(caught.value.message.zh, quote=False) in message
    marked = section(markup, '<p class="marked-query">', "</p>")
    mark = re.search(r'<mark class="bad-term[^"]*"[^>]*>(.*?)</mark>', marked, flags=re.S)[1]
    assert html.unescape(mark).strip() == bad
    assert html.unescape(visible_text(marked)).replace(" ", "").endswith(query.replace(" ", ""))
    assert 'href="/help/search"' in section(markup, 'class="query-error"', "</section>")
    assert markup.count("<h1") == 1


def test_bad_query_in_english(web) -> None:
    response = web.get(results_url("foo:bar", lang="en"))
    assert response.status_code == 400
    markup = response.get_data(as_text=True)
    assert "unknown key" in section(markup, '<p class="error-message"', "</p>")
    assert 'href="/help/search"' in markup and "Syntax" in markup


def test_unknown_game_parameter_is_a_message_without_a_mark(web) -> None:
    response = web.get(results_url("龙王", game="nosuchgame"))
    assert response.status_code == 400
    markup = response.get_data(as_text=True)
    assert "nosuchgame" in section(markup, '<p class="error-message"', "</p>")
    assert '<p class="marked-query">' not in markup


def test_game_parameter_narrows_the_results(web) -> None:
    def total(markup: str) -> int:
        return int(re.search(r"找到 (\d+) 张卡牌", visible_text(markup))[1])

    everything = page(web, results_url("lv>=1"))
    only = page(web, results_url("lv>=1", game="zhutian"))
    assert 0 < total(only) < total(everything)
    for name in tile_names(only):
        assert f'href="{card_url("zhutian", name)}"' in only
    scope = section(only, '<p class="game-scope">', "</p>")
    assert "誅天" in scope
    assert query_of(links(scope)[0]) == {"q": ["lv>=1"]}


def test_a_huge_number_is_a_bad_query_not_a_500(web) -> None:
    assert web.get(results_url("cost<=99999999999999999999999")).status_code == 400


@pytest.mark.parametrize("url", ["/cards", "/cards?q=", "/cards?q=+++"])
def test_empty_query_shows_examples_and_the_help_link(web, url: str) -> None:
    markup = page(web, url)
    examples = section(markup, 'class="examples"', "</ul>")
    queries = [query_of(h)["q"][0] for h in links(examples)]
    assert {"sunwukong", "swk", "龍王"} <= set(queries)
    assert 'href="/help/search"' in section(markup, "<main", "</main>")


# ---- the search box on every page ------------------------------------------------------------


@pytest.mark.parametrize("url", ["/", "/sets", "/sets/samsara/M4", card_url("samsara", "孙悟空"), "/help/search"])
def test_every_page_has_the_search_box(web, url: str) -> None:
    markup = page(web, url)
    form = section(markup, '<form class="site-search"', "</form>")
    assert 'role="search"' in form and 'action="/cards"' in form and 'method="get"' in form
    assert 'name="q"' in form and 'value=""' in form
    assert 'for="site-search-q"' in form  # labelled
    assert 'href="/help/search"' in form


def test_search_box_keeps_the_view_of_the_results(web) -> None:
    form = section(page(web, results_url("swk", view="table")), '<form class="site-search"', "</form>")
    assert '<input type="hidden" name="view" value="table">' in form


def test_set_page_links_to_its_search(web) -> None:
    markup = page(web, "/sets/samsara/M4")
    link = next(h for h in links(markup) if h.startswith("/cards?"))
    assert query_of(link) == {"q": ["set:M4"]}
    assert "在搜索中查看" in markup
    assert len(tile_names(page(web, link))) == len(rows(section(markup, '<table class="printings stack">', "</table>")))


# ---- syntax help -----------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS, ids=[k.name for k in KEYS])
def test_help_page_documents_every_key(web, key) -> None:
    """Fails when a key of the registry has no help text, no example or is missing from the page."""
    assert key.help_zh.strip(), f"key {key.name} has no help_zh"
    assert EXAMPLES.get(key.name), f"key {key.name} has no example on the help page"
    markup = page(web, "/help/search")
    row = section(markup, f'<tr id="key-{key.name}"', "</tr>")
    assert f"<code>{html.escape(key.name)}:</code>" in row
    assert html.escape(key.help_zh, quote=False) in row
    for alias in key.aliases:
        assert f"<code>{html.escape(alias)}</code>" in row
    for op in key.ops:
        assert f"<code>{html.escape(op)}</code>" in row
    linked = [query_of(h)["q"][0] for h in links(row)]
    for example in EXAMPLES[key.name]:
        if key.name in ACCOUNT_KEYS:  # shown, not linked: they need a signed-in user
            assert f"<code>{html.escape(example, quote=False)}</code>" in row
        else:
            assert example in linked


def test_help_examples_all_run(web) -> None:
    """Every example on the help page is a link to a query that works and finds something."""
    markup = page(web, "/help/search")
    queries = [query_of(h)["q"][0] for h in links(section(markup, "<main", "</main>")) if h.startswith("/cards?")]
    assert len(queries) > 50
    for query in queries:
        response = web.get(results_url(query))
        if response.status_code == 302:  # exactly one card found: its page
            assert response.location.startswith("/cards/"), query
            continue
        assert response.status_code == 200, query
        assert "找到 0 张" not in response.get_data(as_text=True), query


def test_help_page_covers_operators_flags_orders_and_chinese(web) -> None:
    markup = page(web, "/help/search")
    queries = {query_of(h)["q"][0] for h in links(markup) if h.startswith("/cards?")}
    assert {"sunwukong", "swk", "龍王", "a:火 or a:水", "t:战魂 -a:火", "龙王 unique:prints"} <= queries
    assert any("(" in q and " or " in q for q in queries)  # parentheses
    assert any(q.startswith('"') for q in queries)  # quotes
    assert "t:战魂 order:atk direction:desc" in queries
    for op in ("!=", "<", "<=", ">", ">="):
        assert any(op in q for q in queries), op
    for flag in FLAGS:
        assert f"is:{flag}" in queries
    for order in ORDERS:
        assert f"t:战魂 order:{order}" in queries


def test_help_is_linked_from_the_navigation(web) -> None:
    markup = page(web, "/")
    nav = section(markup, '<nav class="site-nav"', "</nav>")
    assert 'href="/keywords"' in nav
    assert 'href="/help/search"' in section(markup, '<form class="site-search"', "</form>")  # next to the box


# ---- keyword glossary ------------------------------------------------------------------------

SEED_WORDS = ("军团", "限定", "额外构筑", "场上唯一", "飞翔", "护盾")


def test_glossary_lists_every_samsara_keyword_with_its_explanation_and_count(web, sample_catalogue) -> None:
    samsara = GAMES["samsara"]
    assert len(samsara.keywords) == 19
    markup = page(web, "/keywords/samsara")
    entries = re.findall(r'<div id="(\w+)" data-kind="\1">(.*?)</div>', markup, flags=re.S)
    assert [kind for kind, _ in entries] == [k.kind for k in samsara.keywords]
    for (kind, entry), keyword in zip(entries, samsara.keywords, strict=True):
        assert f">{keyword.zh}</a>" in entry and keyword.explanation in entry
        assert f'href="/keywords/samsara/{kind}"' in entry
        count = int(re.search(r'data-count="(\d+)"', entry)[1])
        assert count == engine_result(sample_catalogue, f"kw:{keyword.zh}", game="samsara").total, kind
    text = visible_text(markup)
    for word in SEED_WORDS:
        assert word in text
    # how keywords are written on cards: the most used spellings of 唯一 in the sample
    assert "场上唯一" in text and "『悟空』唯一" in text


def test_keyforge_glossary_has_its_nine_keywords(web) -> None:
    markup = page(web, "/keywords/keyforge")
    assert len(re.findall(r'data-kind="\w+"', markup)) == len(GAMES["keyforge"].keywords) == 9


def test_glossary_index_lists_games_with_keywords(web) -> None:
    markup = page(web, "/keywords")
    assert 'href="/keywords/samsara"' in markup and 'href="/keywords/keyforge"' in markup


def test_keyword_page_explains_it_and_lists_the_cards_that_have_it(web, sample_catalogue) -> None:
    legion = GAMES["samsara"].keyword_info("legion")
    markup = page(web, "/keywords/samsara/legion")
    assert legion.explanation in markup
    expected = engine_result(sample_catalogue, "kw:军团", game="samsara")
    assert expected.total > 0
    names = tile_names(markup)
    assert names == [hit.card.name for hit in expected.hits]
    assert f'<span class="count">{expected.total}</span>' in markup
    # each listed card really has the keyword on its page
    for name in names[:3]:
        card = page(web, card_url("samsara", name))
        assert re.search(r'<span class="keyword"[^>]*>军团\(\d+\)</span>', card)
    search_link = next(h for h in links(markup) if h.startswith("/cards?"))
    assert query_of(search_link) == {"q": ["kw:军团 g:samsara"]}
    assert tile_names(page(web, search_link)) == names


def test_keyword_page_table_view(web) -> None:
    markup = page(web, "/keywords/samsara/legion?view=table")
    assert table_names(markup) == tile_names(page(web, "/keywords/samsara/legion"))


@pytest.mark.parametrize("url", ["/keywords/samsara/nonsense", "/keywords/nosuchgame", "/keywords/nosuchgame/legion"])
def test_unknown_glossary_pages_are_404(web, url: str) -> None:
    assert web.get(url).status_code == 404


def test_card_page_keywords_link_to_the_glossary(web) -> None:
    markup = page(web, card_url("samsara", "龙人四灵·玄武圣尊"))
    keywords = section(markup, '<dl class="keywords">', "</dl>")
    for kind in ("unique", "shield", "guard"):
        assert f'href="/keywords/samsara/{kind}"' in keywords
    for href in links(keywords):
        assert web.get(href).status_code == 200


def test_every_sample_keyword_page_renders(web) -> None:
    for slug, module in GAMES.items():
        for keyword in module.keywords:
            response = web.get(f"/keywords/{slug}/{quote(keyword.kind)}")
            assert response.status_code in (200, 404), (slug, keyword.kind)
            if slug in ("samsara", "keyforge"):
                assert response.status_code == 200


def test_build_a_deck_from_search_results(web) -> None:
    """+ / − on results edit the working deck (session) and show its count; /decks checks it."""
    search_url = results_url("swk")
    markup = page(web, search_url)
    assert "卡组中 0 张" in markup
    form = {"game": "samsara", "name": "孙悟空", "next": search_url}
    for _ in range(2):
        response = web.post("/decks/working", data={**form, "action": "add"})
        assert response.status_code == 302 and response.headers["Location"].endswith(search_url)
    assert "卡组中 2 张" in page(web, search_url)
    web.post("/decks/working", data={**form, "action": "remove"})
    assert "卡组中 1 张" in page(web, search_url)
    deck = web.get("/decks").get_data(as_text=True)
    assert "1 孙悟空" in deck
    # a card of another game is refused while this deck is being built, and the buttons hide
    web.post("/decks/working", data={"game": "longzhiyi", "name": "四海龍王", "action": "add", "next": "/"})
    assert "四海龍王" not in web.get("/decks").get_data(as_text=True)
    assert 'action="/decks/working"' not in page(web, results_url("g:longzhiyi"))
    # an outside address in next is not followed
    response = web.post("/decks/working", data={**form, "action": "add", "next": "https://example.com/"})
    assert response.headers["Location"].endswith("/decks")


@pytest.mark.parametrize(
    ("query", "game", "expected"),
    [
        ({"game": "keyforge"}, "keyforge", None),
        ({"game": "longzhiyi"}, "longzhiyi", None),
        ({"q": "四海龙王"}, "longzhiyi", "四海龍王"),
        ({"q": "t:战魂 a:火", "game": "samsara"}, "samsara", None),
    ],
)
def test_random_honours_game_and_query(web, query: dict[str, str], game: str, expected: str | None) -> None:
    for _ in range(5):  # random, so a few draws: every one must obey
        response = web.get("/random", query_string=query)
        assert response.status_code == 302
        path = unquote(response.location)
        assert path.startswith(f"/cards/{game}/"), path
        if expected:
            assert path == f"/cards/{game}/{expected}"


@pytest.mark.parametrize(
    ("query", "status"), [({"game": "nosuchgame"}, 404), ({"q": "nosuchcardatall"}, 404), ({"q": "cost>>1"}, 302)]
)
def test_random_with_a_bad_game_or_query(web, query: dict[str, str], status: int) -> None:
    response = web.get("/random", query_string=query)
    assert response.status_code == status
    if status == 302:  # a malformed query: the results page says what is wrong
        assert response.location.startswith("/cards?q=")

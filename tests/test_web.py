"""Catalogue pages through the Flask test client: home, set lists, set page, card page, errors."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.games import GAMES
from catalog.ingest import import_catalogue
from catalog.models import Card, CardSet, Game, Printing
from tests.kits.catalogue import write_catalogue
from tests.kits.web import (
    badges,
    card_url,
    ensure_translations_compiled,
    page,
    rows,
    section,
    visible_text,
)

ROOT = Path(__file__).resolve().parent.parent
STYLESHEET = ROOT / "static" / "style.css"


@pytest.fixture(autouse=True)
def _compiled_translations() -> None:
    ensure_translations_compiled()


@pytest.fixture
def web(sample_app):
    return sample_app.test_client()


# ---- small HTML helpers: the pages' own markup is the contract these tests read -------------


def counts(engine) -> dict[str, tuple[int, int, int]]:
    """Sets, cards and printings per game slug, counted straight from the tables."""
    with Session(engine) as session:
        result = {}
        for game in session.scalars(select(Game)):
            sets = session.scalar(select(func.count()).where(CardSet.game_id == game.id))
            cards = session.scalar(select(func.count()).where(Card.game_id == game.id))
            printings = session.scalar(
                select(func.count())
                .select_from(Printing)
                .join(CardSet, CardSet.id == Printing.set_id)
                .where(CardSet.game_id == game.id)
            )
            result[game.slug] = (sets, cards, printings)
    return result


def rarity_counts(engine, code: str) -> list[tuple[str, str]]:
    """A samsara set's (rarity, count) pairs from the tables, lowest rarity first."""
    with Session(engine) as session:
        found = dict(
            session.execute(
                select(Printing.rarity, func.count())
                .join(CardSet, CardSet.id == Printing.set_id)
                .where(CardSet.code == code)
                .group_by(Printing.rarity)
            ).all()
        )
    return [(r, str(found[r])) for r in GAMES["samsara"].rarity.codes if r in found]


# ---- home ------------------------------------------------------------------------------------


def test_home_lists_every_game_with_its_counts(web, sample_catalogue) -> None:
    markup = page(web, "/")
    expected = counts(sample_catalogue)
    assert set(expected) == set(GAMES)
    cards = re.findall(r'<li class="game-card">(.*?)</li>', markup, flags=re.S)
    assert len(cards) == 4
    shown = {}
    for card in cards:
        slug = re.search(r'href="/sets/(\w+)"', card)[1]
        numbers = dict(re.findall(r'data-count="(\w+)">(\d+)<', card))
        shown[slug] = (int(numbers["sets"]), int(numbers["cards"]), int(numbers["printings"]))
        assert f">{GAMES[slug].name}<" in card  # the Chinese name as written (龍之弈, 誅天)
    assert shown == expected
    assert expected["samsara"][0] == 24  # S8–S13, M1–M14, G1–G2, P1–P3
    # registry order: the main game first
    assert [re.search(r'href="/sets/(\w+)"', c)[1] for c in cards] == list(GAMES)
    assert 'href="/sets"' in markup


def test_empty_database_home_explains_how_to_import(client) -> None:
    markup = page(client, "/")
    assert "还没有卡牌数据" in markup
    assert "lunzang import" in markup
    assert 'class="game-card"' not in markup
    assert "还没有导入任何系列" in page(client, "/sets")


def test_random_on_an_empty_catalogue_is_a_friendly_404(client) -> None:
    markup = page(client, "/random", 404)
    assert "请先导入卡牌数据" in markup


# ---- set lists -------------------------------------------------------------------------------


def test_sets_page_groups_samsara_sets_by_series(web, sample_catalogue) -> None:
    markup = page(web, "/sets")
    samsara = section(markup, 'id="game-samsara"', 'id="game-longzhiyi"')
    headings = re.findall(r"<h3 [^>]*>(.*?)</h3>", samsara)
    assert headings == ["S 系列", "M 系列", "G 系列", "P 系列"]
    series_m = section(samsara, ">M 系列</h3>", "</table>")
    row = next(r for r in rows(series_m) if ">M4<" in r)
    assert 'href="/sets/samsara/M4"' in row
    assert "奇幻征途" in row
    assert "补充包" in row
    assert "2013-08" in row
    expected = rarity_counts(sample_catalogue, "M4")
    assert f">{sum(int(n) for _r, n in expected)}<" in row  # printings
    assert [code for _game, code in badges(row)] == [r for r, _n in expected] == ["C", "R", "PR", "UR", "SR"]
    assert re.findall(r'<span class="count">×(\d+)', row) == [n for _r, n in expected]
    assert ">M4<" not in section(samsara, ">S 系列</h3>", ">M 系列</h3>")
    for slug, module in GAMES.items():  # every game appears, under its name as written
        assert f'id="game-{slug}"' in markup
        assert module.name in markup


def test_game_sets_page_shows_one_game(web) -> None:
    markup = page(web, "/sets/zhutian")
    assert "<h1>" in markup and "誅天" in section(markup, "<h1>", "</h1>")
    assert "推廣版" in markup  # a free-text series, as written
    assert 'href="/sets/zhutian/ZT1"' in markup
    assert "/sets/samsara/" not in markup
    assert set(badges(markup)) <= {("zhutian", code) for code in GAMES["zhutian"].rarity.codes}


# ---- set page --------------------------------------------------------------------------------


def _number_key(number: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", number))


def test_set_page_lists_printings_by_number_with_badges_and_links(web, sample_catalogue) -> None:
    with Session(sample_catalogue) as session:
        stored = {
            printing.number: (card.name, printing.rarity)
            for printing, card in session.execute(
                select(Printing, Card)
                .join(Card, Card.id == Printing.card_id)
                .join(CardSet, CardSet.id == Printing.set_id)
                .where(CardSet.code == "M4")
            )
        }
    markup = page(web, "/sets/samsara/M4")
    header = section(markup, "<h1>", "</h1>")
    assert "M4" in header and "奇幻征途" in header and "样例数据" in header
    table = section(markup, '<table class="printings stack">', "</table>")
    numbers = []
    for row in rows(table):
        number = re.search(r'<td class="number[^"]*">([^<]+)</td>', row)[1]
        numbers.append(number)
        name, rarity = stored[number]
        assert f'href="{card_url("samsara", name)}"' in row
        assert f">{name}</a>" in row
        assert badges(row) == [("samsara", rarity)]
    assert len(numbers) == len(stored) > 40
    assert numbers == sorted(stored, key=_number_key)
    assert numbers[0] == "M4-001"
    head = visible_text(section(table, "<thead>", "</thead>"))
    assert head.split() == ["编号", "卡名", "类型", "属性", "费用", "攻击力", "防御力", "稀有度"]


def test_set_page_summarises_rarities_and_the_pack_template(web, sample_catalogue) -> None:
    markup = page(web, "/sets/samsara/M4")
    rarity = section(markup, 'id="rarity-heading"', "</section>")
    assert re.findall(
        r'data-rarity="(\w+)"[^>]*>\w+<span class="visually-hidden">[^<]*</span></span>'
        r'<span class="count">×(\d+)',
        rarity,
    ) == rarity_counts(sample_catalogue, "M4")
    pack = visible_text(section(markup, 'id="pack-heading"', "</section>"))
    assert "每包 8 张，每盒 16 包" in pack
    assert "7 张 × C" in pack
    assert "SR （特稀有） 3.0%" in pack and "C （普通） 40.0%" in pack


def test_set_lookup_folds_case(web) -> None:
    assert "奇幻征途" in page(web, "/sets/samsara/m4")


@pytest.mark.parametrize(
    ("url", "headings"),
    [
        # 龍之弈: colours, level, cost, attack/life/defense; Traditional data as written
        ("/sets/longzhiyi/LZ1", ["编号", "卡名", "类型", "颜色", "费用", "等级", "攻击力", "防御力", "生命", "稀有度"]),
        # 誅天: profession (faction), level, attack/defense
        ("/sets/zhutian/ZT1", ["编号", "卡名", "类型", "职业", "等级", "攻击力", "防御力", "稀有度"]),
        # KeyForge: house, power = attack, armor = defense, amber from card.extra
        ("/sets/keyforge/SMP", ["编号", "卡名", "类型", "派系", "战斗力", "护甲", "琥珀", "稀有度"]),
    ],
)
def test_set_page_columns_follow_the_game(web, url: str, headings: list[str]) -> None:
    markup = page(web, url)
    table = section(markup, '<table class="printings stack">', "</table>")
    assert visible_text(section(table, "<thead>", "</thead>")).split() == headings


# ---- card page -------------------------------------------------------------------------------


def test_reprinted_card_shows_every_printing(web) -> None:
    markup = page(web, card_url("samsara", "龙人豪杰·赤鳞"))
    table = section(markup, 'id="printings-heading"', "</table>")
    found = [
        (re.search(r'href="(/sets/samsara/\w+)"', r)[1], re.search(r'<td class="number">([^<]+)<', r)[1])
        for r in rows(table)
    ]
    assert found == [("/sets/samsara/M1", "M1-001"), ("/sets/samsara/G2", "G2-001")]
    assert "永恒之轮 第一弹" in table and "M1至M3经典合集" in table
    assert badges(table) == [("samsara", "C"), ("samsara", "C")]
    assert "鳞甲如火，战意如潮。" in table  # flavour


def test_card_page_shows_stats_traits_and_keyword_explanations(web) -> None:
    markup = page(web, card_url("samsara", "龙人四灵·玄武圣尊"))
    assert "<h1" in markup and ">龙人四灵·玄武圣尊</h1>" in markup
    facts = visible_text(section(markup, '<dl class="facts">', "</dl>"))
    for expected in ("类型 战魂", "属性 水 地", "费用 3 水 2 地 1 无", "攻击力 4", "防御力 8", "特征 龙人 四灵"):
        assert expected in facts
    keywords = section(markup, '<dl class="keywords">', "</dl>")
    samsara = GAMES["samsara"]
    for label in ("场上唯一", "护盾(2)", "防守"):
        assert f">{label}</span>" in keywords
    # keywords without a parameter keep the glossary's words; 护盾(2) says its own number
    assert samsara.keyword_info("unique").explanation in keywords
    assert samsara.keyword_info("guard").explanation in keywords
    assert "每次受到伤害时，伤害减少2。" in keywords
    assert "括号中的数值" not in keywords
    assert "你的其他四灵战魂获得护盾(1)。" in section(markup, 'class="rules-text"', "</p>")


def test_zhutian_card_is_shown_as_written_with_its_restriction(web) -> None:
    markup = page(web, card_url("zhutian", "二郎真君"))
    text = section(markup, 'class="rules-text"', "</p>")
    assert "效果：消耗3點精神力，查看一名玩家的手牌並選擇其中一張放入棄卡區。" in text
    assert 'lang="zh-Hant"' in text
    restriction = visible_text(section(markup, 'data-stat="restriction"', "</dd>"))
    assert "限制" in restriction and "最多 1 张" in restriction
    facts = visible_text(section(markup, '<dl class="facts">', "</dl>"))
    assert "职业 仙道士" in facts and "等级 8" in facts and "攻击力 300" in facts
    semi = visible_text(section(page(web, card_url("zhutian", "哪吒")), 'data-stat="restriction"', "</dd>"))
    assert "準限制" in semi and "最多 2 张" in semi


def test_card_name_in_the_other_script_redirects_to_the_name_as_written(web) -> None:
    response = web.get(card_url("zhutian", "别西卜"))  # Simplified spelling of 別西卜
    assert response.status_code == 302
    assert unquote(urlsplit(response.location).path) == "/cards/zhutian/別西卜"


def test_keyforge_card_uses_power_armor_and_amber(web) -> None:
    markup = page(web, card_url("keyforge", "雷鸣鼓手"))
    assert "Thunderhide Drummer" in markup  # name_en
    facts = visible_text(section(markup, '<dl class="facts">', "</dl>"))
    assert "派系 布罗布纳" in facts and "战斗力 4" in facts and "护甲 0" in facts
    assert "琥珀 0" in facts
    assert GAMES["keyforge"].keyword_info("assault").explanation.replace("X", "2") in markup  # 突击(2)


def test_rules_text_keeps_its_line_breaks(client, engine, tmp_path: Path) -> None:
    rows = (
        "set,number,name,rarity,type,attribute,cost,attack,defense,text\n"
        'X1,X1-001,两段卡,C,战魂,火,1火,1,1,"第一段。\n第二段。"\n'
    )
    folder = write_catalogue(tmp_path, "samsara", [{"code": "X1", "name": "测试弹", "series": "M"}], {"x1.csv": rows})
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[folder])
    markup = page(client, card_url("samsara", "两段卡"))
    assert "第一段。\n第二段。" in section(markup, 'class="rules-text"', "</p>")
    assert re.search(r"\.rules-text\s*{[^}]*white-space:\s*pre-line", STYLESHEET.read_text())
    set_page = page(client, "/sets/samsara/X1")
    assert "样例数据" not in section(set_page, "<h1>", "</h1>")  # the user's own data
    assert 'id="pack-heading"' not in set_page  # no pack template


# ---- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("/sets/nosuchgame", "没有这个游戏：nosuchgame"),
        ("/sets/nosuchgame/M4", "没有这个游戏"),
        ("/sets/samsara/ZZ9", "永恒之轮没有系列 ZZ9"),
        (card_url("samsara", "不存在的卡"), "永恒之轮没有名为「不存在的卡」的卡"),
        (card_url("nosuchgame", "亚瑟王"), "没有这个游戏"),
        ("/no/such/page", ""),
    ],
)
def test_unknown_things_get_the_404_page(web, url: str, message: str) -> None:
    markup = page(web, url, 404)
    assert '<h1 id="error-heading">页面不存在</h1>' in markup
    assert message in markup
    assert 'href="/"' in markup  # a way back
    assert "Traceback" not in markup


def test_unusable_database_gets_the_503_page(tmp_path: Path) -> None:
    from webapp import create_app

    app = create_app(
        {"TESTING": True, "SECRET_KEY": "test", "DATABASE_URL": f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}"}
    )
    markup = page(app.test_client(), "/", 503)
    assert '<h1 id="error-heading">数据库不可用</h1>' in markup
    assert "数据库所在目录不存在" in markup


# ---- random, language, layout ----------------------------------------------------------------


def test_random_redirects_to_a_card_page(web) -> None:
    response = web.get("/random")
    assert response.status_code == 302
    path = urlsplit(response.location).path
    assert re.fullmatch(r"/cards/(samsara|longzhiyi|zhutian|keyforge)/.+", unquote(path))
    assert web.get(path).status_code == 200


def test_language_switch_renders_english_and_remembers_it(web) -> None:
    response = web.get("/sets/samsara/M4?lang=en")
    markup = response.get_data(as_text=True)
    assert response.status_code == 200
    assert '<html lang="en">' in markup
    nav = visible_text(section(markup, '<nav class="site-nav"', "</nav>"))
    assert nav.startswith("Home Sets Open packs")  # later areas add their links after these
    assert "Booster contents" in markup and "Sample data" in markup and "Series M" in markup
    assert "奇幻征途" in markup  # card data stays as written
    cookie = web.get_cookie("lang")
    assert cookie is not None and cookie.value == "en"
    assert "Random card" in page(web, "/")  # the cookie carries the choice
    back = page(web, "/?lang=zh")
    assert '<html lang="zh-Hans">' in back and "随机卡牌" in back
    assert web.get_cookie("lang").value == "zh"


def test_language_links_keep_the_page(web) -> None:
    markup = page(web, card_url("samsara", "龙人豪杰·赤鳞"))
    switch = section(markup, 'class="lang-switch"', "</nav>")
    links = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', switch)]
    assert links == [card_url("samsara", "龙人豪杰·赤鳞") + "?lang=en"]  # the other language only


@pytest.mark.parametrize(
    "url", ["/", "/sets", "/sets/samsara", "/sets/samsara/M4", "/cards/samsara/%E6%80%92%E5%B8%9D", "/sets/nosuchgame"]
)
def test_every_page_has_the_frame(web, url: str) -> None:
    response = web.get(url)
    markup = response.get_data(as_text=True)
    assert '<a class="skip-link" href="#main">' in markup and '<main id="main"' in markup
    assert markup.count("<h1") == 1
    assert 'name="viewport"' in markup
    footer = section(markup, '<footer class="site-footer">', "</footer>")
    assert "样例数据" in footer and "不是官方卡牌文本" in footer
    for link in re.findall(r'(?:href|src)="([^"]+)"', markup):  # nothing external, no CDN
        assert link.startswith(("/", "#")), link


def test_stylesheet_colours_every_samsara_rarity() -> None:
    css = STYLESHEET.read_text()
    for code in GAMES["samsara"].rarity.codes:
        assert f'.rarity[data-game="samsara"][data-rarity="{code}"]' in css
    for level in range(5):  # the neutral scale other games use
        assert f'.rarity[data-level="{level}"]' in css


def test_other_games_badges_climb_the_neutral_scale(web) -> None:
    markup = page(web, "/sets/longzhiyi/LZ1")
    levels = dict(re.findall(r'data-rarity="(\d)" data-level="(\d)"', markup))
    assert levels == {"1": "0", "2": "1", "3": "2", "4": "3", "5": "4"}
    assert "★★★" in markup  # star rarities are shown as stars


def test_set_page_links_to_its_packs_odds_and_checklist(web) -> None:
    """The set page's links: open a pack or a box, the odds, my checklist."""
    actions = section(page(web, "/sets/samsara/M4"), 'class="buttons set-actions"', "</p>")
    hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', actions)]
    assert hrefs[:4] == [  # then the proposal link a signed-in player may follow
        "/packs/samsara/M4/open?packs=1",
        "/packs/samsara/M4/open?boxes=1",
        "/packs/samsara/M4/odds",
        "/collection/sets/samsara/M4",
    ]

"""Search (DESIGN §6): the parser as tables, then results against a catalogue written here.

The same tests run on SQLite and PostgreSQL (the suite runs twice in CI), so "identical
answers on both databases" is checked by every result test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.search import QueryError, search
from catalog.search.parser import And, Not, Or, Term, parse
from tests.conftest import ON_POSTGRES
from tests.kits.catalogue import write_catalogue
from webapp.shapes.catalogue import CardPage

# ---- parser ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("孙悟空", Term("", ":", "孙悟空", 0, 3)),
        ('"小红帽 狼"', Term("", ":", "小红帽 狼", 0, 7, quoted=True)),
        ("t:战魂", Term("t", ":", "战魂", 0, 4)),
        ("cost>=3", Term("cost", ">=", "3", 0, 7)),
        ("cost<=3", Term("cost", "<=", "3", 0, 7)),
        ("cost!=3", Term("cost", "!=", "3", 0, 7)),
        ("cost<3", Term("cost", "<", "3", 0, 6)),
        ("cost>3", Term("cost", ">", "3", 0, 6)),
        ("a=光", Term("a", "=", "光", 0, 3)),
        ("类型：战魂", Term("类型", ":", "战魂", 0, 5)),  # full-width colon
        ('o:"抽 一张"', Term("o", ":", "抽 一张", 0, 8, quoted=True)),
        ("kw:军团(5)", Term("kw", ":", "军团(5)", 0, 8)),
        ("T:Soul", Term("t", ":", "Soul", 0, 6)),
    ],
)
def test_terms(text: str, expected: Term) -> None:
    assert parse(text).root == expected


def test_precedence_and_binds_tighter_than_or() -> None:
    root = parse("a b or c").root
    assert isinstance(root, Or)
    assert isinstance(root.items[0], And) and len(root.items[0].items) == 2
    assert root.items[1] == Term("", ":", "c", 7, 1)


def test_parentheses_and_negation() -> None:
    root = parse("-(t:魔法 or t:载具) a:火").root
    assert isinstance(root, And)
    negated = root.items[0]
    assert isinstance(negated, Not) and isinstance(negated.item, Or)
    assert parse("-t:魔法").root == Not(Term("t", ":", "魔法", 1, 4), 0)
    assert parse("x-y").root == Term("", ":", "x-y", 0, 3)  # a hyphen inside a word is not negation


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("t:战魂 (a:火", 5, "括号没有闭合"),
        ("t:战魂 a:火)", 8, "多了一个"),
        ('name:"abc', 5, "引号没有闭合"),
        ("a or", 2, "or 后面缺少条件"),
        ("t: x", 0, "缺少值"),
        ("()", 0, "括号是空的"),
        ("-", 0, "缺少要排除的条件"),
        ("(" * 60 + "a" + ")" * 60, 40, "嵌套太深"),
        ("-(" * 30 + "a" + ")" * 30, 40, "嵌套太深"),
        ("a " * 600, 1000, "查询太长"),
    ],
)
def test_syntax_errors_have_positions(text: str, position: int, fragment: str) -> None:
    with pytest.raises(QueryError) as error:
        parse(text)
    assert error.value.position == position
    assert fragment in error.value.message.zh


# ---- results --------------------------------------------------------------------------------

EL_SETS = [{"code": "Q1", "name": "测试一", "series": "M"}, {"code": "Q2", "name": "测试二", "series": "G"}]
EL_ROWS = """set,number,name,rarity,type,subtype,attribute,cost,attack,defense,traits,keywords,text
Q1,Q1-001,孙悟空,SR,战魂,,地,3地,6,5,西游|行者,飞翔|『悟空』唯一,进场时抽一张牌。
Q1,Q1-002,东海龙王,UR,战魂,,水,2水2无,5,6,西游|龙宫,军团(5),对手回合中防御力+1。
Q1,Q1-003,火之法力石,C,法力石,,火,,,,,,提供火属性法力。
Q1,Q1-004,烈焰术,C,魔法,瞬间,火,1火,,,,瞬间,造成3点伤害。
Q1,Q1-005,光暗双子,R,战魂,,光暗,1光1暗,3,3,英灵,军团(4),抽一张牌，然后弃一张牌。
Q1,Q1-006,小红帽,C,战魂,,风,1风,1,2,童话,『童话』限定,风属性战魂攻击力+1。
Q1,Q1-007,传说·英雄,SR,战魂,,光,4光,8,8,英灵|传说,额外构筑,只能放入额外卡组。
Q2,Q2-001,孙悟空,C,战魂,,地,3地,6,5,西游|行者,飞翔|『悟空』唯一,进场时抽一张牌。
Q2,Q2-002,水帘洞,R,阵型,,水地,1水1地,,,,,你的西游战魂防御力+1。
"""
LZ_SETS = [{"code": "L1", "name": "龍之弈測試", "series": "基本"}]
LZ_ROWS = """set,number,name,rarity,type,subtype,color,level,cost,attack,life,defense,text
L1,L1-001,四海龍王,5,人物,,藍,3,5,6,6,2,召喚時抽一張牌。
L1,L1-002,赤霄劍,3,武器,,紅綠,1,0,,,,產生紅色與綠色法力。
"""


@pytest.fixture
def catalogue(engine: Engine, tmp_path: Path) -> Engine:
    for name, sets, rows in (("samsara", EL_SETS, EL_ROWS), ("longzhiyi", LZ_SETS, LZ_ROWS)):
        write_catalogue(tmp_path, name, sets, {"cards.csv": rows})
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[tmp_path / "samsara", tmp_path / "longzhiyi"])
    return engine


def names(engine: Engine, text: str, **options: Any) -> list[str]:
    with Session(engine) as session:
        return [hit.card.name for hit in search(session=session, text=text, **options).hits]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # names: scripts, width, pinyin, initials, phrases
        ("孙悟空", ["孙悟空"]),
        ("孫悟空", ["孙悟空"]),
        ("sunwukong", ["孙悟空"]),
        ("swk", ["孙悟空"]),
        ("龍王", ["东海龙王", "四海龍王"]),
        ("龙王", ["东海龙王", "四海龍王"]),
        ("王", ["东海龙王", "四海龍王"]),  # one character
        ("ｓｗｋ", ["孙悟空"]),  # full-width letters
        ('"东海 龙王"', ["东海龙王"]),
        ("n=孙悟空", ["孙悟空"]),
        ("n=孙悟", []),
        # rules text: 1-, 2- and 3+-character terms
        ("o:抽", ["光暗双子", "孙悟空", "四海龍王"]),
        ("o:抽一", ["光暗双子", "孙悟空", "四海龍王"]),
        ("o:抽一张牌", ["光暗双子", "孙悟空", "四海龍王"]),  # 抽一張牌 folds alike
        ("o:伤害", ["烈焰术"]),
        # LIKE's own characters are literal (PostgreSQL compiles 3+-character terms to LIKE)
        ("o:抽_张", []),
        ("o:抽%牌", []),
        ("o:%%%", []),
        ("sun_ukong", []),
        ("n:s\\%", []),
        # types, attributes
        ("t:魔法", ["烈焰术"]),
        ("t:magic", ["烈焰术"]),
        ("t:瞬间", ["烈焰术"]),  # subtype
        ("t=瞬间", []),
        ("t:人物", ["四海龍王"]),
        ("t:人物 g:samsara", []),
        ("a:光", ["传说·英雄", "光暗双子"]),
        ("a=光", ["传说·英雄"]),
        ("a:光暗", ["光暗双子"]),
        ("a:白 a:紫", ["光暗双子"]),  # colour names
        ("a<=水地", ["东海龙王", "孙悟空", "水帘洞"]),
        ("a>水", ["水帘洞"]),
        ("c:紅", ["火之法力石", "烈焰术", "赤霄劍"]),  # 红 is also 火's colour name in 永恒之轮
        ("c:红 g:longzhiyi", ["赤霄劍"]),
        # numbers
        ("cost>=4", ["传说·英雄", "四海龍王", "东海龙王"]),
        ("cost=0 or cost<1", ["赤霄劍"]),
        ("atk>5 def>=5", ["传说·英雄", "孙悟空"]),
        ("lv:3", ["四海龍王"]),
        # rarity by ladder
        ("r>=UR g:samsara", ["传说·英雄", "东海龙王", "孙悟空"]),
        ("r:SR", ["传说·英雄", "孙悟空"]),
        ("r:C g:samsara", ["火之法力石", "烈焰术", "孙悟空", "小红帽"]),  # 孙悟空 also printed as C
        ("r=5", ["四海龍王"]),
        ("r<2 g:longzhiyi", []),
        # sets, series, numbers
        ("set:q2", ["孙悟空", "水帘洞"]),
        ("series:G", ["孙悟空", "水帘洞"]),
        ("number:Q1-00", ["传说·英雄", "东海龙王", "光暗双子", "火之法力石", "烈焰术", "孙悟空", "小红帽"]),
        ("number=q2-002", ["水帘洞"]),
        # traits, keywords, flags
        ("tr:西游", ["东海龙王", "孙悟空"]),
        ("tr=行者", ["孙悟空"]),
        ("kw:军团", ["东海龙王", "光暗双子"]),
        ("kw:legion", ["东海龙王", "光暗双子"]),
        ("kw:军团(5)", ["东海龙王"]),
        ("kw:『童话』限定", ["小红帽"]),
        ("kw:限定", ["小红帽"]),
        ("kw:『悟空』唯一", ["孙悟空"]),
        ("is:legion", ["东海龙王", "光暗双子"]),
        ("is:extra", ["传说·英雄", "火之法力石"]),
        ("is:reprint", ["孙悟空"]),
        ("is:multicolor", ["光暗双子", "水帘洞", "赤霄劍"]),
        ("g:龍之弈", ["四海龍王", "赤霄劍"]),
        # boolean structure
        ("t:魔法 or t:阵型", ["水帘洞", "烈焰术"]),
        ("(a:火 or a:水) -t:法力石", ["东海龙王", "水帘洞", "烈焰术"]),
        ("-t:战魂 g:samsara", ["火之法力石", "烈焰术", "水帘洞"]),
        ("-cost<=3 g:samsara", ["传说·英雄", "东海龙王", "火之法力石"]),  # no cost counts as "not <=3"
        ("类型:战魂 属性:地", ["孙悟空"]),
    ],
)
def test_results(catalogue: Engine, query: str, expected: list[str]) -> None:
    assert sorted(names(catalogue, query)) == sorted(expected)


def test_default_order_is_pinyin_with_stable_ties(catalogue: Engine) -> None:
    ordered = names(catalogue, "g:samsara")
    assert ordered == ["传说·英雄", "东海龙王", "光暗双子", "火之法力石", "烈焰术", "水帘洞", "孙悟空", "小红帽"]
    assert names(catalogue, "g:samsara direction:desc") == list(reversed(ordered))


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("g:samsara order:cost", "火之法力石"),  # no cost sorts last? no: cost 0 of… see below
        ("g:samsara order:atk direction:desc", "传说·英雄"),
        ("g:samsara order:rarity direction:desc", "传说·英雄"),
        ("g:samsara order:set", "孙悟空"),
    ],
)
def test_orders(catalogue: Engine, query: str, first: str) -> None:
    got = names(catalogue, query)
    if "order:cost" in query:
        # cards without a cost go last; the cheapest with a cost come first
        assert got[-1] == "火之法力石" and got[0] in ("小红帽", "烈焰术")
    else:
        assert got[0] == first


def test_unique_prints_and_representative_printing(catalogue: Engine) -> None:
    with Session(catalogue) as session:
        cards = search(session=session, text="孙悟空")
        prints = search(session=session, text="孙悟空 unique:prints")
        common = search(session=session, text="孙悟空 r:C")
    assert cards.total == 1 and prints.total == 2
    assert [h.printing.number for h in prints.hits] == ["Q1-001", "Q2-001"]
    assert cards.hits[0].printing.number == "Q1-001"
    assert common.hits[0].printing.number == "Q2-001"  # the printing that matched r:C


def test_pagination_is_stable(catalogue: Engine) -> None:
    everything = names(catalogue, "")
    pages = [names(catalogue, "", page=page, per_page=3) for page in (1, 2, 3, 4)]
    assert [name for page in pages for name in page] == everything
    with Session(catalogue) as session:
        result = search(session=session, text="", page=9, per_page=3)
    assert result.total == len(everything) and result.hits == [] and not result.has_more


def test_json_shape(catalogue: Engine) -> None:
    with Session(catalogue) as session:
        body = CardPage.of(search(session=session, text="东海龙王")).body()
    assert body["total"] == 1
    card = body["cards"][0]
    assert {k: card[k] for k in ("name", "game", "type", "rarity", "set", "number")} == {
        "name": "东海龙王",
        "game": "samsara",
        "type": "战魂",
        "rarity": "UR",
        "set": "Q1",
        "number": "Q1-002",
    }
    assert card["keywords"] == ["军团(5)"] and card["cost"] == "2水2无"


@pytest.mark.parametrize(
    ("query", "fragment", "position"),
    [
        ("xyz:1", "未知的搜索键「xyz」", 0),
        ("t:战魂 r>=QQ", "未知的稀有度 QQ", 5),
        ("cost>=abc", "abc 不是整数", 0),
        ("a:金", "不是已知的属性或颜色", 0),
        ("kw:飞行术", "未知的关键字", 0),
        ("set:ZZ", "没有代码为 ZZ 的系列", 0),
        ("g:mtg", "未知的游戏 mtg", 0),
        ("is:foil", "未知的标记 foil", 0),
        ("order:price", "未知的排序", 0),
        ("t:战魂 or order:cost", "只能作为整个查询的设置", 8),
        ("t>战魂", "不能用运算符 >", 0),
        ("own>0", "需要登录", 0),  # anonymous: own/want/trade need a user
    ],
)
def test_semantic_errors_name_the_term(catalogue: Engine, query: str, fragment: str, position: int) -> None:
    with Session(catalogue) as session, pytest.raises(QueryError) as error:
        search(session=session, text=query)
    assert fragment in error.value.message.zh
    assert error.value.position == position
    assert error.value.message.en


def test_unknown_key_lists_the_known_ones(catalogue: Engine) -> None:
    with Session(catalogue) as session, pytest.raises(QueryError) as error:
        search(session=session, text="colour_x:1")
    for key in ("t:", "a:", "r:", "set:", "kw:", "cost:"):
        assert key in error.value.message.zh


def test_cli_search(runner: Any, catalogue: Engine) -> None:
    result = runner.invoke(args=["search", "swk"])
    assert result.exit_code == 0 and "孙悟空" in result.output and "共 1 张" in result.output
    data = runner.invoke(args=["search", "--json", "kw:军团"])
    assert data.exit_code == 0
    import json

    assert json.loads(data.output)["total"] == 2
    bad = runner.invoke(args=["search", "--json", "t:战魂 (a:火"])
    assert bad.exit_code == 2
    assert json.loads(bad.output)["error"]["position"] == 5


def test_api_search_and_card(client: Any, catalogue: Engine) -> None:
    body = client.get("/api/v1/cards", query_string={"q": "龍王"}).get_json()
    assert {c["name"] for c in body["cards"]} == {"东海龙王", "四海龍王"}
    assert all(c["url"].startswith("/cards/") for c in body["cards"])
    bad = client.get("/api/v1/cards", query_string={"q": "r>=QQ"})
    assert bad.status_code == 400
    assert bad.get_json()["error"]["code"] == "bad_query" and bad.get_json()["error"]["message_en"]
    assert client.get("/api/v1/cards", query_string={"q": "x", "page": "0"}).status_code == 400
    paged = client.get("/api/v1/cards", query_string={"q": "", "per_page": 2}).get_json()
    assert paged["has_more"] and "page=2" in paged["next_page"]
    one = client.get("/api/v1/cards/samsara/孫悟空").get_json()
    assert one["name"] == "孙悟空" and [p["number"] for p in one["printings"]] == ["Q1-001", "Q2-001"]
    assert client.get("/api/v1/cards/samsara/无此卡").status_code == 404
    sets = client.get("/api/v1/sets").get_json()["sets"]
    assert {s["code"] for s in sets} == {"Q1", "Q2", "L1"}


@pytest.mark.parametrize("cap", [0, 1, 3, 100_000])
@pytest.mark.parametrize("query", ["", "t:战魂", "a:火 or a:水", "r>=R", "o:抽", "-t:魔法 unique:prints", "zzz"])
def test_pages_and_totals_do_not_depend_on_the_match_cap(
    sample_catalogue: Engine, monkeypatch: pytest.MonkeyPatch, query: str, cap: int
) -> None:
    """One statement collects up to MATCH_CAP matches, beyond it the page and the count run
    apart: both paths give the same pages and totals (cap 0 is the two-statement path)."""
    import catalog.search.run as search_module

    def pages(per_page: int) -> tuple[int, list[str]]:
        seen: list[str] = []
        with Session(sample_catalogue) as session:
            for page in (1, 2, 3, 50):
                result = search(session=session, text=query, page=page, per_page=per_page)
                seen += [f"{hit.card.name}@{hit.printing.number}" for hit in result.hits]
        return result.total, seen

    monkeypatch.setattr(search_module, "MATCH_CAP", 0)
    expected = pages(7)
    monkeypatch.setattr(search_module, "MATCH_CAP", cap)
    assert pages(7) == expected


# ---- how search talks to each database (PostgreSQL as fast as SQLite) -------------


def _card_keys(engine: Engine) -> list[tuple[str, str]]:
    from sqlalchemy import select

    from catalog.models import CardSearch, table_of

    cs = table_of(CardSearch)
    with Session(engine) as session:
        return [(name, keys) for name, keys in session.execute(select(cs.c.name, cs.c["keys"]))]


def test_short_name_terms_find_every_card_whose_keys_hold_them(catalogue: Engine) -> None:
    """Every 1- and 2-character piece of the cards' names, pinyin and initials finds exactly
    the cards whose search keys hold it: PostgreSQL answers these from its character index
    (``@>`` then ``strpos``, migration 0014), SQLite with ``instr``."""
    from catalog.text import KEY_SEPARATOR

    cards = _card_keys(catalogue)
    pieces = {
        part[i : i + size]
        for _name, keys in cards
        for part in keys.split(KEY_SEPARATOR)
        for size in (1, 2)
        for i in range(len(part) - size + 1)
    }
    needles = sorted(p for p in pieces if p.isalnum() and p != "or")
    assert len([n for n in needles if not n.isascii()]) > 30 and len(needles) > 60
    with Session(catalogue) as session:
        for needle in needles:
            found = sorted(hit.card.name for hit in search(session=session, text=needle).hits)
            assert found == sorted(name for name, keys in cards if needle in keys), needle


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's character index (SQLite has none)")
def test_postgres_character_index_serves_short_name_terms(catalogue: Engine) -> None:
    """The index exists and the term's SQL is one it can serve (with sequential scans off, the
    plan reads it): an expression that stopped matching the index would scan again."""
    from sqlalchemy import select, text

    from catalog.models import CardSearch, table_of
    from catalog.search.sql import contains

    cs = table_of(CardSearch)
    statement = select(cs.c.card_id).where(contains(cs.c["keys"], "龙王", character_index=True))
    with Session(catalogue) as session:
        definition = session.execute(
            text("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_card_search_keys_chars'")
        ).scalar()
        assert definition is not None and "string_to_array" in definition and "gin" in definition
        session.execute(text("SET LOCAL enable_seqscan = off"))
        sql = statement.compile(session.get_bind(), compile_kwargs={"literal_binds": True})
        plan = "\n".join(row[0] for row in session.execute(text(f"EXPLAIN {sql}")))
        assert "ix_card_search_keys_chars" in plan, plan
        assert sorted(session.scalars(statement)) == sorted(
            session.scalars(select(cs.c.card_id).where(cs.c["keys"].contains("龙王")))
        )


def test_text_sort_keys_compare_bytes_on_both_databases() -> None:
    """Names and numbers sort byte by byte: SQLite's BINARY, PostgreSQL's ``COLLATE "C"``
    rather than the database's collation (strcoll: slower, and en_US would not sort like SQLite)."""
    from sqlalchemy.dialects import postgresql, sqlite

    from catalog.search.compile import ORDERS
    from catalog.search.keys import Context
    from catalog.search.run import _order_columns

    for mode in ("cards", "prints"):
        from catalog.models import Printing, table_of

        ctx = Context(games=[], all_games={}, load_sets=dict, mode=mode, p=table_of(Printing).alias("p"))
        for order in ORDERS:
            clauses = _order_columns(order, "asc", ctx)
            on_postgres = " ".join(str(c.compile(dialect=postgresql.dialect())) for c in clauses)
            assert 'card_search.sort_key COLLATE "C"' in on_postgres and 'card_search.name COLLATE "C"' in on_postgres
            if order in ("set", "number"):
                assert 'number COLLATE "C"' in on_postgres
            assert "COLLATE" not in " ".join(str(c.compile(dialect=sqlite.dialect())) for c in clauses)


@pytest.mark.parametrize(
    ("query", "statements"),
    [
        ("孙悟空", 3),  # the games, the page with its count, the hits (cards with their printings)
        ("r:C", 4),  # … and which printings match, for the representative one
        ("孙悟空 unique:prints", 3),
        ("zzz", 2),  # no hits to read
    ],
)
def test_statements_per_search(catalogue: Engine, query: str, statements: int) -> None:
    """Each statement is a round trip to PostgreSQL; the page's ids travel there as one array."""
    from sqlalchemy import event

    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement != "BEGIN":
            seen.append(statement)

    with Session(catalogue) as session:
        search(session=session, text="")  # the session's connection and transaction
        event.listen(catalogue, "before_cursor_execute", record)
        try:
            result = search(session=session, text=query)
        finally:
            event.remove(catalogue, "before_cursor_execute", record)
    assert len(seen) == statements, seen
    if result.hits:
        assert any(("= ANY (" if ON_POSTGRES else " IN (") in statement for statement in seen[2:])


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's expression statistics (SQLite's planner has no such guess)")
def test_postgres_counts_the_cards_of_one_attribute(sample_catalogue: Engine) -> None:
    """An attribute term's expression has statistics (migration 0016): the planner's estimate of
    the cards of a:火 is near their number, not its 0.5 % guess for an expression it cannot see
    into (which made it look every card's printings up one by one)."""
    from sqlalchemy import text

    with Session(sample_catalogue) as session:
        session.execute(text("ANALYZE card_search"))
        fire = session.scalar(text("SELECT count(*) FROM card_search WHERE (attr_mask & 1) = 1"))
        plan = session.execute(
            text("EXPLAIN (FORMAT JSON) SELECT card_id FROM card_search WHERE (attr_mask & :bit) = :bit"), {"bit": 1}
        ).scalar()
        estimate = plan[0]["Plan"]["Plan Rows"]
        assert fire is not None and fire >= 50 and fire / 2 <= estimate <= fire * 2, (fire, estimate)


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's plan cache (SQLite plans every statement anew)")
def test_postgres_plans_a_repeated_search_for_its_own_words(sample_catalogue: Engine) -> None:
    """psycopg prepares a statement once a connection has run it five times; after five more,
    PostgreSQL would plan it once for any words (a generic plan), 60 % slower for a broad
    text search on the benchmark catalogue (catalog/db.py). The twentieth run of a search on one
    connection is still planned for its own words: its statements with the words (the page and
    count, the representative printings) are never prepared; nor is a collection filter's
    statement, alone or inside another; other statements are."""
    from sqlalchemy import text
    from sqlmodel import col, select

    from catalog.models import Printing
    from catalog.search import printing_ids_matching

    def generic_plans(session: Session, like: str) -> tuple[int, int]:
        """(prepared statements, generic plans among those whose text is ``like``)."""
        found = session.execute(
            text(
                "SELECT count(*), coalesce(sum(generic_plans) FILTER (WHERE statement LIKE :like), 0)"
                " FROM pg_prepared_statements"
            ),
            {"like": like},
        ).one()
        return int(found[0]), int(found[1])

    with Session(sample_catalogue) as session:
        for _ in range(20):
            search(session=session, text="o:抽一张牌")
            search(session=session, text="r:C o:抽一张")  # … and one with a printing condition
        prepared, generic = generic_plans(session, "%MATERIALIZED%")
        assert prepared > 0, "psycopg prepared none of the other statements: the check means nothing"
        assert generic == 0
        matching = generic_plans(session, "%SELECT p.id%rarity_rank%")[1]  # the representative printings
        assert matching == 0
        session.commit()
        for _ in range(20):
            statement = printing_ids_matching(session=session, text="o:抽一张牌", user_id=None)
            session.scalars(statement).all()  # alone, and inside another statement
            session.scalars(select(Printing.id).where(col(Printing.id).in_(statement))).all()
        filtered = generic_plans(session, "%unprepared_p%")[1]  # the filter's alias (catalog/db.py)
        # other statements are still prepared (an import's many alike statements gain by it)
        for _ in range(6):
            session.execute(text("SELECT id FROM printing WHERE id = :id"), {"id": 1}).all()
        elsewhere = session.execute(
            text("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT id FROM printing%'")
        ).scalar()
    assert filtered == 0
    assert elsewhere == 1

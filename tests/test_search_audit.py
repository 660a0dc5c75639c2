"""Search keys, a leading ``-`` on the command line, one vocabulary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.games import GAMES
from catalog.ingest import import_catalogue
from catalog.search import QueryError, search
from catalog.search.keys import resolve_keyword
from tests.kits.catalogue import write_catalogue

CATALOGUES = {
    "samsara": (
        {"code": "Q1", "name": "测试", "series": "M"},
        "set,number,name,rarity,type,attribute,cost,attack,defense,traits,keywords,text\n"
        "Q1,Q1-001,圣骸战士,C,战魂,火,1火,2,2,圣骸,,\n"
        "Q1,Q1-002,超圣骸战士,R,战魂,火,2火,3,3,超圣骸|反抗军,魔抗(2),\n"
        "Q1,Q1-003,反抗军斥候,C,战魂,火,1火,1,1,反抗军,Magic resistance(1),\n",
    ),
    "longzhiyi": (
        {"code": "L1", "name": "測試", "series": "基本"},
        "set,number,name,rarity,type,color,level,cost,attack,life,defense,text\n"
        "L1,L1-001,四海龍王,5,人物,藍,3,5,6,6,2,\n"
        "L1,L1-002,小兵,1,人物,藍,1,1,1,2,0,\n",
    ),
    "keyforge": (
        {"code": "K1", "name": "测试", "series": "K"},
        "set,number,name,rarity,type,house,amber,power,armor,traits,keywords,text,name_en\n"
        "K1,K1-001,山岳拳王,Rare,生物,布罗布纳,0,6,1,巨人,,,Summit Fist Champion\n"
        "K1,K1-002,琥珀商人,Common,行动,冥界,2,,,,,,Amber Trader\n"
        "K1,K1-003,锅盖哥布林,Common,生物,布罗布纳,1,2,0,哥布林,闪避,,Potlid Goblin\n",
    ),
}


@pytest.fixture
def catalogue(engine: Engine, tmp_path: Path) -> Engine:
    for name, (card_set, rows) in CATALOGUES.items():
        write_catalogue(tmp_path, name, [card_set], {"cards.csv": rows})
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[tmp_path / name for name in CATALOGUES])
    return engine


def names(engine: Engine, text: str) -> list[str]:
    with Session(engine) as session:
        return sorted(hit.card.name for hit in search(session=session, text=text, per_page=100).hits)


# ---------------------------------------------------------------------------- item 2


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("amber>=1", ["琥珀商人", "锅盖哥布林"]),
        ("琥珀=2", ["琥珀商人"]),
        ("æmber:0", ["山岳拳王"]),
        ("aember!=0", ["琥珀商人", "锅盖哥布林"]),
        ("-amber>=1 g:keyforge", ["山岳拳王"]),
        ("power>=6", ["四海龍王", "山岳拳王"]),  # 龍之弈 战斗力 is attack too
        ("power>=6 g:keyforge", ["山岳拳王"]),
        ("armor>=1 g:keyforge", ["山岳拳王"]),
        ("life>=6", ["四海龍王"]),
        ("生命<6", ["小兵"]),
        ("life<=100 g:samsara", []),
    ],
)
def test_every_numeric_field_is_searchable(catalogue: Engine, query: str, expected: list[str]) -> None:
    assert names(catalogue, query) == expected


def test_a_numeric_key_wants_a_number(catalogue: Engine) -> None:
    with Session(catalogue) as session, pytest.raises(QueryError) as error:
        search(session=session, text="amber>=x")
    assert "amber>=x" in error.value.message.zh


# ---------------------------------------------------------------------------- item 8


@pytest.mark.parametrize(
    "args",
    [
        ["search", "-t:战魂", "--json"],
        ["search", "--", "-t:战魂", "--json"],
        ["search", "--json", "--", "-t:战魂"],
        ["search", "--json", "-t:战魂", "g:samsara"],
        ["search", "-t:战魂", "g:samsara", "--json", "--page", "1"],
        ["search", "-t:战魂 g:samsara", "--json"],
        ["search", "-g", "samsara", "-t:战魂", "--json"],
    ],
)
def test_a_query_may_start_with_a_minus(runner: Any, catalogue: Engine, args: list[str]) -> None:
    result = runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    scope = "g:samsara" if "g:samsara" in " ".join(args) or "samsara" in args else ""
    expected = names(catalogue, f"-t:战魂 {scope}")
    assert sorted(c["name"] for c in body["cards"]) == expected
    assert len(expected) == (0 if scope else 5)  # every samsara card here is a 战魂


def test_a_minus_query_finds_the_rest(runner: Any, catalogue: Engine) -> None:
    result = runner.invoke(args=["search", "-t:生物", "g:keyforge", "--json"])
    assert result.exit_code == 0, result.output
    assert [c["name"] for c in json.loads(result.output)["cards"]] == ["琥珀商人"]
    plain = runner.invoke(args=["search", "--", "-t:生物", "g:keyforge"])
    assert plain.exit_code == 0 and "琥珀商人" in plain.output and "{" not in plain.output


# ---------------------------------------------------------------------------- item 9


def test_the_importer_and_search_share_one_keyword_vocabulary(catalogue: Engine) -> None:
    assert names(catalogue, "kw:魔抗") == ["反抗军斥候", "超圣骸战士"]
    assert names(catalogue, "kw:魔抗(2)") == ["超圣骸战士"]
    assert names(catalogue, "kw:魔法抗性(1)") == ["反抗军斥候"]


def test_every_keyword_word_is_accepted_by_the_importer_and_by_search() -> None:
    """Walk each game's keyword vocabulary: every word (Chinese, English, code, alias) is read
    by the importer of that game and by ``kw:`` to the same keyword."""
    from catalog.games.keyforge import vocabulary as keyforge
    from catalog.games.samsara import vocabulary as samsara

    parsers = {"samsara": samsara.parse_keyword, "keyforge": keyforge.parse_keyword}
    walked = 0
    for slug, parse in parsers.items():
        module = GAMES[slug]
        for keyword in module.keywords:
            for word in keyword.words():
                written = word
                if keyword.has_subject:
                    written = f"{word}『童话』" if keyword.kind == "transform" else f"『童话』{word}"
                if keyword.has_value:
                    written += "(2)"
                parsed = parse(written)
                assert parsed["kind"] == keyword.kind, (slug, written)
                found = resolve_keyword(written, [(module, 0)])
                assert found is not None and found[0] == keyword.kind, (slug, written)
                walked += 1
    assert walked > 60


def test_every_vocabulary_word_the_importer_knows_is_a_search_word(catalogue: Engine) -> None:
    """Types, attributes/colours, rarities and houses: search and the importer use the same
    vocabulary objects, so each spelling the importer accepts finds cards of that term."""
    found: dict[str, list[str]] = {}  # query → the cards it finds
    compared = 0
    for slug in CATALOGUES:
        module = GAMES[slug]
        houses = getattr(module, "houses", None)
        rarities = {word: module.rarity.resolve(word) for word in (*module.rarity.codes, *module.rarity.synonyms)}
        for key, spellings in (
            ("t", module.types.synonyms()),
            ("a", module.attributes.synonyms()),
            ("r", rarities),
            ("f", houses.synonyms() if houses is not None else {}),
        ):
            for word, term in spellings.items():
                canonical = found.setdefault(f"{slug}:{key}:{term}", names(catalogue, f'g:{slug} {key}:"{term}"'))
                # each spelling finds exactly the cards of its term (this only ran them)
                assert names(catalogue, f'g:{slug} {key}:"{word}"') == canonical, (slug, key, word, term)
                compared += bool(canonical)
    # and the terms the catalogues use do find their cards, whatever the spelling
    assert found["samsara:t:战魂"] == ["反抗军斥候", "圣骸战士", "超圣骸战士"]
    assert found["longzhiyi:a:藍"] == ["四海龍王", "小兵"]
    assert found["keyforge:f:布罗布纳"] == ["山岳拳王", "锅盖哥布林"]
    assert compared > 20


# ---------------------------------------------------------------------------- item 10


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tr:圣骸", ["圣骸战士"]),  # whole traits, as 『A』限定 reads them
        ("tr=圣骸", ["圣骸战士"]),
        ("tr:聖骸", ["圣骸战士"]),
        ("tr:*圣骸*", ["圣骸战士", "超圣骸战士"]),  # the explicit substring form
        ("tr:*圣骸", ["圣骸战士", "超圣骸战士"]),
        ("tr:超*", ["超圣骸战士"]),
        ("tr:反抗", []),
        ("tr:反抗*", ["反抗军斥候", "超圣骸战士"]),
        ("tr:*_*", []),  # LIKE metacharacters are literal
    ],
)
def test_trait_matches_whole_traits_and_stars_match_parts(catalogue: Engine, query: str, expected: list[str]) -> None:
    assert names(catalogue, query) == expected


def test_the_help_page_documents_both_trait_forms(client: Any) -> None:
    page = client.get("/help/search").get_data(as_text=True)
    assert "tr:圣骸" in page and "tr:*圣骸*" in page
    assert "amber" in page and "life" in page

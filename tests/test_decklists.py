"""Decklists (DESIGN §4): text and JSON reading, name resolution, numbered errors, writing."""

from __future__ import annotations

import json

import pytest

from catalog.decks.lists import DecklistError, parse_decklist, resolve, write_json, write_text
from tests.kits.deck import card, pool

DRAGON = card("龍王", "战魂", sets=("M1", "G2"))
RED = card("小红帽·森林歌者", "战魂", sets=("M4",))
A_FULL = card("Ａ王", "战魂")  # two cards whose names fold alike
A_HALF = card("a王", "战魂")
STONE = card("火之法力石", "法力石", sets=("S8",))
DRONE = card("X-47", "载具", sets=("S10",))
POOL = pool(
    "samsara",
    [DRAGON, RED, A_FULL, A_HALF, STONE, DRONE],
    numbers={
        "M1-001": [("龍王", "M1")],
        "G2-001": [("龍王", "G2")],
        "M4-017": [("小红帽·森林歌者", "M4")],
        "001": [("龍王", "M1"), ("小红帽·森林歌者", "M4")],
    },
)


def one(line: str):
    deck, problems = resolve(parse_decklist(line), POOL)
    return deck, problems


@pytest.mark.parametrize(
    ("line", "name", "count", "set_code"),
    [
        ("3 龍王", "龍王", 3, None),
        ("3x 龍王", "龍王", 3, None),
        ("3X龍王", "龍王", 3, None),
        ("3× 龍王", "龍王", 3, None),
        ("3 x 龍王", "龍王", 3, None),
        ("3 X-47", "X-47", 3, None),  # a name starting with X is not a multiplier
        ("1 x-47", "X-47", 1, None),
        ("龍王 x3", "龍王", 3, None),
        ("龍王", "龍王", 1, None),
        ("2 龙王", "龍王", 2, None),  # Simplified matches Traditional
        ("３ 龍王", "龍王", 3, None),  # full-width digits
        ("  2   龍王   ", "龍王", 2, None),
        ("3x M1-001", "龍王", 3, "M1"),  # a collector number works as a name
        ("2 m1-001", "龍王", 2, "M1"),
        ("2 龍王 (G2)", "龍王", 2, "G2"),
        ("2 龍王 (g2) G2-001", "龍王", 2, "G2"),
        ("2 (M4) M4-017", "小红帽·森林歌者", 2, "M4"),
        ("1 (M4) 001", "小红帽·森林歌者", 1, "M4"),
        ("1 小紅帽·森林歌者 # a comment", "小红帽·森林歌者", 1, None),
        ("1 小红帽・森林歌者", "小红帽·森林歌者", 1, None),  # the katakana middle dot folds to ·
    ],
)
def test_line_forms(line: str, name: str | None, count: int, set_code: str | None) -> None:
    deck, problems = one(line)
    if name is None:
        assert [p.code for p in problems] == ["unknown_card"]
        return
    assert problems == []
    [entry] = deck.entries
    assert (entry.card.name, entry.count, entry.set_code, entry.lines) == (name, count, set_code, (1,))


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("1 龍皇", "unknown_card"),
        ("1 A王", "ambiguous_card"),  # folds to two cards
        ("1 001", "ambiguous_card"),  # number printed in two sets
    ],
)
def test_unknown_and_ambiguous_lines_are_violations(line: str, code: str) -> None:
    deck, problems = one("主卡组:\n" + line)
    assert deck.entries == [] and [p.code for p in problems] == [code]
    assert problems[0].lines == [2] and "第 2 行" in problems[0].message
    if code == "ambiguous_card":
        assert len(problems[0].cards) == 2


def test_a_card_not_in_the_set_named_counts_and_says_so() -> None:
    deck, [problem] = one("主卡组:\n1 龍王 (M4)")  # no printing in that set
    assert problem.code == "card_not_in_set" and "M1、G2" in problem.message.replace("G2、M1", "M1、G2")
    assert [e.card.name for e in deck.entries] == ["龍王"]
    deck, [problem] = one("主卡组:\n1 龍王 (XX)")  # no such set: the name still counts
    assert problem.code == "card_not_in_set" and "XX" in problem.message
    assert [e.card.name for e in deck.entries] == ["龍王"]


def test_unknown_card_suggests_the_nearest_names() -> None:
    _deck, [problem] = one("1 小红帽森林歌者")
    assert problem.suggestions[0] == "小红帽·森林歌者"
    assert "你是不是要找：小红帽·森林歌者" in problem.message
    assert problem.to_json()["suggestions"] == problem.suggestions


def test_sections_and_metadata() -> None:
    text = """名称: 龙王速攻   # a comment
游戏: 永恒之轮
赛制: m8
职业: 仙道士
1 龍王
Extra:
2 火之法力石
Sideboard:
1 小红帽·森林歌者
主牌组:
1 龍王
額外卡組:
1 火之法力石
備牌:
Main:
Deck:
"""
    decklist = parse_decklist(text)
    assert decklist.metadata == {"name": "龙王速攻", "game": "永恒之轮", "format": "m8", "职业": "仙道士"}
    assert [(line.section, line.count) for line in decklist.lines] == [
        ("main", 1),
        ("extra", 2),
        ("side", 1),
        ("main", 1),
        ("extra", 1),
    ]
    deck, problems = resolve(decklist, POOL)
    assert problems == [] and deck.counts() == {"main": 2, "extra": 3, "side": 1}


def test_unreadable_text_lists_every_bad_line() -> None:
    with pytest.raises(DecklistError) as error:
        parse_decklist("1 龍王\n杂项:\n0 龍王\n1000 龍王\n(M4)\n")
    lines = [p.line for p in error.value.problems]
    assert lines == [2, 3, 4, 5]
    assert "第 2 行" in error.value.message.zh and "line 3" in error.value.message.en


def test_json_deck_reads_like_text() -> None:
    data = {
        "name": "龙王",
        "game": "samsara",
        "format": "standard",
        "main": [{"card": "龍王", "count": 3}, {"card": "M4-017", "count": 1}, "小红帽·森林歌者"],
        "extra": [{"card": "火之法力石", "count": 4}],
        "side": [{"card": "龍王", "set": "G2"}],
    }
    deck, problems = resolve(parse_decklist(json.dumps(data, ensure_ascii=False)), POOL)
    assert problems == [] and deck.counts() == {"main": 5, "extra": 4, "side": 1}
    assert deck.name == "龙王" and deck.format == "standard"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"main": [', "JSON 格式错误"),
        ('{"main": [{"card": "龍王", "count": 0}]}', "main[0]：张数应为"),
        ('{"main": [{"count": 2}]}', "main[0]：缺少 card"),
        ('{"main": {"card": "龍王"}}', "「main」应是列表"),
        ("[1, 2]", None),
    ],
)
def test_unreadable_json(text: str, expected: str | None) -> None:
    if text.startswith("["):
        with pytest.raises(DecklistError):
            from catalog.decks.lists import from_json

            from_json(json.loads(text))
        return
    with pytest.raises(DecklistError) as error:
        parse_decklist(text)
    assert expected in error.value.message.zh


def test_text_and_json_round_trip() -> None:
    text = "名称: 测试\n2 龍王 (M1)\n1 龙王 (M1)\n1 小红帽·森林歌者\n额外卡组:\n4 火之法力石\n备牌:\n1 龍王\n"
    deck, _ = resolve(parse_decklist(text), POOL)
    written = write_text(deck)
    assert written == (
        "名称: 测试\n游戏: 永恒之轮\n\n主卡组:\n3 龍王 (M1)\n1 小红帽·森林歌者\n"
        "\n额外卡组:\n4 火之法力石\n\n备牌:\n1 龍王\n"
    )
    again, problems = resolve(parse_decklist(written), POOL)
    assert problems == [] and write_text(again) == written
    as_json = write_json(deck)
    assert as_json["main"] == [{"card": "龍王", "count": 3, "set": "M1"}, {"card": "小红帽·森林歌者", "count": 1}]
    from_json, problems = resolve(parse_decklist(json.dumps(as_json, ensure_ascii=False)), POOL)
    assert problems == [] and write_text(from_json) == written


@pytest.mark.parametrize(
    ("line", "delta", "expected"),
    [
        (2, 1, "名称: x\n4 龍王\n额外卡组:\n2 火之法力石\n"),
        (2, -1, "名称: x\n2 龍王\n额外卡组:\n2 火之法力石\n"),
        (2, -3, "名称: x\n额外卡组:\n2 火之法力石\n"),  # down to 0: the line goes
        (4, 1, "名称: x\n3 龍王\n额外卡组:\n3 火之法力石\n"),
        (1, 1, None),  # metadata, header and out-of-range lines are left alone
        (3, 1, None),
        (9, 1, None),
    ],
)
def test_adjust_line(line: int, delta: int, expected: str | None) -> None:
    from catalog.decks.lists import adjust_line

    text = "名称: x\n3 龍王\n额外卡组:\n2 火之法力石\n"
    assert adjust_line(text, line, delta) == (expected or text)


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ("main", "名称: x\n3 龍王\n2 小红帽\n额外卡组:\n2 火之法力石\n"),
        ("extra", "名称: x\n3 龍王\n额外卡组:\n2 火之法力石\n2 小红帽\n"),
        ("side", "名称: x\n3 龍王\n额外卡组:\n2 火之法力石\n备牌:\n2 小红帽\n"),
    ],
)
def test_add_card(section: str, expected: str) -> None:
    from catalog.decks.lists import add_card

    assert add_card("名称: x\n3 龍王\n额外卡组:\n2 火之法力石\n", "小红帽", 2, section) == expected
    assert add_card("", "小红帽", 1, "main") == "主卡组:\n1 小红帽\n"


@pytest.mark.parametrize(
    ("text", "name", "section", "expected"),
    [
        ("3 赤晶幼龙\n", "赤晶幼龙", "main", "4 赤晶幼龙\n"),  # the line grows, no second line
        ("主卡组:\n3 赤晶幼龙\n2 龍王\n", "龙王", "main", "主卡组:\n3 赤晶幼龙\n3 龍王\n"),  # folded names
        ("3 赤晶幼龙 (M4)\n", "赤晶幼龙", "main", "4 赤晶幼龙 (M4)\n"),  # the printing is kept
        ("3 赤晶幼龙\n", "赤晶幼龙", "side", "3 赤晶幼龙\n备牌:\n1 赤晶幼龙\n"),  # another section: a line
        ("3x 赤晶幼龙\n", "赤晶幼龙", "main", "4 赤晶幼龙\n"),
    ],
)
def test_add_card_merges_with_the_line_naming_it(text: str, name: str, section: str, expected: str) -> None:
    from catalog.decks.lists import add_card

    assert add_card(text, name, 1, section) == expected

"""What an outside audit of the deck checker against the seeds found.

Seed 000 (永恒之轮) is the authority: "名称相同的卡牌最多只能放入三张", "军团战魂能在卡组中最多放入
X张", "『A』限定：A特征以外的战魂都不能放入卡组", "额外卡组：法力石，及额外构筑卡牌组成卡组".
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import check_decklist
from tests.kits.deck import card, check, fmt, kw, pool

SOULS = [card(f"童话兵{i:02d}", "战魂", attributes="火", cost={"火": 1}, traits=("童话",)) for i in range(20)]
DRAGON = card("火龙", "战魂", sets=("M1",), attributes="火", cost={"火": 1}, traits=("龙",))
BOOK = card("童话之书", "阵型", attributes="火", cost={"火": 1}, keywords=(kw("restricted", subject="童话"),))
FIRE = card("火之法力石", "法力石", sets=("S8",), attributes="火")  # basic: no rules text
SEAL = card(
    "水属性法力之印",
    "法力石",
    sets=("G2",),
    attributes="水",
    text="放入法力区后提供水属性法力，并视为一张水属性法力石。",
)
LEGION_SOUL = card("军团兵", "战魂", attributes="火", cost={"火": 1}, keywords=(kw("legion", 5),), traits=("童话",))
LEGION_MAGIC = card("军团号令", "魔法", attributes="火", cost={"火": 1}, keywords=(kw("legion", 5),))
SAMSARA = pool("samsara", [*SOULS, DRAGON, BOOK, FIRE, SEAL, LEGION_SOUL, LEGION_MAGIC])
STANDARD = fmt("samsara")


def main_of(size: int) -> str:
    out, left = [], size
    for soul in SOULS:
        if left <= 0:
            break
        n = min(3, left)
        out.append(f"{n} {soul.name}")
        left -= n
    return "\n".join(out) + "\n"


EXTRA = "额外卡组:\n10 火之法力石\n"

# ---------------------------------------------------------------------------- item 3: basic stones


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("20 火之法力石\n", []),  # basic (no rules text): free of the limit
        ("10 火之法力石\n3 水属性法力之印\n", []),
        ("10 火之法力石\n4 水属性法力之印\n", ["too_many_copies"]),  # a stone with rules text: 3
        ("10 火之法力石\n20 水属性法力之印\n", ["too_many_copies"]),
    ],
)
def test_only_basic_mana_stones_are_free_of_the_three_copy_limit(extra: str, expected: list[str]) -> None:
    verdict = check(main_of(50) + "额外卡组:\n" + extra, SAMSARA, STANDARD)
    assert verdict.codes() == expected
    if expected:
        assert verdict.violations[0].cards == ["水属性法力之印"]


# ---------------------------------------------------------------------------- item 4: the side board


@pytest.mark.parametrize(
    ("deck", "expected"),
    [
        # a 限定 card in the side board could be swapped in: the 龙 soul of the main deck is then illegal
        (main_of(49) + "1 火龙\n" + EXTRA + "备牌:\n1 童话之书\n", ["trait_restriction"]),
        # a soul without the trait in the side board could be swapped in beside the 限定 card
        (main_of(49) + "1 童话之书\n" + EXTRA + "备牌:\n1 火龙\n", ["trait_restriction"]),
        (main_of(49) + "1 童话之书\n" + EXTRA + "备牌:\n1 童话兵00\n", ["too_many_copies"]),
        (main_of(50) + EXTRA + "备牌:\n1 童话之书\n2 童话兵19\n", []),
    ],
)
def test_the_side_board_counts_for_every_rule_about_cards(deck: str, expected: list[str]) -> None:
    assert check(deck, SAMSARA, STANDARD).codes() == expected


# ---------------------------------------------------------------------------- item 5: all problems at once


def test_misplaced_stones_count_where_they_belong_so_the_first_check_shows_everything() -> None:
    # 48 souls + 3 stones in the main deck: the main deck the player meant holds 48 cards
    verdict = check(main_of(48) + "3 火之法力石\n" + EXTRA, SAMSARA, STANDARD)
    assert sorted(verdict.codes()) == ["extra_card_in_main", "main_too_small"]
    small = next(v for v in verdict.violations if v.code == "main_too_small")
    assert small.counts["size"] == 48
    # and moving the stones leaves exactly that problem
    assert check(main_of(48) + "额外卡组:\n13 火之法力石\n", SAMSARA, STANDARD).codes() == ["main_too_small"]


def test_a_main_card_in_the_extra_deck_counts_towards_the_main_deck() -> None:
    verdict = check(main_of(49) + "额外卡组:\n1 童话兵19\n10 火之法力石\n", SAMSARA, STANDARD)
    assert verdict.codes() == ["main_card_in_extra"]


def test_the_extra_deck_cap_counts_stones_written_in_the_main_deck() -> None:
    capped = fmt("samsara", extra_max=10)
    assert check(main_of(50) + "2 火之法力石\n" + EXTRA, SAMSARA, capped).codes() == [
        "extra_card_in_main",
        "extra_too_large",
    ]
    # a soul written in the extra deck does not count towards its cap
    verdict = check(main_of(50) + "额外卡组:\n1 童话兵19\n10 火之法力石\n", SAMSARA, capped)
    assert verdict.codes() == ["main_card_in_extra"]


def test_an_unknown_line_counts_with_its_copies() -> None:
    verdict = check(main_of(47) + "3 无名之卡\n" + EXTRA, SAMSARA, STANDARD)
    assert verdict.codes() == ["unknown_card"]  # no false main_too_small
    assert verdict.counts["main"] == 50
    assert check(main_of(46) + "3 无名之卡\n" + EXTRA, SAMSARA, STANDARD).codes() == [
        "unknown_card",
        "main_too_small",
    ]


# ---------------------------------------------------------------------------- item 6


@pytest.mark.parametrize(
    ("entry", "expected"),
    [("5 军团兵", []), ("4 军团号令", ["too_many_copies"]), ("3 军团号令", [])],
)
def test_legion_raises_the_limit_for_souls_only(entry: str, expected: list[str]) -> None:
    verdict = check(main_of(50) + entry + "\n" + EXTRA, SAMSARA, fmt("samsara", main_max=70))
    assert verdict.codes() == expected
    if expected:
        assert verdict.violations[0].counts["limit"] == 3


WHITE = [card(f"白人物{i:02d}", "人物", attributes="白") for i in range(20)]
SWORD = card("青霜劍", "武器", attributes="白")
LZY = pool("longzhiyi", [*WHITE, SWORD])


def lzy_deck(size: int) -> str:
    out, left = [], size
    for person in WHITE:
        if left <= 0:
            break
        n = min(3, left)
        out.append(f"{n} {person.name}")
        left -= n
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    "deck",
    [lzy_deck(40) + "额外卡组:\n1 青霜劍\n", lzy_deck(39) + "1 青霜劍\n额外卡组:\n1 白人物19\n"],
)
def test_a_longzhiyi_extra_deck_is_an_error(deck: str) -> None:
    verdict = check(deck, LZY, fmt("longzhiyi"))
    assert "extra_deck_not_used" in verdict.codes()
    violation = next(v for v in verdict.violations if v.code == "extra_deck_not_used")
    assert "额外卡组" in violation.message and "龍之弈" in violation.message


# ---------------------------------------------------------------------------- item 7: messages and names


@pytest.mark.parametrize(
    ("line", "code", "needles"),
    [
        # the card exists, not in M4: say so and name the sets that have it
        ("3 亚瑟王·圣剑之誓 (M4)", "card_not_in_set", ["亚瑟王·圣剑之誓", "M4", "S8"]),
        ("3 (M4) 9999", "unknown_card", ["M4", "9999", "M4-001"]),
        ("3 (ZZ9) 001", "unknown_card", ["ZZ9", "没有这个系列"]),
        ("3 亚瑟王·圣剑之誓 (ZZ9)", "card_not_in_set", ["ZZ9", "不存在", "S8"]),
    ],
)
def test_messages_point_at_the_real_problem(sample_catalogue: Engine, line: str, code: str, needles: list[str]) -> None:
    with Session(sample_catalogue) as session:
        verdict = check_decklist(session=session, text=line + "\n", game="samsara").verdict
    violation = next(v for v in verdict.violations if v.code == code)
    for needle in needles:
        assert needle in violation.message


@pytest.mark.parametrize("line", ["3 (M4) 017", "3 (M4) 17", "3 (M4) M4-017", "3 M4-017", "3 (m4) 017"])
def test_a_number_without_its_set_prefix_resolves(sample_catalogue: Engine, line: str) -> None:
    with Session(sample_catalogue) as session:
        check = check_decklist(session=session, text=line + "\n", game="samsara")
    assert "unknown_card" not in check.verdict.codes()
    assert [(e.card.name, e.count, e.set_code, e.number) for e in check.deck.entries] == [
        (check.pool.cards[check.deck.entries[0].card.id].name, 3, "M4", "M4-017")
    ]


def test_a_card_not_in_the_named_set_still_counts(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        check = check_decklist(session=session, text="3 亚瑟王·圣剑之誓 (M4)\n", game="samsara")
    assert check.verdict.counts["main"] == 3
    assert [e.card.name for e in check.deck.entries] == ["亚瑟王·圣剑之誓"]


ENGLISH = card("山岳拳王", "生物", faction="布罗布纳", name_en="Summit Fist Champion")
GOBLIN = card("锅盖哥布林", "生物", faction="布罗布纳", name_en="Potlid Goblin")
KF = pool("keyforge", [ENGLISH, GOBLIN])
KF.pinyin.update({ENGLISH.id: ("shanyuequanwang", "syqw"), GOBLIN.id: ("guogaigebulin", "ggqbl")})


@pytest.mark.parametrize(
    "line",
    ["1 Summit Fist Champion", "1 summit fist champion", "1 SUMMIT  FIST CHAMPION", "1 shanyuequanwang", "1 syqw"],
)
def test_decklists_accept_every_name_search_accepts(line: str) -> None:
    deck = check(line + "\n", KF, fmt("keyforge"))
    assert "unknown_card" not in deck.codes()
    assert deck.counts["main"] == 1


# ---------------------------------------------------------------------------- the rules pages say it


@pytest.mark.parametrize(
    ("game", "phrases"),
    [
        ("samsara", ["没有规则文字的法力石是基本法力石", "能换入卡组的卡必须合法", "只对战魂有效", "按玩家的本意计算"]),
        ("longzhiyi", ["龍之弈没有额外卡组", "能换入卡组的卡必须合法"]),
        ("zhutian", ["誅天没有额外卡组", "能换入卡组的卡必须合法"]),
        ("keyforge", ["熔钥秘境没有额外卡组", "能换入卡组的卡必须合法"]),
    ],
)
def test_the_rules_pages_state_the_choices(client: Any, game: str, phrases: list[str]) -> None:
    body = client.get(f"/rules/{game}").get_data(as_text=True)
    for phrase in phrases:
        assert phrase in body, phrase
    english = client.get(f"/rules/{game}?lang=en").get_data(as_text=True)
    assert "swapped in must be legal" in english

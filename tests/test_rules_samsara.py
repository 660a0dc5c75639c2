"""永恒之轮 construction rules (DESIGN §5): every code and boundary, on an in-memory pool."""

from __future__ import annotations

import pytest

from catalog.rules import ERROR, WARNING
from tests.kits.deck import card, check, fmt, kw, pool

FILLER = [card(f"火兵{i:02d}", "战魂", attributes="火", cost={"火": 1}, traits=("童话",)) for i in range(25)]
DRAGON = card("火龙", "战魂", sets=("M1", "G2"), attributes="火", cost={"火": 2, "无": 1}, traits=("龙",))
LEGION = card("军团兵", "战魂", attributes="火", cost={"火": 1}, keywords=(kw("legion", 5),), traits=("童话",))
SMALL_LEGION = card("精英", "战魂", attributes="火", cost={"火": 1}, keywords=(kw("legion", 2),), traits=("童话",))
BOOK = card("童话之书", "阵型", attributes="光", cost={"光": 1}, keywords=(kw("restricted", subject="童话"),))
FIREBALL = card("火球术", "魔法", attributes="火", cost={"火": 1})
STONES = {a: card(f"{a}之法力石", "法力石", sets=("S8",), attributes=a) for a in "火水光暗无"}
DUAL_STONE = card("光暗法力石", "法力石", sets=("S8",), attributes="光暗")
LEGEND = card("传说·龙皇", "战魂", attributes="火", cost={"火": 3}, keywords=(kw("extra_build"),), traits=("龙",))
OLD = card("古老战魂", "战魂", sets=("M4",), attributes="火", cost={"火": 1}, traits=("童话",))
TWIN = card("光暗双子", "战魂", attributes="光暗", cost={"光": 1, "暗": 1}, traits=("童话",))
BIG = card("巨兵", "战魂", attributes="火", cost={"火": 3, "无": 2}, traits=("童话",))
CARDS = [*FILLER, DRAGON, LEGION, SMALL_LEGION, BOOK, FIREBALL, *STONES.values(), DUAL_STONE, LEGEND, OLD, TWIN, BIG]
POOL = pool("samsara", CARDS, numbers={"M1-004": [("火龙", "M1")], "G2-004": [("火龙", "G2")]})
STANDARD = fmt("samsara")
EXTRA = "额外卡组:\n8 火之法力石\n"


def main_of(size: int) -> str:
    """``size`` main-deck cards: 3 of each filler card, then a remainder."""
    out, left = [], size
    for filler in FILLER:
        if left <= 0:
            break
        n = min(3, left)
        out.append(f"{n} {filler.name}")
        left -= n
    return "\n".join(out) + "\n"


def codes(text: str, format_spec=STANDARD) -> list[str]:
    return check(text, POOL, format_spec).codes()


@pytest.mark.parametrize(
    ("size", "expected"),
    [(49, ["main_too_small"]), (50, []), (60, []), (61, ["main_too_large"])],
)
def test_main_deck_size_boundaries(size: int, expected: list[str]) -> None:
    verdict = check(main_of(size) + EXTRA, POOL, STANDARD)
    assert verdict.codes() == expected
    assert verdict.counts == {"main": size, "extra": 8, "side": 0}
    assert verdict.legal is (not expected)


def test_format_parameters_override_the_bounds() -> None:
    assert codes(main_of(40) + EXTRA, fmt("samsara", main_min=40)) == []


@pytest.mark.parametrize(
    ("deck", "expected"),
    [
        ("2 火龙 (M1)\n1 火龙 (G2)\n", []),  # 3 copies over two printings
        ("2 火龙 (M1)\n2 火龙 (G2)\n", ["too_many_copies"]),  # 4 over two printings
        ("2 M1-004\n2 G2-004\n", ["too_many_copies"]),  # the same by collector number
        ("3 火龙\n备牌:\n1 火龙\n", ["too_many_copies"]),  # side cards count
        ("2 火龙\n额外卡组:\n2 火龙\n", ["main_card_in_extra", "too_many_copies"]),
    ],
)
def test_three_copies_across_printings_and_sections(deck: str, expected: list[str]) -> None:
    verdict = check(main_of(48) + deck + EXTRA, POOL, STANDARD)
    assert sorted(c for c in verdict.codes() if c != "main_too_large") == sorted(expected)
    if expected:
        violation = next(v for v in verdict.violations if v.code == "too_many_copies")
        assert violation.cards == ["火龙"] and violation.counts == {"copies": 4, "limit": 3}
        assert "「火龙」共 4 张" in violation.message and "limit is 3" in violation.message_en


@pytest.mark.parametrize(
    ("entry", "expected"),
    [("5 军团兵", []), ("6 军团兵", ["too_many_copies"]), ("2 精英", []), ("3 精英", ["too_many_copies"])],
)
def test_legion_replaces_the_limit(entry: str, expected: list[str]) -> None:
    verdict = check(main_of(50) + entry + "\n" + EXTRA, POOL, fmt("samsara", main_max=70))
    assert verdict.codes() == expected
    if expected:
        assert verdict.violations[0].counts["limit"] == int(entry.split()[0]) - 1


def test_basic_mana_stones_have_no_copy_limit_but_extra_build_cards_do() -> None:
    assert codes(main_of(50) + "额外卡组:\n12 火之法力石\n3 传说·龙皇\n") == []
    assert codes(main_of(50) + "额外卡组:\n12 火之法力石\n4 传说·龙皇\n") == ["too_many_copies"]


@pytest.mark.parametrize(
    ("extra_lines", "expected"),
    [
        ("", []),  # no 限定 card: anything goes
        ("1 童话之书\n", ["trait_restriction"]),  # 火龙 is a 龙, not a 童话 soul
        ("1 童话之书\n3 火球术\n", ["trait_restriction"]),  # magic cards never matter
    ],
)
def test_trait_restriction(extra_lines: str, expected: list[str]) -> None:
    verdict = check(main_of(49) + "1 火龙\n" + extra_lines + "额外卡组:\n8 火之法力石\n2 光之法力石\n", POOL, STANDARD)
    assert [c for c in verdict.codes() if c != "attribute_without_mana"] == expected
    if expected:
        violation = verdict.violations[0]
        assert violation.cards == ["童话之书", "火龙"]
        assert "『童话』限定" in violation.message


def test_trait_restriction_allows_magic_without_the_trait_and_counts_the_side_board() -> None:
    assert codes(main_of(46) + "1 童话之书\n3 火球术\n" + "额外卡组:\n8 火之法力石\n2 光之法力石\n") == []
    # the 限定 card in the side board can be swapped in: the deck must be legal with it
    assert [c for c in codes(main_of(50) + "1 火龙\n备牌:\n1 童话之书\n" + EXTRA) if c != "attribute_without_mana"] == [
        "trait_restriction"
    ]


def test_extra_build_souls_in_the_extra_deck_are_constrained_too() -> None:
    verdict = check(main_of(49) + "1 童话之书\n额外卡组:\n8 火之法力石\n2 光之法力石\n1 传说·龙皇\n", POOL, STANDARD)
    assert verdict.codes() == ["trait_restriction"]
    assert "传说·龙皇" in verdict.violations[0].cards


def test_placement_of_extra_and_main_cards() -> None:
    verdict = check(main_of(50) + "2 火之法力石\n1 传说·龙皇\n额外卡组:\n1 火兵00\n8 火之法力石\n", POOL, STANDARD)
    by_code = {v.code: v for v in verdict.violations}
    assert set(by_code) >= {"extra_card_in_main", "main_card_in_extra"}
    assert by_code["extra_card_in_main"].cards == ["火之法力石", "传说·龙皇"]
    assert by_code["main_card_in_extra"].cards == ["火兵00"]
    assert by_code["extra_card_in_main"].lines == [18, 19]


@pytest.mark.parametrize(("stones", "expected"), [(15, []), (16, ["extra_too_large"])])
def test_extra_max(stones: int, expected: list[str]) -> None:
    verdict = check(main_of(50) + f"额外卡组:\n{stones} 火之法力石\n", POOL, fmt("samsara", extra_max=15))
    assert verdict.codes() == expected
    assert check(main_of(50) + "额外卡组:\n40 火之法力石\n", POOL, STANDARD).codes() == []


@pytest.mark.parametrize(
    ("limit", "copies", "expected"),
    [(0, 1, ["banned"]), (1, 1, []), (1, 2, ["too_many_copies"]), (2, 2, []), (2, 3, ["too_many_copies"])],
)
def test_ban_list_limits(limit: int, copies: int, expected: list[str]) -> None:
    banned = fmt("samsara", code="m8", bans={DRAGON.id: limit})
    verdict = check(main_of(50) + f"{copies} 火龙\n" + EXTRA, POOL, banned)
    assert verdict.codes() == expected
    if expected == ["too_many_copies"]:
        assert verdict.violations[0].counts["limit"] == limit
        assert "禁限卡表" in verdict.violations[0].message


@pytest.mark.parametrize(
    ("legal", "entry", "expected"),
    [
        (("M8", "G*"), "1 火龙", []),  # printed in M1 (not legal) and G2 (legal): the reprint makes it legal
        (("M8", "G*"), "1 古老战魂", ["not_legal_in_format"]),  # only in M4
        (("M*",), "1 火龙 (G2)", []),  # legal through its M1 printing even when G2 is named
        (("S*", "T*"), "1 火龙", ["not_legal_in_format"]),
    ],
)
def test_legal_sets(legal: tuple[str, ...], entry: str, expected: list[str]) -> None:
    spec = fmt("samsara", code="env", legal_sets=(*legal, "T1", "S8"))
    assert codes(main_of(50) + entry + "\n" + EXTRA, spec) == expected


@pytest.mark.parametrize(
    ("entry", "extra", "expected_warnings"),
    [
        ("1 火球术", "1 火之法力石", 0),
        ("1 光暗双子", "8 火之法力石", 2),  # neither 光 nor 暗 stones: one warning per attribute
        ("1 光暗双子", "1 光暗法力石\n1 火之法力石", 1),  # one dual stone cannot pay both colours
        ("1 光暗双子", "2 光暗法力石\n1 火之法力石", 0),
        ("1 巨兵", "2 火之法力石\n2 无之法力石", 1),  # cost 5 with 4 stones
        ("1 巨兵", "2 火之法力石\n3 无之法力石", 1),  # 3火 needs three fire stones
        ("1 巨兵", "3 火之法力石\n2 无之法力石", 0),
    ],
)
def test_attribute_without_mana_is_a_warning(entry: str, extra: str, expected_warnings: int) -> None:
    verdict = check(main_of(49) + entry + "\n额外卡组:\n" + extra + "\n", POOL, STANDARD)
    warnings = [v for v in verdict.violations if v.code == "attribute_without_mana"]
    assert len(warnings) == expected_warnings
    assert all(v.severity == WARNING for v in warnings)
    assert verdict.legal  # warnings never make a deck illegal


def test_every_problem_at_once_with_messages_and_cards() -> None:
    text = "4 火龙\n1 无名之卡\n1 火之法力石\n1 童话之书\n额外卡组:\n1 火兵00\n"
    verdict = check(text, POOL, fmt("samsara", code="m8", bans={FIREBALL.id: 0}, legal_sets=("T1", "S8")))
    assert set(verdict.codes()) >= {
        "unknown_card",
        "main_too_small",
        "too_many_copies",
        "not_legal_in_format",
        "extra_card_in_main",
        "main_card_in_extra",
        "trait_restriction",
        "attribute_without_mana",
    }
    for violation in verdict.violations:
        assert violation.severity in (ERROR, WARNING)
        assert violation.message and violation.message_en
    payload = verdict.to_json()
    assert list(payload) == ["legal", "game", "format", "counts", "violations"]
    assert payload["legal"] is False and payload["game"] == "samsara" and payload["format"] == "m8"
    assert set(payload["violations"][0]) >= {"code", "severity", "message", "cards"}


def test_english_messages_name_attributes_in_english() -> None:
    """ "need 水 mana" read half Chinese on the English pages."""
    verdict = check(main_of(49) + "1 光暗双子\n额外卡组:\n8 火之法力石\n", POOL, STANDARD)
    messages = sorted(v.message_en for v in verdict.violations if v.code == "attribute_without_mana")
    assert [m.split(":")[0] for m in messages] == [
        "1 card(s) need dark mana and the extra deck has no dark mana stone",
        "1 card(s) need light mana and the extra deck has no light mana stone",
    ]

"""龍之弈, 誅天 and 熔钥秘境 construction rules (DESIGN §5), on in-memory pools."""

from __future__ import annotations

import pytest

from catalog.rules import WARNING
from tests.kits.deck import card, check, fmt, pool

# ---------------------------------------------------------------------------- 龍之弈

WHITE = [card(f"白人物{i:02d}", "人物", attributes="白") for i in range(25)]
BLUE = card("藍人物", "人物", attributes="藍")
DUO = card("白黑人物", "人物", attributes="白黑")
SWORD = card("青霜劍", "武器", attributes="白")
YINYANG = card("陰陽雙劍", "武器", attributes="白黑")
LZY = pool("longzhiyi", [*WHITE, BLUE, DUO, SWORD, YINYANG])


def lzy_deck(size: int, per_card: int = 3) -> str:
    out, left = [], size
    for person in WHITE:
        if left <= 0:
            break
        n = min(per_card, left)
        out.append(f"{n} {person.name}")
        left -= n
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    ("kind", "size", "expected"),
    [
        ("casual", 39, ["deck_too_small"]),
        ("casual", 40, []),
        ("tournament", 59, ["deck_too_small"]),
        ("tournament", 60, []),
    ],
)
def test_longzhiyi_deck_size_besides_the_weapon(kind: str, size: int, expected: list[str]) -> None:
    verdict = check(lzy_deck(size) + "1 青霜劍\n", LZY, fmt("longzhiyi", kind))
    assert verdict.codes() == expected
    assert verdict.counts["main"] == size + 1


@pytest.mark.parametrize(
    ("weapons", "expected"),
    [
        ("", ["weapon_missing"]),
        ("1 青霜劍\n", []),
        ("额外卡组:\n1 青霜劍\n", ["extra_deck_not_used"]),  # no extra deck in 龍之弈
        ("1 青霜劍\n1 陰陽雙劍\n", ["too_many_weapons"]),
    ],
)
def test_longzhiyi_exactly_one_weapon(weapons: str, expected: list[str]) -> None:
    assert check(lzy_deck(40) + weapons, LZY, fmt("longzhiyi")).codes() == expected


@pytest.mark.parametrize(
    ("kind", "copies", "expected"),
    [
        ("casual", 3, []),
        ("casual", 4, ["too_many_copies"]),
        ("tournament", 4, []),
        ("tournament", 5, ["too_many_copies"]),
    ],
)
def test_longzhiyi_copy_limits(kind: str, copies: int, expected: list[str]) -> None:
    verdict = check(lzy_deck(60) + f"{copies} 藍人物\n1 陰陽雙劍\n", LZY, fmt("longzhiyi", kind))
    assert [c for c in verdict.codes() if c != "color_not_supported"] == expected


def test_longzhiyi_colour_warning() -> None:
    verdict = check(lzy_deck(40) + "1 藍人物\n1 白黑人物\n1 青霜劍\n", LZY, fmt("longzhiyi"))
    assert verdict.codes() == ["color_not_supported"]
    warning = verdict.violations[0]
    assert warning.severity == WARNING and warning.cards == ["藍人物", "白黑人物"] and verdict.legal
    assert check(lzy_deck(40) + "1 白黑人物\n1 陰陽雙劍\n", LZY, fmt("longzhiyi")).codes() == []


# ---------------------------------------------------------------------------- 誅天

NEUTRAL = [card(f"中立活物{i:02d}", "活物", extra={"restriction": "無", "copy_limit": 4}) for i in range(30)]
TAOIST = card("仙道士活物", "活物", faction="仙道士", extra={"restriction": "無", "copy_limit": 4})
DARK = card("黑教士團術法", "術法", faction="黑教士團", extra={"restriction": "無", "copy_limit": 4})
LIMITED = card("煉妖壺", "裝備", extra={"restriction": "限制", "copy_limit": 1})
SEMI = card("斬妖劍", "裝備", extra={"restriction": "準限制", "copy_limit": 2})
ROLE = card("仙道士", "角色", faction="仙道士", extra={"restriction": "無", "copy_limit": 4})
ZT = pool("zhutian", [*NEUTRAL, TAOIST, DARK, LIMITED, SEMI, ROLE])
FACTIONS = frozenset({"仙道士", "黑教士团"})


def zt_deck(size: int) -> str:
    out, left = [], size
    for creature in NEUTRAL:
        if left <= 0:
            break
        n = min(4, left)
        out.append(f"{n} {creature.name}")
        left -= n
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    ("kind", "size", "expected"),
    [
        ("casual", 107, ["deck_too_small"]),
        ("casual", 108, []),
        ("casual", 120, []),
        ("competitive", 35, ["deck_too_small"]),
        ("competitive", 36, []),
        ("competitive", 72, []),
        ("competitive", 73, ["deck_too_large"]),
    ],
)
def test_zhutian_deck_sizes(kind: str, size: int, expected: list[str]) -> None:
    spec = fmt("zhutian", kind, factions=FACTIONS)
    assert check("职业: 仙道士\n" + zt_deck(size), ZT, spec).codes() == expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("1 煉妖壺", []),
        ("2 煉妖壺", ["too_many_copies"]),
        ("2 斬妖劍", []),
        ("3 斬妖劍", ["too_many_copies"]),
        ("4 仙道士活物", []),
        ("5 仙道士活物", ["too_many_copies"]),
    ],
)
def test_zhutian_restriction_levels(entry: str, expected: list[str]) -> None:
    assert check(zt_deck(108) + entry + "\n", ZT, fmt("zhutian", "casual")).codes() == expected


def test_zhutian_card_types() -> None:
    verdict = check(zt_deck(108) + "1 仙道士\n", ZT, fmt("zhutian", "casual"))
    assert verdict.codes() == ["card_type_not_allowed"] and verdict.violations[0].cards == ["仙道士"]


@pytest.mark.parametrize(
    ("header", "entry", "expected"),
    [
        ("職業: 仙道士", "2 仙道士活物", []),  # own faction (Traditional key) + neutral
        ("职业: 仙道士", "2 黑教士團術法", ["faction_mismatch"]),
        ("profession: 黑教士团", "2 黑教士團術法", []),  # Simplified spelling of the faction
        ("", "2 仙道士活物", ["profession_missing"]),
        ("职业: 武当派", "2 仙道士活物", ["profession_missing"]),  # no such faction
    ],
)
def test_zhutian_competitive_faction(header: str, entry: str, expected: list[str]) -> None:
    spec = fmt("zhutian", "competitive", factions=FACTIONS)
    verdict = check(header + "\n" + zt_deck(40) + entry + "\n", ZT, spec)
    assert verdict.codes() == expected
    assert check(zt_deck(108) + "2 黑教士團術法\n", ZT, fmt("zhutian", "casual")).codes() == []


# ---------------------------------------------------------------------------- 熔钥秘境

HOUSES = ("布罗布纳", "冥界", "逻格斯", "火星")
KF_CARDS = {h: card(f"{h}生物", "生物", faction=h) for h in HOUSES}
KF = pool("keyforge", list(KF_CARDS.values()))


def kf_deck(**sizes: int) -> str:
    names = dict(zip(("a", "b", "c", "d"), HOUSES, strict=True))
    return "".join(f"{n} {names[k]}生物\n" for k, n in sizes.items())


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ({"a": 12, "b": 12, "c": 12}, []),  # 12 copies of one card: no copy limit
        ({"a": 18, "b": 18}, ["house_count", "house_size", "house_size"]),
        ({"a": 9, "b": 9, "c": 9, "d": 9}, ["house_count"] + ["house_size"] * 4),
        ({"a": 12, "b": 12, "c": 11}, ["deck_size", "house_size"]),
        ({"a": 12, "b": 12, "c": 13}, ["deck_size", "house_size"]),
        ({"a": 11, "b": 12, "c": 13}, ["house_size", "house_size"]),
    ],
)
def test_keyforge_houses_and_size(sizes: dict[str, int], expected: list[str]) -> None:
    verdict = check(kf_deck(**sizes), KF, fmt("keyforge"))
    assert verdict.codes() == expected
    assert verdict.legal is not any(c in ("house_count", "deck_size") for c in expected)
    assert all(v.severity == WARNING for v in verdict.violations if v.code == "house_size")

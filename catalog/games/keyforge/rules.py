"""熔钥秘境 (KeyForge) construction rules (DESIGN §5).

Source: "每套牌组包含3个不同的派系". The seed gives no deck size: 36 cards and 12 per house
are what every published (Archon) deck holds, so 36 is an error and 12 per house a warning
(DESIGN §5). No copy limit: a published deck may hold several copies of a card. The game
has no extra deck (the seed names none), so an 额外卡组 section is an error
(``extra_deck_not_used``) and its cards count towards the 36, as the player meant them. The side
board, by the principle every game shares (a card that can be swapped in must be legal),
counts for bans, legal sets and the houses: a side card of a fourth house makes four houses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from catalog.errors import Message
from catalog.rules import (
    WARNING,
    Deck,
    FormatSpec,
    NoExtraDeck,
    Rule,
    Rulebook,
    SectionSize,
    Violation,
    standard_rules,
)


@dataclass(frozen=True)
class Houses:
    """Exactly ``houses`` houses; each house holds main_max / houses cards (warning)."""

    name: str = "houses"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        wanted = int(fmt.param("houses", 3))
        per_house: dict[str, int] = {}
        cards_of: dict[str, list[int]] = {}
        for entry in deck.entries:
            if entry.section == "side":
                continue
            house = entry.card.faction or "—"
            per_house[house] = per_house.get(house, 0) + entry.count
            cards_of.setdefault(house, []).append(entry.card.id)
        side_only = {e.card.faction or "—": 0 for e in deck.section("side")}
        houses = {**per_house, **{h: n for h, n in side_only.items() if h not in per_house}}
        if len(houses) != wanted:
            listed = "、".join(f"{h} {n}" for h, n in per_house.items()) or "—"
            listed += "".join(f"、{h}（备牌）" for h in houses if h not in per_house)
            yield Violation(
                "house_count",
                f"卡组来自 {len(houses)} 个派系（{listed}），应恰好 {wanted} 个",
                f"the cards come from {len(houses)} houses ({listed}); a deck has exactly {wanted}",
                counts={"houses": len(houses), "expected": wanted, "per_house": dict(per_house)},
            )
        size = fmt.param("main_max")
        if size is None or not wanted:
            return
        each = int(size) // wanted
        for house, count in per_house.items():
            if count != each:
                yield Violation(
                    "house_size",
                    f"派系「{house}」有 {count} 张，通常每个派系 {each} 张",
                    f"house {house} has {count} cards; a deck usually has {each} per house",
                    severity=WARNING,
                    counts={"house": house, "size": count, "expected": each},
                    lines=deck.lines_of(cards_of[house], "main", "extra"),
                )


ARCHON: tuple[Rule, ...] = (
    SectionSize("deck_size", ("main", "extra"), "deck_size", "deck_size", label="卡组", label_en="deck"),
    NoExtraDeck("熔钥秘境"),
    Houses(),
    *standard_rules(),
)
RULE_SETS: dict[str, tuple[Rule, ...]] = {"archon": ARCHON}

RULEBOOK = Rulebook(
    seed="004_1f8fe3ec01abfa21.txt",
    rules=(
        Message(
            "卡组恰好来自 3 个派系（“每套牌组包含3个不同的派系”）。",
            "Exactly 3 houses.",
        ),
        Message(
            "卡组 36 张。",
            "36 cards.",
        ),
        Message(
            "警告：某个派系不是 12 张。",
            "Warning: a house does not have 12 cards.",
        ),
        Message(
            "没有同名卡张数限制。",
            "No copy limit.",
        ),
    ),
    choices=(
        Message(
            "规则文本没有写卡组张数：36 张、每派系 12 张是所有发行卡组的构成，按 DESIGN 定为错误和警告。",
            "The seed gives no deck size: 36 cards and 12 per house are what every published deck holds.",
        ),
        Message(
            "熔钥秘境没有额外卡组：写了「额外卡组:」的卡组是错误（extra_deck_not_used），这些卡仍计入 36 张。备牌："
            "能换入卡组的卡必须合法，所以禁限卡表、合法系列和派系数都计入备牌。",
            "KeyForge has no extra deck: a list with an 'Extra:' section is an error (extra_deck_not_used); its card"
            "s still count towards the 36. Side board: a card that can be swapped in must be legal, so the ban list,"
            " legal sets and the number of houses count it.",
        ),
        Message(
            "不提供概率表：规则只写回合结束时补满到 6 张，看到多少张取决于打出了多少张。",
            "No odds table: the seed only says the hand is refilled to 6 each turn, so the cards seen depend on the "
            "cards played.",
        ),
    ),
)

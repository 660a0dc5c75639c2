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

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from catalog.errors import Message
from catalog.games.keyforge.vocabulary import HOUSES, NON_DECK_HOUSES, NON_DECK_TYPES
from catalog.rules import (
    WARNING,
    Deck,
    DeckEntry,
    FormatSpec,
    NoExtraDeck,
    PoolCard,
    Rule,
    Rulebook,
    SectionSize,
    Violation,
    standard_rules,
)


def is_deck_card(card: PoolCard) -> bool:
    """Token creatures, prophecies, archon powers and The Tide are not deck cards: the real
    decks (keyforge-standalone-decks.json: 36 cards, none of them) list them beside the deck,
    the seed counts a deck's cards by its 3 houses and these belong to none of them."""
    return " ".join(card.type.lower().split()) not in NON_DECK_TYPES and not (
        set(card.faction.split("|")) & NON_DECK_HOUSES if card.faction else False
    )


def card_houses(card: PoolCard) -> list[str]:
    """A card's printed houses (a multi-house card has several, joined by ``|``)."""
    return [h for h in card.faction.split("|") if h] if card.faction else []


def plays_for(entry: DeckEntry, deck_houses: Sequence[str]) -> str:
    """The house copies play for: the one given (a maverick's, a heading's), else the card's own;
    a multi-house card plays for the one of its houses the deck has (the first such)."""
    if entry.house:
        return entry.house
    houses = card_houses(entry.card)
    if len(houses) > 1:
        return next((h for h in houses if h in deck_houses), houses[0])
    return houses[0] if houses else "—"


def deck_houses(deck: Deck) -> list[str]:
    """The deck's three houses: as the deck says (``houses:``), else those its single-house and
    placed cards play for, most cards first."""
    declared = [h.strip() for h in re.split(r"[,，、|/]", deck.metadata.get("houses", "")) if h.strip()]
    if declared:
        return [HOUSES.resolve(h) or h.lower() for h in declared]
    counted: dict[str, int] = {}
    for entry in deck.entries:
        houses = [entry.house] if entry.house else card_houses(entry.card)
        if entry.section != "side" and len(houses) == 1 and is_deck_card(entry.card):
            counted[houses[0]] = counted.get(houses[0], 0) + entry.count
    return sorted(counted, key=lambda h: -counted[h])


def assign_houses(deck: Deck) -> list[tuple[DeckEntry, str]]:
    """Each deck-card entry (side board included) with the house it plays for: given (a
    maverick's, a heading's) or the card's own; a card printed in several of the deck's houses
    (a multi-house card, or a reprint in another house) goes to the one that has the fewest cards
    so far, as a published deck holds 12 in each."""
    houses_of_deck = deck_houses(deck)
    placed: list[tuple[DeckEntry, str]] = []
    open_entries: list[tuple[int, DeckEntry, list[str]]] = []
    per_house: dict[str, int] = {}
    for entry in deck.entries:
        if not is_deck_card(entry.card):
            continue
        candidates = [h for h in card_houses(entry.card) if h in houses_of_deck]
        if entry.house or len(candidates) <= 1:
            house = plays_for(entry, houses_of_deck)
            placed.append((entry, house))
            if entry.section != "side":
                per_house[house] = per_house.get(house, 0) + entry.count
        else:
            open_entries.append((len(placed), entry, candidates))
            placed.append((entry, ""))
    for at, entry, candidates in open_entries:
        house = min(candidates, key=lambda h: (per_house.get(h, 0), houses_of_deck.index(h)))
        placed[at] = (entry, house)
        if entry.section != "side":
            per_house[house] = per_house.get(house, 0) + entry.count
    return placed


@dataclass(frozen=True)
class Houses:
    """Exactly ``houses`` houses; each house holds main_max / houses cards (warning). A card
    counts in the house it plays for (:func:`plays_for`); cards that are not deck cards
    (:func:`is_deck_card`) count in none."""

    name: str = "houses"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        wanted = int(fmt.param("houses", 3))
        per_house: dict[str, int] = {}
        cards_of: dict[str, list[int]] = {}
        assigned = assign_houses(deck)
        for entry, house in assigned:
            if entry.section == "side":
                continue
            per_house[house] = per_house.get(house, 0) + entry.count
            cards_of.setdefault(house, []).append(entry.card.id)
        side_only = {house: 0 for entry, house in assigned if entry.section == "side"}
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
    SectionSize(
        "deck_size",
        ("main", "extra"),
        "deck_size",
        "deck_size",
        label="卡组",
        label_en="deck",
        exclude=lambda card: not is_deck_card(card),
    ),
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
            "衍生生物（token creature）、预言（prophecy）、执政官之力（archon power）和潮汐（The Tide）不是卡组卡牌："
            "不计入 36 张，也不属于任何派系（真实的固定卡组都是 36 张卡组卡牌、不含它们）。",
            "Token creatures, prophecies, archon powers and The Tide are not deck cards: they do not count towards the"
            " 36 nor in any house (the real fixed decks hold 36 deck cards and none of them).",
        ),
        Message(
            "多派系卡牌和变节卡（maverick）计入它在本卡组中所效力的派系。",
            "A multi-house card and a maverick count in the house they play for in this deck.",
        ),
        Message(
            "不提供概率表：规则只写回合结束时补满到 6 张，看到多少张取决于打出了多少张。",
            "No odds table: the seed only says the hand is refilled to 6 each turn, so the cards seen depend on the "
            "cards played.",
        ),
    ),
)

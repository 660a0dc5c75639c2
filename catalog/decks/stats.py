"""Deck statistics for the deck pages: cost curve, attribute/colour and type counts, draw odds.

The draw odds are exact hypergeometric probabilities (``math.comb`` over fractions): the
chance to hold at least one copy of a card after seeing ``n`` cards of an ``N``-card deck
holding ``K`` copies is ``1 - C(N-K, n) / C(N, n)``. How many cards a player has seen by
turn ``t`` is a game's :class:`~catalog.rules.DrawModel`, which its package takes from its seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING

from catalog.games import get_game
from catalog.rules import ERROR, Deck, DrawModel, PoolCard

if TYPE_CHECKING:  # the checker is needed for its type only
    from catalog.decks.check import DeckCheck


def p_at_least_one(deck_size: int, copies: int, seen: int) -> Fraction:
    """Exact chance that ``seen`` cards drawn from ``deck_size`` include one of ``copies``."""
    if copies <= 0 or deck_size <= 0:
        return Fraction(0)
    seen = min(seen, deck_size)
    return 1 - Fraction(comb(deck_size - copies, seen), comb(deck_size, seen))


@dataclass
class OddsRow:
    card: PoolCard
    copies: int
    chances: list[float]  # opening hand, then by turn 1..N


@dataclass
class OddsTable:
    model: DrawModel
    deck_size: int
    columns: list[tuple[str, int]]  # (label key: "opening" or turn number as text, cards seen)
    rows: list[OddsRow] = field(default_factory=list)


def odds_table(deck: Deck, model: DrawModel, *, turns: int = 5, sections: tuple[str, ...] = ("main",)) -> OddsTable:
    """The chance of ≥ 1 copy of each card of ``sections`` in the opening hand and by turn 1..``turns``."""
    copies = {i: cn for i, cn in deck.copies(*sections).items() if cn[0].type not in model.set_aside}
    size = sum(n for _c, n in copies.values())
    columns = [("opening", model.opening)] + [(str(t), model.seen_by_turn(t)) for t in range(1, turns + 1)]
    table = OddsTable(model, size, columns)
    for card, count in sorted(copies.values(), key=lambda cn: (-cn[1], cn[0].name)):
        table.rows.append(OddsRow(card, count, [float(p_at_least_one(size, count, seen)) for _l, seen in columns]))
    return table


@dataclass
class Bar:
    label: str
    count: int
    share: float  # of the largest bar, 0..1, for drawing


def _bars(counts: dict[str, int]) -> list[Bar]:
    top = max(counts.values(), default=0) or 1
    return [Bar(label, n, n / top) for label, n in counts.items()]


def cost_curve(deck: Deck, *, sections: tuple[str, ...] = ("main",), top: int = 7) -> list[Bar]:
    """Copies per total cost 0 … ``top``+ (cards without a cost are left out)."""
    counts = {str(c): 0 for c in range(top)} | {f"{top}+": 0}
    for card, n in deck.copies(*sections).values():
        if card.cost_total is None:
            continue
        key = str(card.cost_total) if card.cost_total < top else f"{top}+"
        counts[key] += n
    return _bars(counts)


def attribute_counts(deck: Deck, order: tuple[str, ...], *, sections: tuple[str, ...] = ("main",)) -> list[Bar]:
    """Copies per attribute/colour (a two-attribute card counts for both), in the game's order."""
    counts = dict.fromkeys(order, 0)
    for card, n in deck.copies(*sections).values():
        for attribute in card.attributes:
            counts[attribute] = counts.get(attribute, 0) + n
    return _bars({k: v for k, v in counts.items() if v})


def type_counts(deck: Deck, order: tuple[str, ...], *, sections: tuple[str, ...] = ("main", "extra")) -> list[Bar]:
    counts = dict.fromkeys(order, 0)
    for card, n in deck.copies(*sections).values():
        counts[card.type] = counts.get(card.type, 0) + n
    return _bars({k: v for k, v in counts.items() if v})


def faction_counts(deck: Deck, *, sections: tuple[str, ...] = ("main",)) -> list[Bar]:
    counts: dict[str, int] = {}
    for card, n in deck.copies(*sections).values():
        if card.faction:
            counts[card.faction] = counts.get(card.faction, 0) + n
    return _bars(counts)


@dataclass
class ListedLine:
    """One line of the pasted list, marked with the worst severity of the violations naming it."""

    number: int
    text: str
    severity: str | None
    codes: list[str]
    is_card: bool = False  # a card line (the page offers + / − on it)


@dataclass
class DeckReport:
    check: DeckCheck
    lines: list[ListedLine]
    curve: list[Bar]
    attributes: list[Bar]
    types: list[Bar]
    factions: list[Bar]
    odds: OddsTable | None


def annotate(text: str, check: DeckCheck) -> list[ListedLine]:
    """The list as pasted, each line with the violations that point at it."""
    marks: dict[int, list[tuple[str, str]]] = {}
    for violation in check.verdict.violations:
        for line in violation.lines:
            marks.setdefault(line, []).append((violation.severity, violation.code))
    card_lines = {line.line for line in check.decklist.lines}
    out = []
    for number, written in enumerate(text.splitlines(), start=1):
        found = marks.get(number, [])
        severity = (ERROR if any(s == ERROR for s, _c in found) else found[0][0]) if found else None
        codes = list(dict.fromkeys(c for _s, c in found))
        out.append(ListedLine(number, written, severity, codes, number in card_lines))
    return out


def report(
    text: str, check: DeckCheck, *, attributes: tuple[str, ...], types: tuple[str, ...], turns: int = 5
) -> DeckReport:
    """Everything the deck page shows beside the verdict (pure: the check is already done)."""
    deck = check.deck
    game = get_game(check.pool.game)
    model = game.draw_model if game is not None else None
    return DeckReport(
        check=check,
        lines=annotate(text, check) if not text.lstrip().startswith("{") else [],
        curve=cost_curve(deck),
        attributes=attribute_counts(deck, attributes),
        types=type_counts(deck, types),
        factions=faction_counts(deck),
        odds=odds_table(deck, model, turns=turns) if model is not None and deck.size("main") else None,
    )

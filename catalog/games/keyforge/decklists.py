"""熔钥秘境: a deck written back as our decklist text (DESIGN §4 as extended for KeyForge): its
name, houses and public id, a heading per house, each card under the house it plays for, with
its markers. The canonical form of a deck players own (its SHA-256 is the deck's identity)."""

from __future__ import annotations

from catalog.games.keyforge.rules import assign_houses, deck_houses, is_deck_card
from catalog.rules import Deck, DeckEntry


def write_deck(deck: Deck) -> str:
    """The deck as text; cards in the order they were listed within each house."""
    houses = deck_houses(deck)
    lines = [f"name: {deck.name}" if deck.name else "", "game: keyforge"]
    lines += [f"houses: {', '.join(houses)}"] if houses else []
    for key in ("set", "id"):
        if deck.metadata.get(key):
            lines.append(f"{key}: {deck.metadata[key]}")
    by_house: dict[str, list[str]] = {house: [] for house in houses}
    for entry, house in assign_houses(deck):
        if entry.section != "side":
            by_house.setdefault(house, []).append(_line(entry))
    for house, cards in by_house.items():
        lines += [f"{house}:", *cards]
    others = [_line(e) for e in deck.entries if not is_deck_card(e.card)]
    if others:
        lines += ["# 不是卡组卡牌（衍生生物、预言、执政官之力、潮汐）", *others]
    return "\n".join(line for line in lines if line) + "\n"


def _line(entry: DeckEntry) -> str:
    flags = (("maverick", entry.maverick), ("legacy", entry.legacy), ("anomaly", entry.anomaly))
    markers = "".join(f" [{word}]" for word, on in flags if on)
    if entry.enhancements:
        markers += f" [enhanced: {', '.join(entry.enhancements)}]"
    return f"{entry.count} {entry.card.name}{markers}"

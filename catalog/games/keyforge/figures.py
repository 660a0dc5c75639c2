"""熔钥秘境: the public figures players compare between decks, from a resolved deck:
æmber bonus (the cards' own plus enhancement icons), creatures / actions / artifacts / upgrades,
total power and armor of the creatures, keyword counts, the bonus icons enhancements add, and
the cards by the house they play for."""

from __future__ import annotations

from dataclasses import dataclass, field

from catalog.games.keyforge.rules import assign_houses, deck_houses, is_deck_card
from catalog.games.keyforge.vocabulary import ACTION, ARTIFACT, CREATURE, UPGRADE
from catalog.rules import Deck, DeckEntry


@dataclass
class DeckFigures:
    houses: list[str]
    by_house: dict[str, list[DeckEntry]]
    others: list[DeckEntry]  # not deck cards (tokens, prophecies, archon powers, The Tide)
    amber: int = 0  # æmber bonus: the cards' own plus enhancement æmber icons
    types: dict[str, int] = field(default_factory=dict)  # 生物 / 行动 / 神器 / 升级 → copies
    power: int = 0
    armor: int = 0
    keywords: dict[str, int] = field(default_factory=dict)  # keyword label → copies
    icons: dict[str, int] = field(default_factory=dict)  # enhancement icon → how many
    mavericks: int = 0
    legacies: int = 0
    anomalies: int = 0


def deck_figures(deck: Deck) -> DeckFigures:
    houses = deck_houses(deck)
    figures = DeckFigures(houses=houses, by_house={h: [] for h in houses}, others=[])
    figures.types = {CREATURE: 0, ACTION: 0, ARTIFACT: 0, UPGRADE: 0}
    for entry, house in assign_houses(deck):
        if entry.section == "side":
            continue
        figures.by_house.setdefault(house, []).append(entry)
        card, n = entry.card, entry.count
        figures.amber += n * int((card.extra or {}).get("amber") or 0)
        figures.types[card.type] = figures.types.get(card.type, 0) + n
        if card.type == CREATURE:
            figures.power += n * int(_number(card, "attack"))
            figures.armor += n * int(_number(card, "defense"))
        for keyword in card.keywords:
            label = str(keyword.get("label") or keyword.get("kind"))
            figures.keywords[label] = figures.keywords.get(label, 0) + n
        for icon in entry.enhancements:
            figures.icons[icon] = figures.icons.get(icon, 0) + n
            figures.amber += n if icon == "amber" else 0
        figures.mavericks += n if entry.maverick else 0
        figures.legacies += n if entry.legacy else 0
        figures.anomalies += n if entry.anomaly else 0
    figures.others = [e for e in deck.entries if not is_deck_card(e.card)]
    return figures


def _number(card: object, name: str) -> int:
    value = getattr(card, name, None)
    return int(value) if isinstance(value, int) else 0

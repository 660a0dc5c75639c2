"""A card's row of ``card_search`` (see :class:`~catalog.models.CardSearch`) and the keys search
matches on, computed once when the card is written rather than at query time.
"""

from __future__ import annotations

from typing import Any

from catalog.games import GameModule
from catalog.ingest.cardvalues import STORED_CARD
from catalog.text import KEY_SEPARATOR, fold, pinyin_keys, search_keys_text

SEARCH_KEYS = ("name_key", "pinyin", "initials", "text_key", "attr_mask")  # search_keys, in order
SEARCH_ROW = (  # a card's row of card_search (see CardSearch), as search_row builds it
    "card_id",
    "game_id",
    "name",
    "sort_key",
    "keys",
    "type",
    "subtype_key",
    "attr_mask",
    "faction_key",
    "cost_total",
    "attack",
    "defense",
    "level",
    "rarity_mask",
    "set_count",
)
_AT = {key: i for i, key in enumerate(STORED_CARD)}


def set_count(sets: str | frozenset[str] | None) -> int:
    """How many sets the check's index says a card is printed in (a code, or a frozenset)."""
    return 0 if sets is None else 1 if isinstance(sets, str) else len(sets)


def search_row(
    card_id: int,
    game_id: int,
    name: str,
    name_en: str,
    values: tuple[Any, ...],
    keys: tuple[Any, ...],
    summary: tuple[int, int],
) -> tuple[Any, ...]:
    """The card's row of ``card_search`` (:data:`SEARCH_ROW`) from its stored values
    (:data:`STORED_CARD`) and search keys (:data:`SEARCH_KEYS`)."""
    name_key, pinyin, initials, _text_key, attr_mask = keys
    return (
        card_id,
        game_id,
        name,
        pinyin,
        search_keys_text(name_key, pinyin, initials, with_other_names(name_en, values[_AT["extra"]])),
        values[_AT["type"]],
        fold(values[_AT["subtype"]]),
        attr_mask,
        fold(values[_AT["faction"]]),
        values[_AT["cost_total"]],
        values[_AT["attack"]],
        values[_AT["defense"]],
        values[_AT["level"]],
        *summary,
    )


def with_other_names(name_en: str, extra: Any) -> str:
    """The English name, and the official Traditional Chinese one where the data gives it
    (KeyForge ``zhhant``), folded like a query is: both found by a name search."""
    other = extra.get("zhhant") if isinstance(extra, dict) else None
    return f"{name_en}{KEY_SEPARATOR}{fold(other)}" if other else name_en


def search_keys(name: str, text: str, attributes: str, game: GameModule) -> dict[str, Any]:
    """The keys search matches on, computed once here rather than at query time."""
    pinyin, initials = pinyin_keys(name)
    return {
        "name_key": fold(name),
        "pinyin": pinyin,
        "initials": initials,
        "text_key": fold(text),
        "attr_mask": game.attributes.mask(attributes) if attributes else 0,
    }

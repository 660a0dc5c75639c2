"""Decklists (DESIGN §4): read text or JSON, resolve names against a game's cards, write back.

Reading has two steps. :func:`parse_decklist` (:mod:`catalog.decks.parse`) turns text into
:class:`DeckList` lines and raises :class:`DecklistError` (every bad line, numbered) when the
text cannot be read at all. :func:`resolve` (:mod:`catalog.decks.resolve`) looks each line up in
a :class:`CardPool` and turns lines naming no card, or several, into ``unknown_card`` /
``ambiguous_card`` violations, so a deck with a typo is still checked for everything else.
Writing a deck back and editing a list's text: :mod:`catalog.decks.edit`.

The names are re-exported here: the pages, the API, the CLI, events and the deck checker import
them from this module.
"""

from __future__ import annotations

from catalog.decks.edit import add_card, adjust_line, copies_by_name, merged, remove_card, write_json, write_text
from catalog.decks.parse import (
    ABOUT,
    FOREIGN_HEADERS,
    ICON_WORDS,
    MARKER_WORDS,
    MAX_COUNT,
    MAX_LINES,
    MAX_NAME,
    MAX_TEXT_CHARS,
    META_KEYS,
    SECTION_WORDS,
    SUGGESTED_LINES,
    YDK_SECTIONS,
    DeckLine,
    DeckList,
    DecklistError,
    LineProblem,
    from_json,
    parse_decklist,
    parse_decklists,
    parse_json,
    parse_text,
)
from catalog.decks.resolve import CardPool, resolve

__all__ = [
    "ABOUT",
    "FOREIGN_HEADERS",
    "ICON_WORDS",
    "MARKER_WORDS",
    "MAX_COUNT",
    "MAX_LINES",
    "MAX_NAME",
    "MAX_TEXT_CHARS",
    "META_KEYS",
    "SECTION_WORDS",
    "SUGGESTED_LINES",
    "YDK_SECTIONS",
    "CardPool",
    "DeckLine",
    "DeckList",
    "DecklistError",
    "LineProblem",
    "add_card",
    "adjust_line",
    "copies_by_name",
    "from_json",
    "merged",
    "parse_decklist",
    "parse_decklists",
    "parse_json",
    "parse_text",
    "remove_card",
    "resolve",
    "write_json",
    "write_text",
]

"""Stored wording shown in the reader's language: texts the domain writes in
Chinese into rows (a chest ledger's "十二月月赛 第 2 名") read in English on the English pages.
The stored text stays as written; only its display changes."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask_babel import get_locale
from flask_babel import gettext as _

_PLACE = re.compile(r"^(?P<event>.*\S)\s*第\s*(?P<place>\d+)\s*名$")


def chest_note(note: str) -> str:
    """A chest ledger note in the page's language: "<event> 第 N 名" → "<event>: place N"."""
    match = _PLACE.match(note or "")
    if match is None or str(get_locale()) != "en":
        return note
    return _("%(event)s：第 %(place)s 名", event=match["event"], place=match["place"])


def colon() -> str:
    """The colon after a label: full-width in Chinese, ": " in English (never "Total：3")."""
    return ": " if str(get_locale()) == "en" else "："


def parenthesized(text: object) -> str:
    """``（text）`` in Chinese, `` (text)`` in English."""
    return f" ({text})" if str(get_locale()) == "en" else f"（{text}）"


def init_app(app: Flask) -> None:
    app.add_template_filter(chest_note)
    app.add_template_global(colon)
    app.add_template_filter(parenthesized)


def game_name(game: Any) -> str:
    """A game's name (a game module, row or slug) in the reader's language: English in English."""
    from catalog.games import GAMES

    slug = game if isinstance(game, str) else getattr(game, "slug", "")
    module = GAMES.get(slug)
    if str(get_locale()) == "en" and module is not None and module.name_en:
        return module.name_en
    if isinstance(game, str):
        return module.name if module is not None else game
    return str(game.name)

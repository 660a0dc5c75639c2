"""Game registry: slug → game. Adding a fifth game = one package here (its ``__init__`` assembles
it) + its data under ``import/``, and its name in the tuple below."""

from __future__ import annotations

from typing import Any

from catalog.games.base import GameModule
from catalog.games.keyforge import KEYFORGE
from catalog.games.longzhiyi import LONGZHIYI
from catalog.games.samsara import SAMSARA
from catalog.games.zhutian import ZHUTIAN

GAMES: dict[str, GameModule] = {g.slug: g for g in (SAMSARA, LONGZHIYI, ZHUTIAN, KEYFORGE)}
# The game a command, API call or page means when it names none (the product's main game).
DEFAULT_GAME = SAMSARA.slug


def get_game(slug: str) -> GameModule | None:
    """The game module for a slug (or its Chinese/English name), or ``None``."""
    if slug in GAMES:
        return GAMES[slug]
    for game in GAMES.values():
        if slug in game.aliases():
            return game
    return None


def module_of(game: Any) -> GameModule:
    """The module of a stored game (anything with ``slug`` and ``vocabulary``, e.g. a ``Game``
    row), with the catalogue's declared vocabulary applied (manifest ``[vocabulary]``)."""
    return GAMES[game.slug].with_vocabulary(getattr(game, "vocabulary", None) or {})


__all__ = ["DEFAULT_GAME", "GAMES", "GameModule", "get_game", "module_of"]

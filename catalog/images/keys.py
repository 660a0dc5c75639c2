"""What names a card face, without drawing it: its sizes, the version of its data in
every image URL, the cache key of an encoded face and the file cache.

A search page computes an image URL for every tile: that needs these, never Pillow, so the
pages and the command line load :mod:`catalog.images.faces` (and Pillow) only to draw.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sqlmodel import Session, col, select

from catalog.games.base import GameModule
from catalog.models import Card, CardSet, Printing, PrintingScan
from catalog.text import fold

# Bump when the drawing changes: it is part of every cache key and image URL.
RENDERER_VERSION = "2"  # 2: KeyForge power printed 战斗力, the word its pages use

# Card width in pixels per size; the height keeps 63:88.
SIZES: dict[str, int] = {"small": 146, "normal": 488, "large": 745}
FORMATS = ("webp", "png")


def dimensions(size: str) -> tuple[int, int]:
    """(width, height) in pixels of a card at ``size``: 63×88 mm proportions."""
    width = SIZES[size]
    return width, round(width * 88 / 63)


def image_version(card: Card, printing: Printing, card_set: CardSet, game: GameModule) -> str:
    """A short hash of everything drawn on the face plus the renderer version (for ``?v=``)."""
    data = {
        "renderer": RENDERER_VERSION,
        "game": game.slug,
        "card": {
            f: getattr(card, f)
            for f in (
                "name",
                "type",
                "subtype",
                "attributes",
                "faction",
                "cost_text",
                "cost",
                "attack",
                "defense",
                "level",
                "life",
                "traits",
                "keywords",
                "text",
                "extra",
            )
        },
        "printing": [printing.number, printing.rarity],
        "set": [card_set.code, card_set.sample],
    }
    blob = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def cache_key(game: str, set_code: str, number: str, version: str, size: str, fmt: str) -> str:
    """The sha256 naming one cached face: the printing (folded as URLs are), its data version,
    size and format. Computable from an image URL alone, so a warm request needs no query."""
    blob = f"{game}|{fold(set_code)}|{fold(number)}|{version}|{size}|{fmt}"
    return hashlib.sha256(blob.encode()).hexdigest()


def cache_path(cache_dir: Path, key: str, fmt: str) -> Path:
    return cache_dir / key[:2] / f"{key}.{fmt}"


def cached(cache_dir: Path, key: str, fmt: str) -> bytes | None:
    """The stored bytes for ``key``, or ``None`` when that face was never drawn here."""
    try:
        return cache_path(cache_dir, key, fmt).read_bytes()
    except FileNotFoundError:
        return None


def scan_hashes(session: Session, printing_ids: list[int] | None = None) -> dict[int, str]:
    """printing id → scan hash, for the given printings (all when ``None``)."""
    query = select(PrintingScan.printing_id, PrintingScan.sha256)
    if printing_ids is not None:
        query = query.where(col(PrintingScan.printing_id).in_(printing_ids))
    return {printing_id: sha for printing_id, sha in session.execute(query)}

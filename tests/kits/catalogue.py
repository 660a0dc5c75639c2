"""A catalogue folder built for a test: ``root/<game>/manifest.toml`` with its sets, and the card
files under ``cards/``, in the import format (DESIGN's import contract). Tests that check how a
manifest is read keep theirs written out (their line numbers are what they test)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def manifest(game: str, *sets: dict[str, Any], **fields: Any) -> str:
    """The manifest's TOML: the game and its other top-level ``fields``, then one ``[[sets]]``
    table per set, keys as given."""
    lines = [f"game = {_toml(game)}", *(f"{key} = {_toml(value)}" for key, value in fields.items())]
    for fields in sets:
        lines.append("[[sets]]")
        lines += [f"{key} = {_toml(value)}" for key, value in fields.items()]
    return "\n".join(lines) + "\n"


def write_catalogue(root: Path, game: str, sets: list[dict[str, Any]], cards: dict[str, str], **fields: Any) -> Path:
    """``root/game``: the manifest of ``sets`` (and top-level ``fields``) and each card file of
    ``cards`` (file name → text)."""
    folder = root / game
    (folder / "cards").mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(manifest(game, *sets, **fields), encoding="utf-8")
    for name, text in cards.items():
        (folder / "cards" / name).write_text(text, encoding="utf-8")
    return folder


def _toml(value: Any) -> str:
    """A TOML value: strings as basic strings (JSON's escapes are TOML's), numbers as written."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)

"""How an import's problems describe a card: two cards whose rules differ (the fields, their
words in the file, the first differing code point of two texts that print alike), and a name
that was refused.
"""

from __future__ import annotations

from typing import Any

from catalog.errors import Message
from catalog.games import GameModule
from catalog.ingest.cardvalues import RULES_FIELDS
from catalog.ingest.sources import Problem, Row


def refused_name(row: Row, column: str, value: str) -> Problem:
    english = row.values.get("name_en", "") or row.values.get("name", "")
    return Problem(
        row.file,
        row.line,
        column,
        Message(
            f"中文名「{value}」是电子表格的错误值，不是卡名：保留英文名「{english}」",
            f"the Chinese name {value!r} is a spreadsheet error value, not a name: the English name {english!r} stands",
        ),
    )


def differing_fields(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [key for key in RULES_FIELDS if old.get(key) != new.get(key)]


def describe(keys: list[str], old: dict[str, Any], new: dict[str, Any], game: GameModule | None = None) -> str:
    parts = []
    for key in keys[:3]:
        before, after = show(old.get(key)), show(new.get(key))
        part = f"{column_word(key, game)}「{before}」≠「{after}」"
        if looks_equal(before, after):
            part += f"（{differing_code_points(before, after)}）"
        parts.append(part)
    return "；".join(parts)


def column_word(field: str, game: GameModule | None) -> str:
    """A rules field as the file calls it (KeyForge: faction → house, defense → armor)."""
    return (getattr(game, "file_columns", None) or {}).get(field, field)


def looks_equal(a: str, b: str) -> bool:
    """Whether two different strings would print alike: they differ only in spaces of some kind,
    invisible characters, width or case."""
    import unicodedata

    def seen(text: str) -> str:
        text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cf", "Cc"))
        return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()

    return a != b and seen(a) == seen(b)


def differing_code_points(a: str, b: str) -> str:
    """Where two strings first differ, as code points: ``第 12 个字符：U+202F ≠ U+0020``."""
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))

    def point(text: str) -> str:
        return f"U+{ord(text[at]):04X}" if at < len(text) else "（结束）"

    return f"第 {at + 1} 个字符：{point(a)} ≠ {point(b)}"


def show(value: Any) -> str:
    if isinstance(value, list):
        return "|".join(v["label"] if isinstance(v, dict) and "label" in v else str(v) for v in value)
    return "" if value is None else str(value)

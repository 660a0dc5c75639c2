"""Decklist text written back from a deck (export) and edited line by line (the deck builder's
+1 / −1 and add), keeping every other line of the player's text as it was.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from catalog.decks.parse import COUNT_FIRST, COUNT_LAST, MAX_COUNT, META, DecklistError, header_of, parse_decklist
from catalog.games import GAMES
from catalog.rules import SECTION_ZH, SECTIONS, Deck, DeckEntry, PoolCard
from catalog.text import fold

# ---------------------------------------------------------------------------- writing


def merged(entries: Iterable[DeckEntry]) -> list[tuple[str, PoolCard, int, str | None]]:
    """Entries merged by (section, card, printing), in first-seen order: what export writes."""
    out: dict[tuple[str, int, str | None], list[Any]] = {}
    for entry in entries:
        key = (entry.section, entry.card.id, entry.set_code)
        if key in out:
            out[key][2] += entry.count
        else:
            out[key] = [entry.section, entry.card, entry.count, entry.set_code]
    return [(s, c, n, code) for s, c, n, code in out.values()]


def write_text(deck: Deck) -> str:
    """The deck in the DESIGN §4 text format (metadata, then 主卡组 / 额外卡组 / 备牌)."""
    lines: list[str] = []
    labels = {"name": "名称", "game": "游戏", "format": "赛制"}
    # The game by its name for people (游戏: 永恒之轮); reading accepts names and slugs alike.
    module = GAMES.get(deck.game or "")
    metadata = {"name": deck.name, "game": module.name if module else deck.game, "format": deck.format or ""}
    metadata |= {k: v for k, v in deck.metadata.items() if k not in metadata}
    for key, value in metadata.items():
        if value:
            lines.append(f"{labels.get(key, key)}: {value}")
    rows = merged(deck.entries)
    for section in SECTIONS:
        chosen = [r for r in rows if r[0] == section]
        if not chosen:
            continue
        lines.append("")
        lines.append(f"{SECTION_ZH[section]}:")
        for _s, card, count, set_code in chosen:
            lines.append(f"{count} {card.name}" + (f" ({set_code})" if set_code else ""))
    return "\n".join(lines).strip() + "\n"


def write_json(deck: Deck) -> dict[str, Any]:
    """The deck as DESIGN §4 JSON."""
    data: dict[str, Any] = {"name": deck.name, "game": deck.game, "format": deck.format}
    for key, value in deck.metadata.items():
        if key not in data:
            data[key] = value
    rows = merged(deck.entries)
    for section in SECTIONS:
        data[section] = [
            {"card": card.name, "count": count, **({"set": code} if code else {})}
            for s, card, count, code in rows
            if s == section
        ]
    return data


# ---------------------------------------------------------------------------- editing the text


def adjust_line(text: str, line: int, delta: int) -> str:
    """Add ``delta`` copies on card line ``line`` (1-based); a count reaching 0 removes the line.

    Other lines (comments, metadata, headers) are left as written; a line that is not a card
    line is not touched.
    """
    rows = text.splitlines()
    if not 1 <= line <= len(rows):
        return text
    written = unicodedata.normalize("NFKC", rows[line - 1]).strip()
    if not written or written.startswith("#") or (written.endswith(":") and ":" not in written[:-1]):
        return text
    match = COUNT_FIRST.match(written) or COUNT_LAST.match(written)
    if match is None and ":" in written and META.match(written):
        return text
    count, body = (int(match["count"]), match["body"].strip()) if match else (1, written)
    count = max(0, min(MAX_COUNT, count + delta))
    if count:
        rows[line - 1] = f"{count} {body}"
    else:
        del rows[line - 1]
    return "\n".join(rows) + "\n"


def add_card(text: str, name: str, count: int = 1, section: str = "main") -> str:
    """``count`` more copies of ``name`` in ``section``: on the line already naming it there
    (so "3 赤晶幼龙" becomes "4 赤晶幼龙", not a second line), else a new line at the end of
    the section (adding its header if needed)."""
    name = name.strip()
    if not name or count < 1 or section not in SECTIONS:
        return text
    try:
        existing = [
            line
            for line in parse_decklist(text).lines
            if line.section == section and line.name and fold(line.name) == fold(name)
        ]
    except DecklistError:
        existing = []
    if existing:
        return adjust_line(text, existing[0].line, count)
    rows = text.splitlines()
    current = "main"
    last_of: dict[str, int] = {}
    for index, row in enumerate(rows):
        stripped = unicodedata.normalize("NFKC", row).strip()
        header, _looks = header_of(stripped) if stripped and not COUNT_FIRST.match(stripped) else (None, None)
        if header is not None:
            current = header
            last_of[current] = index
        elif stripped and not stripped.startswith("#"):
            last_of[current] = index
    entry = f"{min(count, MAX_COUNT)} {name}"
    if section in last_of:
        rows.insert(last_of[section] + 1, entry)
    else:
        rows += [f"{SECTION_ZH[section]}:", entry]
    return "\n".join(rows) + "\n"


def copies_by_name(text: str) -> dict[str, int]:
    """Copies per folded card name over every section of a list (lines naming a card by
    collector number are not counted: that needs the catalogue). An unreadable list → {}."""
    try:
        decklist = parse_decklist(text)
    except DecklistError:
        return {}
    counts: dict[str, int] = {}
    for line in decklist.lines:
        if line.name:
            key = fold(line.name)
            counts[key] = counts.get(key, 0) + line.count
    return counts


def remove_card(text: str, name: str) -> str:
    """One copy fewer of ``name`` (its last line naming it); the list unchanged if none does."""
    try:
        decklist = parse_decklist(text)
    except DecklistError:
        return text
    key = fold(name)
    lines = [line for line in decklist.lines if line.name and fold(line.name) == key]
    return adjust_line(text, lines[-1].line, -1) if lines else text

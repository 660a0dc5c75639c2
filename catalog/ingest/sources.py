"""Reading catalogue sources (DESIGN §3 folders, KeyForge community JSON) into plain specs.

Nothing here touches the database: a :class:`Source` is what the files say, plus every
problem found while reading them, each located as ``file:line: column``. A game folder is read
by :mod:`catalog.ingest.manifest`, its card files by :mod:`catalog.ingest.cardfiles`; the specs
are in :mod:`catalog.ingest.specs` (re-exported here: the importer's callers name them here).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from catalog.errors import Message
from catalog.games import GAMES
from catalog.ingest.cardfiles import CsvFile, Problem, Row, decode
from catalog.ingest.manifest import SOURCE_MAX, read_folder
from catalog.ingest.specs import ManifestFormat, SetSpec, Source, StoredVocabulary, TemplateSpec

__all__ = [
    "CsvFile",
    "ManifestFormat",
    "Problem",
    "Row",
    "SetSpec",
    "Source",
    "StoredVocabulary",
    "TemplateSpec",
    "combine_json_sources",
    "expand_paths",
    "read_folder",
    "read_json_catalogue",
    "read_source",
]


def expand_paths(paths: list[Path]) -> tuple[list[Path], list[Problem]]:
    """Game folders, JSON files, or a folder holding game folders (like ``import/``)."""
    found: list[Path] = []
    problems: list[Problem] = []
    for path in paths:
        if path.is_file() or (path / "manifest.toml").is_file():
            found.append(path)
        elif path.is_dir():
            children = sorted(p for p in path.iterdir() if (p / "manifest.toml").is_file())
            if children:
                found.extend(children)
            else:
                problems.append(
                    Problem(
                        str(path),
                        0,
                        "manifest.toml",
                        Message(
                            "目录中没有 manifest.toml，也没有含 manifest.toml 的游戏子目录",
                            "no manifest.toml here, nor game folders holding one",
                        ),
                    )
                )
        else:
            problems.append(Problem(str(path), 0, "-", Message("路径不存在", "no such file or folder")))
    return found, problems


def read_source(path: Path, stored: dict[str, StoredVocabulary] | None = None) -> Source:
    """One game folder or community JSON file; ``stored`` holds each game's vocabulary in the
    database (updated here when the manifest declares one, so later sources agree with it)."""
    if path.is_file():
        if path.suffix.lower() == ".json":
            source = read_json_catalogue(path)
            known = (stored or {}).get(source.game.slug) if source.game is not None else None
            if source.game is not None and known is not None and known.vocabulary:
                # the game's stored words (a declared ladder, extra houses) hold for its JSON files too
                source.vocabulary = dict(known.vocabulary)
                source.game = source.game.with_vocabulary(known.vocabulary)
            return source
        return Source(
            str(path),
            None,
            problems=[
                Problem(
                    str(path),
                    0,
                    "-",
                    Message(
                        "不认识的文件：应为游戏目录（含 manifest.toml）或 KeyForge 社区 JSON 文件",
                        "unknown file: give a game folder with manifest.toml, or a KeyForge community JSON file",
                    ),
                )
            ],
        )
    return read_folder(path, stored if stored is not None else {})


def combine_json_sources(sources: list[Source], known_names: dict[str, dict[str, Any]]) -> list[Source]:
    """The JSON files of one game in one import as one source: its sets newest first
    (by the format's ``position``), the rows in that order, so a card's first row, the one whose
    rules the card keeps, is its newest printing, and one name per card across the files
    (the format's ``unify``; ``known_names``: each game's stored names by English name)."""
    combined: list[Source] = []
    by_game: dict[str, Source] = {}
    for source in sources:
        game = source.game
        fmt = game.json_format if game is not None else None
        if game is None or fmt is None or fmt.unify is None or source.problems or not source.json_rows:
            combined.append(source)
            continue
        into = by_game.get(game.slug)
        if into is None:
            into = by_game[game.slug] = Source(source.path, game, vocabulary=source.vocabulary)
            combined.append(into)
        into.sets.extend(source.sets)
        into.json_rows.extend(source.json_rows)
    for slug, source in by_game.items():
        fmt = source.game.json_format if source.game is not None else None
        assert fmt is not None and fmt.unify is not None
        order = {spec.code: spec.position for spec in source.sets}
        source.sets.sort(key=lambda spec: -spec.position)
        source.json_rows.sort(key=lambda row: -order.get(row.values.get("set", ""), 0))  # stable within a set
        fmt.unify([row.values for row in source.json_rows], known_names.get(slug, {}))
        source.path = ", ".join(dict.fromkeys(row.file for row in source.json_rows))
    return combined


def read_json_catalogue(path: Path) -> Source:
    """A JSON card-data file (one set) in a format some game reads (KeyForge community data)."""
    display = str(path)
    source = Source(display, None)
    text, problem = decode(path.read_bytes(), display)
    if problem or text is None:
        source.problems.append(problem)  # type: ignore[arg-type]  # decode gives a problem whenever it gives no text
        return source
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        source.problems.append(
            Problem(
                display,
                error.lineno,
                "-",
                Message(f"JSON 语法错误：{error.msg}（第 {error.colno} 列）", f"JSON syntax error: {error.msg}"),
            )
        )
        return source
    if isinstance(data, list) and data and all(isinstance(d, dict) and "houses" in d and "cards" in d for d in data):
        # keyforge-standalone-decks.json beside the sets (lunzang import keyforge-*.json): decks,
        # not cards; `lunzang deck check` reads them
        source.skipped = Problem(
            display,
            1,
            "-",
            Message(
                f"这是 {len(data)} 副卡组，不是卡牌数据：已跳过（用 lunzang deck check 检查）",
                f"{len(data)} decks, not card data: skipped (lunzang deck check reads them)",
            ),
        )
        return source
    formats = [(game, game.json_format) for game in GAMES.values() if game.json_format is not None]
    found = next(((game, fmt) for game, fmt in formats if fmt.recognises(data)), None)
    if found is None:
        source.problems.append(
            Problem(
                display,
                1,
                "-",
                Message(
                    "不是 " + "，也不是 ".join(fmt.name.zh for _, fmt in formats),
                    "not " + ", nor ".join(fmt.name.en for _, fmt in formats),
                ),
            )
        )
        return source
    source.game, json_format = found
    source.provenance = f"社区卡牌数据 JSON：{path.name}"[:SOURCE_MAX]
    header = json_format.set_header(data)
    position = json_format.position(data) if json_format.position is not None else 0
    source.sets.append(
        SetSpec(
            header["code"],
            header["name"],
            header["series"],
            header["kind"],
            header["release"],
            header["description"],
            None,
            position,
            1,
            # its own: the JSON files of one import become one source (combine_json_sources),
            # and each set still names the file it came from
            source=source.provenance,
        )
    )
    card_lines = [n for n, line in enumerate(text.splitlines(), start=1) if re.match(r'^\s*"number"\s*:', line)]
    rows = json_format.rows(data)
    for index, values in rows:
        line = card_lines[index - 1] if len(card_lines) == len(data["cards"]) else index
        source.json_rows.append(Row(display, line, values))
    return source

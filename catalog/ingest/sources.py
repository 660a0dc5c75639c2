"""Reading catalogue sources (DESIGN §3 folders, KeyForge community JSON) into plain specs.

Nothing here touches the database: a :class:`Source` is what the files say, plus every
problem found while reading them, each located as ``file:line: column``.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalog.errors import Message
from catalog.games import GAMES, GameModule, get_game
from catalog.games.base import COMMON_REQUIRED
from catalog.text import fold

SET_KINDS = ("starter", "booster", "theme", "collection")
FORMAT_PARAMS = ("main_min", "main_max", "copy_limit", "extra_max")
# The keys DESIGN §3 defines (plus our ``sample``): anything else is reported, so a typo in a
# key is caught instead of silently ignored (issue 12).
# (``name``, the catalogue's title, is informational: our sample and synthetic catalogues write it.)
MANIFEST_KEYS = ("game", "name", "sample", "source", "sets", "packs", "formats", "vocabulary")
SOURCE_MAX = 500  # ``source = "…"``: where the catalogue's data comes from (issue 34 §6)
SET_KEYS = ("code", "name", "series", "kind", "release", "description", "pack", "source", "sample")
TEMPLATE_KEYS = ("packs_per_box", "slots", "box_collation")
SLOT_KEYS = ("count", "rarity", "box_collation")


@dataclass(frozen=True)
class StoredVocabulary:
    """What the database already holds for a game: its declared words, and whether it has
    printings (then the ladder in use is the module's default unless one was declared)."""

    vocabulary: dict[str, Any]
    has_printings: bool


@dataclass(frozen=True)
class Problem:
    """One import error, reported as ``file:line: column: message``."""

    file: str
    line: int
    column: str
    message: Message

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.column}: {self.message.zh}"


@dataclass
class SetSpec:
    code: str
    name: str
    series: str
    kind: str
    release: str
    description: str
    pack: str | None
    position: int
    line: int
    source: str | None = None  # a set's own ``source``, over the manifest's (issue 34 §6)
    sample: bool | None = None  # a set's own ``sample``, over the manifest's (a game mixing both)


@dataclass
class TemplateSpec:
    name: str
    packs_per_box: int
    slots: list[dict[str, Any]]
    line: int


@dataclass
class ManifestFormat:
    code: str
    name: str
    rules: str
    legal_sets: list[str]
    banlist: dict[str, int]
    params: dict[str, int | None]
    line: int


@dataclass
class Row:
    file: str
    line: int
    values: dict[str, str]


@dataclass(frozen=True)
class CsvFile:
    """A card CSV whose header checked clean; its rows are read when iterated, not kept."""

    path: Path
    columns: tuple[str, ...]

    @property
    def display(self) -> str:
        return str(self.path)


@dataclass
class Source:
    """Everything one game folder (or one community JSON file) says.

    The card rows are not held: :meth:`iter_rows` reads them from the files each time it is
    called (an import reads them twice: to check, then to write), so a million-row catalogue
    costs the memory of one row at a time here.
    """

    path: str
    game: GameModule | None
    sample: bool = False
    provenance: str = ""  # manifest ``source``, or the community file read; shown on each set's page
    sets: list[SetSpec] = field(default_factory=list)
    templates: list[TemplateSpec] = field(default_factory=list)
    formats: list[ManifestFormat] = field(default_factory=list)
    csv_files: list[CsvFile] = field(default_factory=list)
    json_rows: list[Row] = field(default_factory=list)  # a JSON catalogue (one set) is read whole
    problems: list[Problem] = field(default_factory=list)
    # the game's vocabulary after this import: the stored one plus the manifest's [vocabulary]
    vocabulary: dict[str, Any] = field(default_factory=dict)
    # a file that holds no cards but that an import may meet beside card files (KeyForge decks)
    skipped: Problem | None = None

    def iter_rows(self, problems: list[Problem] | None = None) -> Iterator[Row]:
        """Every card row, file by file, in order. A row that cannot be read (more fields than
        the header, a CSV syntax error, bytes that are not UTF-8) is left out and, when
        ``problems`` is given, reported there; the rows of a file after such an error are
        not read."""
        yield from self.json_rows
        for csv_file in self.csv_files:
            yield from _iter_csv(csv_file, problems if problems is not None else [])

    def files(self) -> list[str]:
        """The display names of the files rows come from, in :meth:`iter_rows` order."""
        return list(dict.fromkeys([row.file for row in self.json_rows] + [f.display for f in self.csv_files]))

    def estimated_rows(self) -> int:
        """About how many rows :meth:`iter_rows` gives (line count less headers), for progress."""
        total = len(self.json_rows)
        for csv_file in self.csv_files:
            with csv_file.path.open("rb") as handle:
                total += sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) - 1
        return max(total, 0)


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
    """The JSON files of one game in one import as one source (issue 30): its sets newest first
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


def _decode(raw: bytes, display: str) -> tuple[str | None, Problem | None]:
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        return None, _not_utf8(display, raw.count(b"\n", 0, error.start) + 1, error.start)


def _not_utf8(display: str, line: int, start: int) -> Problem:
    return Problem(
        display,
        line,
        "-",
        Message(
            f"文件不是 UTF-8 编码（第 {start + 1} 字节无法解码）；请在 Excel 中另存为“CSV UTF-8”",
            f"the file is not UTF-8 (byte {start + 1} cannot be decoded); save it as CSV UTF-8",
        ),
    )


class _ManifestLines:
    """Finds the line of a manifest entry, for messages (tomllib keeps no positions)."""

    def __init__(self, text: str):
        self.lines = text.splitlines()

    def header(self, pattern: str, index: int = 0) -> int:
        regex = re.compile(pattern)
        seen = 0
        for number, line in enumerate(self.lines, start=1):
            if regex.match(line.strip()):
                if seen == index:
                    return number
                seen += 1
        return 1

    def key(self, start: int, key: str) -> int:
        regex = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for number in range(start, len(self.lines) + 1):
            line = self.lines[number - 1]
            if number > start and line.strip().startswith("["):
                break
            if regex.match(line):
                return number
        return start


def read_folder(folder: Path, stored: dict[str, StoredVocabulary] | None = None) -> Source:
    manifest_path = folder / "manifest.toml"
    display = str(manifest_path)
    source = Source(str(folder), None)
    raw = manifest_path.read_bytes()
    text, problem = _decode(raw, display)
    if problem or text is None:
        source.problems.append(problem)  # type: ignore[arg-type]  # _decode gives a problem whenever it gives no text
        return source
    try:
        manifest = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"line (\d+)", str(error))
        source.problems.append(
            Problem(
                display,
                int(match[1]) if match else 1,
                "-",
                Message(f"TOML 语法错误：{error}", f"TOML syntax error: {error}"),
            )
        )
        return source
    lines = _ManifestLines(text)

    def problem_at(line: int, column: str, zh: str, en: str) -> None:
        source.problems.append(Problem(display, line, column, Message(zh, en)))

    game_slug = manifest.get("game")
    game = get_game(str(game_slug)) if game_slug else None
    if game is None:
        problem_at(
            lines.key(1, "game"),
            "game",
            f"未知的游戏「{game_slug}」，可用：{'、'.join(GAMES)}",
            f"unknown game {game_slug!r}; known: {', '.join(GAMES)}",
        )
        return source
    source.sample = bool(manifest.get("sample", False))
    provenance = manifest.get("source", "")
    if not isinstance(provenance, str) or len(provenance.strip()) > SOURCE_MAX:
        problem_at(
            lines.key(1, "source"),
            "source",
            f"source 应是一段文字（最多 {SOURCE_MAX} 个字符），说明数据的出处",
            f"source must be text (at most {SOURCE_MAX} characters) saying where the data comes from",
        )
    else:
        source.provenance = provenance.strip()
    for key, value in manifest.items():
        if key not in MANIFEST_KEYS:
            line = lines.key(1, key)
            if isinstance(value, dict | list):
                line = lines.header(rf"^\[\[?{re.escape(key)}[\].]")
            problem_at(
                line,
                key,
                f"未知的 manifest 键「{key}」，可用：{'、'.join(MANIFEST_KEYS)}",
                f"unknown manifest key {key!r}; known: {', '.join(MANIFEST_KEYS)}",
            )
    known = (stored if stored is not None else {}).get(game.slug, StoredVocabulary({}, False))
    vocabulary = _read_vocabulary(manifest.get("vocabulary"), game, lines, problem_at, known)
    if stored is not None and vocabulary.get("rarities"):
        stored[game.slug] = StoredVocabulary(vocabulary, known.has_printings)
    source.vocabulary = vocabulary
    game = game.with_vocabulary(vocabulary)
    source.game = game

    for index, (name, template) in enumerate((manifest.get("packs") or {}).items()):
        line = lines.header(rf"^\[packs\.{re.escape(name)}\]$")
        template_spec = _read_template(name, template, game, line, problem_at)
        if template_spec:
            source.templates.append(template_spec)
        del index
    template_names = {t.name for t in source.templates} | set(manifest.get("packs") or {})

    raw_sets = manifest.get("sets") or []
    if not isinstance(raw_sets, list):
        problem_at(lines.key(1, "sets"), "sets", "sets 应写成 [[sets]] 表数组", "sets must be [[sets]] tables")
        raw_sets = []
    seen_codes: dict[str, int] = {}
    for position, entry in enumerate(raw_sets):
        line = lines.header(r"^\[\[sets\]\]$", position)
        spec = _read_set(entry, game, position, line, lines, template_names, problem_at)
        if spec is None:
            continue
        code_line = lines.key(line, "code")
        if spec.code in seen_codes:
            problem_at(
                code_line,
                "code",
                f"系列代码 {spec.code} 重复（第 {seen_codes[spec.code]} 行已定义）",
                f"set code {spec.code} defined twice (first at line {seen_codes[spec.code]})",
            )
            continue
        seen_codes[spec.code] = code_line
        source.sets.append(spec)

    for index, entry in enumerate(manifest.get("formats") or []):
        line = lines.header(r"^\[\[formats\]\]$", index)
        fmt = _read_format(entry, game, line, lines, problem_at)
        if fmt:
            source.formats.append(fmt)

    cards_dir = folder / "cards"
    csv_files = sorted(cards_dir.glob("*.csv")) if cards_dir.is_dir() else []
    if not csv_files:
        problem_at(1, "-", f"{cards_dir} 中没有卡牌 CSV 文件", f"no card CSV files in {cards_dir}")
    for csv_path in csv_files:
        _read_csv(csv_path, game, source)
    return source


def _unknown_keys(entry: dict[str, Any], allowed: tuple[str, ...], where: str, line: int, problem_at: Any) -> bool:
    """Report every key of ``entry`` outside ``allowed``; True when there was none."""
    ok = True
    for key in entry:
        if key not in allowed:
            problem_at(
                line,
                f"{where}.{key}" if where else key,
                f"未知的键「{key}」，可用：{'、'.join(allowed)}",
                f"unknown key {key!r}; known: {', '.join(allowed)}",
            )
            ok = False
    return ok


def _read_vocabulary(
    raw: Any, game: GameModule, lines: _ManifestLines, problem_at: Any, known: StoredVocabulary
) -> dict[str, Any]:
    """The manifest's ``[vocabulary]`` merged onto the stored one (DESIGN §3, issue 12).

    ``rarities`` (every game) is the catalogue's ladder, lowest → highest, and must agree with
    the ladder the database already uses for the game; each list the game module marks open
    (KeyForge ``houses``) takes extra words, each with its aliases.
    """
    merged: dict[str, Any] = {k: v for k, v in known.vocabulary.items()}
    if raw is None:
        return merged
    line = lines.header(r"^\[vocabulary\]$")
    if not isinstance(raw, dict):
        problem_at(line, "vocabulary", "[vocabulary] 应是一个表", "[vocabulary] must be a table")
        return merged
    allowed = ("rarities", *game.open_lists)
    for key, value in raw.items():
        where = f"vocabulary.{key}"
        at = lines.key(line, key)
        if key == "rarities":
            words = [str(v).strip() for v in value] if isinstance(value, list) else []
            if (
                not isinstance(value, list)
                or not words
                or not all(isinstance(v, str) and v.strip() for v in value)
                or len({fold(w) for w in words}) != len(words)
            ):
                problem_at(
                    at,
                    where,
                    'rarities 应是由低到高、互不相同的稀有度列表，如 ["1", "2", "3"]',
                    'rarities must be a list of distinct rarities, lowest first, such as ["1", "2", "3"]',
                )
                continue
            in_use = known.vocabulary.get("rarities") or (list(game.rarity.codes) if known.has_printings else None)
            if in_use is not None and list(in_use) != words:
                ours, theirs = " < ".join(words), " < ".join(str(r) for r in in_use)
                problem_at(
                    at,
                    where,
                    f"本目录的稀有度等级 {ours} 与数据库中{game.name}已在使用的 {theirs} 矛盾",
                    f"this catalogue's rarity ladder {ours} contradicts the one {game.slug} already uses: {theirs}",
                )
                continue
            merged["rarities"] = words
        elif key in game.open_lists:
            label = game.open_lists[key]
            if not isinstance(value, dict) or not all(
                isinstance(word, str)
                and word.strip()
                and isinstance(aliases, list)
                and all(isinstance(a, str) and a.strip() for a in aliases)
                for word, aliases in value.items()
            ):
                problem_at(
                    at,
                    where,
                    f'{key} 应是「{label}」到别名列表的表，如 {{ "蛮族" = ["manzu"] }}',
                    f'{key} must map each word to a list of aliases, such as {{ "蛮族" = ["manzu"] }}',
                )
                continue
            extended: dict[str, list[str]] = dict(merged.get(key) or {})
            for word, aliases in value.items():
                previous = list(extended.get(word.strip(), []))
                extended[word.strip()] = previous + [a.strip() for a in aliases if a.strip() not in previous]
            merged[key] = extended
        else:
            problem_at(
                at if not isinstance(value, dict) else lines.header(rf"^\[vocabulary\.{re.escape(key)}\]$"),
                where,
                f"[vocabulary] 中未知的键「{key}」，{game.name}可用：{'、'.join(allowed)}",
                f"unknown [vocabulary] key {key!r}; known for {game.slug}: {', '.join(allowed)}",
            )
    return merged


def _read_template(name: str, raw: Any, game: GameModule, line: int, problem_at: Any) -> TemplateSpec | None:
    if not isinstance(raw, dict):
        problem_at(line, f"packs.{name}", "卡包模板应是一个表", "a pack template must be a table")
        return None
    ok = _unknown_keys(raw, TEMPLATE_KEYS, f"packs.{name}", line, problem_at)
    packs_per_box = raw.get("packs_per_box", 1)
    if not isinstance(packs_per_box, int) or isinstance(packs_per_box, bool) or packs_per_box < 1:
        problem_at(
            line,
            "packs_per_box",
            f"每盒包数应为正整数，而不是 {packs_per_box!r}",
            f"packs_per_box must be a positive whole number, not {packs_per_box!r}",
        )
        ok = False
    slots: list[dict[str, Any]] = []
    raw_slots = raw.get("slots") or []
    if not raw_slots:
        problem_at(line, "slots", "卡包模板没有任何卡位（slots）", "the pack template has no slots")
        ok = False
    template_collation = raw.get("box_collation")
    for number, slot in enumerate(raw_slots, start=1):
        where = f"packs.{name}.slots[{number}]"
        if isinstance(slot, dict) and not _unknown_keys(slot, SLOT_KEYS, where, line, problem_at):
            ok = False
        count = slot.get("count", 1) if isinstance(slot, dict) else None
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problem_at(
                line,
                where,
                f"卡位张数 count 应为正整数，而不是 {count!r}",
                f"count must be a positive whole number, not {count!r}",
            )
            ok = False
            continue
        weights: dict[str, float] = {}
        for word, weight in (slot.get("rarity") or {}).items():
            rarity = game.rarity.resolve(str(word))
            if rarity is None:
                problem_at(
                    line,
                    where,
                    f"未知的稀有度「{word}」，可用：{game.rarity.describe()}",
                    f"unknown rarity {word!r}; known: {game.rarity.describe()}",
                )
                ok = False
            elif not isinstance(weight, int | float) or isinstance(weight, bool) or weight < 0:
                problem_at(line, where, f"稀有度 {word} 的权重应为非负数", f"weight of {word} must be ≥ 0")
                ok = False
            else:
                weights[rarity] = weights.get(rarity, 0) + weight
        if not weights or sum(weights.values()) <= 0:
            problem_at(line, where, "卡位没有任何正权重的稀有度", "the slot has no rarity with a positive weight")
            ok = False
        slots.append({"count": count, "rarity": weights, "box_collation": slot.get("box_collation")})
    if template_collation is not None and slots:
        # A template-level box_collation applies to the first slot that mixes rarities.
        mixed = [s for s in slots if len(s["rarity"]) > 1] or slots[-1:]
        mixed[0]["box_collation"] = template_collation
    for number, slot in enumerate(slots, start=1):
        collation = slot.get("box_collation")
        if collation is None:
            continue
        where = f"packs.{name}.box_collation"
        counts: dict[str, int] = {}
        for word, count in collation.items():
            rarity = game.rarity.resolve(str(word))
            if rarity is None or not isinstance(count, int) or count < 0:
                problem_at(line, where, f"box_collation 中「{word} = {count}」无效", f"invalid {word} = {count}")
                ok = False
            else:
                counts[rarity] = count
        expected = (packs_per_box if isinstance(packs_per_box, int) else 0) * slot["count"]
        if ok and sum(counts.values()) != expected:
            problem_at(
                line,
                where,
                f"box_collation 合计 {sum(counts.values())} 张，应等于每盒包数 × 卡位张数 = {expected}",
                f"box_collation adds up to {sum(counts.values())}, expected packs_per_box × count = {expected}",
            )
            ok = False
        slot["box_collation"] = counts
        del number
    return TemplateSpec(name, packs_per_box, slots, line) if ok else None


def _text(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key, "")
    return str(value).strip() if value is not None else ""


def _read_set(
    entry: Any,
    game: GameModule,
    position: int,
    line: int,
    lines: _ManifestLines,
    template_names: set[str],
    problem_at: Any,
) -> SetSpec | None:
    if not isinstance(entry, dict):
        problem_at(line, "sets", "[[sets]] 条目应是表", "a [[sets]] entry must be a table")
        return None
    code = _text(entry, "code")
    name = _text(entry, "name")
    ok = True
    for key in entry:
        if key not in SET_KEYS:
            problem_at(
                lines.key(line, key),
                key,
                f"系列 {code} 中未知的键「{key}」，可用：{'、'.join(SET_KEYS)}",
                f"set {code}: unknown key {key!r}; known: {', '.join(SET_KEYS)}",
            )
            ok = False
    if not code:
        problem_at(line, "code", "系列缺少代码 code", "the set has no code")
        ok = False
    if not name:
        problem_at(lines.key(line, "name"), "name", f"系列 {code} 缺少名称 name", f"set {code} has no name")
        ok = False
    series = _text(entry, "series")
    if game.series and series not in game.series:
        *first, last = game.series
        problem_at(
            lines.key(line, "series"),
            "series",
            f"{game.name}的系列类别应为 {'、'.join(first)} 或 {last}，而不是「{series}」",
            f"{game.name_en} series must be {', '.join(first)} or {last}, not {series!r}",
        )
        ok = False
    kind = _text(entry, "kind") or "booster"
    if kind not in SET_KINDS:
        problem_at(
            lines.key(line, "kind"),
            "kind",
            f"未知的系列种类「{kind}」，可用：{'、'.join(SET_KINDS)}",
            f"unknown kind {kind!r}; known: {', '.join(SET_KINDS)}",
        )
        ok = False
    release = _text(entry, "release")
    if release and not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", release):
        problem_at(
            lines.key(line, "release"),
            "release",
            f"发售日期「{release}」应写成 2014-06",
            f"release {release!r} must look like 2014-06",
        )
        ok = False
    pack = _text(entry, "pack") or None
    if pack and pack not in template_names:
        problem_at(
            lines.key(line, "pack"),
            "pack",
            f"没有名为「{pack}」的卡包模板 [packs.{pack}]",
            f"no pack template [packs.{pack}]",
        )
        ok = False
    if not ok:
        return None
    own_source = _text(entry, "source")[:SOURCE_MAX] if "source" in entry else None
    own_sample = bool(entry["sample"]) if "sample" in entry else None
    description = _text(entry, "description")
    return SetSpec(code, name, series, kind, release, description, pack, position, line, own_source, own_sample)


def _read_format(
    entry: Any, game: GameModule, line: int, lines: _ManifestLines, problem_at: Any
) -> ManifestFormat | None:
    if not isinstance(entry, dict):
        problem_at(line, "formats", "[[formats]] 条目应是表", "a [[formats]] entry must be a table")
        return None
    ok = True
    code = _text(entry, "code")
    if not code:
        problem_at(line, "code", "赛制缺少代码 code", "the format has no code")
        ok = False
    kinds = list(game.rule_kinds)
    rules = _text(entry, "rules") or kinds[0]
    if rules not in game.rule_kinds:
        problem_at(
            lines.key(line, "rules"),
            "rules",
            f"未知的规则类型「{rules}」，{game.name}可用：{'、'.join(kinds)}",
            f"unknown rule kind {rules!r}; known for {game.slug}: {', '.join(kinds)}",
        )
        ok = False
    legal = entry.get("legal_sets", ["*"])
    if not isinstance(legal, list) or not all(isinstance(x, str) and x.strip() for x in legal):
        problem_at(
            lines.key(line, "legal_sets"),
            "legal_sets",
            'legal_sets 应是系列代码的列表，如 ["M*", "S8"]',
            'legal_sets must be a list of set codes such as ["M*", "S8"]',
        )
        ok = False
        legal = []
    banlist: dict[str, int] = {}
    for card_name, limit in (entry.get("banlist") or {}).items():
        if limit not in (0, 1, 2) or isinstance(limit, bool):
            problem_at(
                lines.key(line, "banlist"),
                "banlist",
                f"禁限卡表中「{card_name}」的数量应为 0（禁止）、1（限制）或 2（准限制），而不是 {limit!r}",
                f"ban-list limit of {card_name!r} must be 0, 1 or 2, not {limit!r}",
            )
            ok = False
        else:
            banlist[str(card_name).strip()] = limit
    params: dict[str, int | None] = {}
    allowed = set(FORMAT_PARAMS)
    for key, value in entry.items():
        if key in ("code", "name", "rules", "legal_sets", "banlist", "description"):
            continue
        if key not in allowed:
            problem_at(
                lines.key(line, key),
                key,
                f"未知的赛制参数「{key}」，可用：{'、'.join(FORMAT_PARAMS)}",
                f"unknown format parameter {key!r}; known: {', '.join(FORMAT_PARAMS)}",
            )
            ok = False
        elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
            problem_at(lines.key(line, key), key, f"{key} 应为非负整数", f"{key} must be a whole number ≥ 0")
            ok = False
        else:
            params[key] = value
    if not ok:
        return None
    return ManifestFormat(code, _text(entry, "name") or code, rules, [s.strip() for s in legal], banlist, params, line)


def _open_text(path: Path) -> io.TextIOWrapper:
    """The file as UTF-8 text (a BOM skipped), lines untranslated as ``csv`` wants them."""
    return io.TextIOWrapper(path.open("rb"), encoding="utf-8-sig", newline="")


def _decode_problem(path: Path) -> Problem:
    """Where a file stops being UTF-8, as :func:`_decode` reports it, found reading a megabyte
    at a time (the error path of a streamed file: the whole file is never held)."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    offset = newlines = 0
    bom = 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            if offset == 0 and chunk.startswith(codecs.BOM_UTF8):
                bom = len(codecs.BOM_UTF8)  # _decode counts bytes after the BOM
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                # ``error.object`` is the bytes held back from the last chunk (part of one
                # character, never a newline) followed by this chunk; the first chunk's offsets
                # already leave the BOM out
                pending = len(error.object) - len(chunk)
                start = error.start if offset == 0 else offset - bom - pending + error.start
                return _not_utf8(str(path), newlines + error.object.count(b"\n", 0, error.start) + 1, start)
            offset += len(chunk)
            newlines += chunk.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:  # the file ends inside a character
        return _not_utf8(str(path), newlines + 1, offset - bom - len(error.object) + error.start)
    raise AssertionError(f"{path} decoded as UTF-8 after all")


def _read_csv(path: Path, game: GameModule, source: Source) -> None:
    """Check a card CSV's header; a clean one joins ``source.csv_files`` (rows read later)."""
    display = str(path)
    try:
        with _open_text(path) as handle:
            reader = csv.reader(handle)
            try:
                header = next(reader)
            except StopIteration:
                source.problems.append(
                    Problem(display, 1, "-", Message("文件为空，缺少表头行", "empty file: no header row"))
                )
                return
            except csv.Error as error:
                source.problems.append(
                    Problem(display, 1, "-", Message(f"CSV 格式错误：{error}", f"CSV error: {error}"))
                )
                return
    except UnicodeDecodeError:
        source.problems.append(_decode_problem(path))
        return
    columns = [c.strip().lower() for c in header]
    known = set(game.columns)
    header_ok = True
    for column in COMMON_REQUIRED:
        if column not in columns:
            source.problems.append(
                Problem(display, 1, column, Message(f"缺少必需的列「{column}」", f"missing required column {column!r}"))
            )
            header_ok = False
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            source.problems.append(
                Problem(display, 1, column, Message(f"列「{column}」重复", f"column {column!r} twice"))
            )
            header_ok = False
        seen.add(column)
        if column and column not in known:
            source.problems.append(
                Problem(
                    display,
                    1,
                    column,
                    Message(
                        f"未知的列「{column}」，{game.name}可用的列：{', '.join(game.columns)}",
                        f"unknown column {column!r}; columns for {game.slug}: {', '.join(game.columns)}",
                    ),
                )
            )
            header_ok = False
    if header_ok:
        source.csv_files.append(CsvFile(path, tuple(columns)))


def _iter_csv(csv_file: CsvFile, problems: list[Problem]) -> Iterator[Row]:
    display = csv_file.display
    columns = csv_file.columns
    with _open_text(csv_file.path) as handle:
        reader = csv.reader(handle)
        try:
            next(reader)  # the header, checked by _read_csv
            previous_end = reader.line_num
            for cells in reader:
                line = previous_end + 1
                previous_end = reader.line_num
                if not any(c.strip() for c in cells):
                    continue
                if len(cells) > len(columns):
                    problems.append(
                        Problem(
                            display,
                            line,
                            "-",
                            Message(
                                f"这一行有 {len(cells)} 个字段，比表头多（{len(columns)} 列）；含逗号的字段要加引号",
                                f"{len(cells)} fields but {len(columns)} columns; quote fields that contain commas",
                            ),
                        )
                    )
                    continue
                if len(cells) == len(columns):
                    yield Row(display, line, dict(zip(columns, cells, strict=True)))
                else:  # a short row: the missing cells are empty
                    yield Row(
                        display, line, {column: cells[i] if i < len(cells) else "" for i, column in enumerate(columns)}
                    )
        except csv.Error as error:
            problems.append(
                Problem(display, reader.line_num, "-", Message(f"CSV 格式错误：{error}", f"CSV error: {error}"))
            )
        except UnicodeDecodeError:
            problems.append(_decode_problem(csv_file.path))
        except StopIteration:
            return


def read_json_catalogue(path: Path) -> Source:
    """A JSON card-data file (one set) in a format some game reads (KeyForge community data)."""
    display = str(path)
    source = Source(display, None)
    text, problem = _decode(path.read_bytes(), display)
    if problem or text is None:
        source.problems.append(problem)  # type: ignore[arg-type]  # _decode gives a problem whenever it gives no text
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

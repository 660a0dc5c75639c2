"""A game folder's ``manifest.toml`` (DESIGN §3): the game, its sets, pack templates, formats
and vocabulary, each entry checked as read and every problem located by its line (tomllib keeps
no positions: :class:`ManifestLines` finds them); then the folder's card CSVs' headers.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from catalog.errors import Message
from catalog.games import GAMES, GameModule, get_game
from catalog.ingest.cardfiles import Problem, check_csv, decode
from catalog.ingest.specs import ManifestFormat, SetSpec, Source, StoredVocabulary, TemplateSpec
from catalog.text import fold

SET_KINDS = ("starter", "booster", "theme", "collection")
FORMAT_PARAMS = ("main_min", "main_max", "copy_limit", "extra_max")
# The keys DESIGN §3 defines (plus our ``sample``): anything else is reported, so a typo in a
# key is caught instead of silently ignored.
# (``name``, the catalogue's title, is informational: our sample and synthetic catalogues write it.)
MANIFEST_KEYS = ("game", "name", "sample", "source", "sets", "packs", "formats", "vocabulary")
SOURCE_MAX = 500  # ``source = "…"``: where the catalogue's data comes from
SET_KEYS = ("code", "name", "series", "kind", "release", "description", "pack", "source", "sample")
TEMPLATE_KEYS = ("packs_per_box", "slots", "box_collation")
SLOT_KEYS = ("count", "rarity", "box_collation")


class ManifestLines:
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
    text, problem = decode(raw, display)
    if problem or text is None:
        source.problems.append(problem)  # type: ignore[arg-type]  # decode gives a problem whenever it gives no text
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
    lines = ManifestLines(text)

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
        checked = check_csv(csv_path, game, source.problems)
        if checked is not None:
            source.csv_files.append(checked)
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
    raw: Any, game: GameModule, lines: ManifestLines, problem_at: Any, known: StoredVocabulary
) -> dict[str, Any]:
    """The manifest's ``[vocabulary]`` merged onto the stored one (DESIGN §3,).

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
    lines: ManifestLines,
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
    entry: Any, game: GameModule, line: int, lines: ManifestLines, problem_at: Any
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

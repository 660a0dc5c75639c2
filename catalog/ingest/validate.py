"""The check half of an import: one source against itself and the database (rows parse,
reprints agree, templates can be filled, formats name real cards and sets). Every problem is
collected, located as ``file:line: column``; nothing is written here."""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Self

from sqlmodel import Session, select

from catalog.errors import LunzangError, Message
from catalog.games import GameModule
from catalog.games.base import RowErrors
from catalog.ingest.sources import Problem, Source
from catalog.models import (
    Card,
    CardSet,
    Game,
    Printing,
    table_of,
)
from catalog.text import fold

# The fields that make a card the same rules object. A reprint must agree on all of them.
RULES_FIELDS = (
    "type",
    "subtype",
    "attributes",
    "cost_text",
    "cost",
    "cost_total",
    "attack",
    "defense",
    "level",
    "life",
    "faction",
    "traits",
    "keywords",
    "text",
    "extra",
)
PRINTING_FIELDS = ("card_id", "rarity", "rarity_rank", "flavor", "illustrator", "image", "number_key")

Progress = Callable[[str, int, int], None]


class ImportFailed(LunzangError):
    """The import found problems; nothing was (or may be) written."""

    code = "import_failed"

    def __init__(self, problems: list[Problem]):
        super().__init__(
            Message(
                f"导入失败：{len(problems)} 个错误，未写入任何数据",
                f"import failed: {len(problems)} errors, nothing written",
            )
        )
        self.problems = problems


def card_columns(parsed: dict[str, Any]) -> dict[str, Any]:
    """A parsed card in storage form: attributes as a string, plus the hash of its rules."""
    values = {key: parsed[key] for key in RULES_FIELDS}
    values["attributes"] = "".join(parsed["attributes"])
    values["rules_hash"] = rules_hash(values)
    return values


def rules_hash(values: dict[str, Any]) -> str:
    """A digest of the rules fields: equal cards, equal digests (their values are built in
    a fixed order by the game modules, so ``repr`` is canonical; json.dumps cost 20% of a
    large import). Stored, so a re-import compares digests instead of loading every card."""
    canonical = repr([values.get(key) for key in RULES_FIELDS])
    return hashlib.blake2b(canonical.encode("utf-8"), digest_size=20).hexdigest()


class Plan:
    """Validates one source against the database (:mod:`catalog.ingest.write` writes it)."""

    def __init__(self, session: Session, source: Source, progress: Progress | None):
        assert source.game is not None
        self.session = session
        self.source = source
        self.game: GameModule = source.game
        self.progress = progress
        self.problems: list[Problem] = []
        self.cards: dict[str, tuple[dict[str, Any], Any]] = {}  # name → (storage values, first row)
        self.name_en: dict[str, str] = {}
        self.printings: list[tuple[str, str, str, dict[str, Any], Any]] = []  # set, number, name, fields, row

    def problem(self, file: str, line: int, column: str, zh: str, en: str) -> None:
        self.problems.append(Problem(file, line, column, Message(zh, en)))

    # ---- planning -------------------------------------------------------------------------
    def plan(self) -> Self:
        session, game = self.session, self.game
        self.game_row = session.scalars(select(Game).where(Game.slug == game.slug)).first()
        game_id = self.game_row.id if self.game_row else None
        self.db_sets: dict[str, CardSet] = {}
        self.db_cards: dict[str, dict[str, Any]] = {}
        self.db_printings: dict[tuple[int, str], dict[str, Any]] = {}
        if game_id is not None:
            self.db_sets = {s.code: s for s in session.scalars(select(CardSet).where(CardSet.game_id == game_id))}
            columns = [table_of(Card).c[name] for name in ("id", "name", "name_en", "rules_hash")]
            for row in session.execute(select(*columns).where(table_of(Card).c.game_id == game_id)).mappings():
                self.db_cards[row["name"]] = dict(row)
            pt = table_of(Printing).c
            set_ids = [s.id for s in self.db_sets.values()]
            if set_ids:
                query = select(pt.id, pt.set_id, pt.number, *[pt[f] for f in PRINTING_FIELDS]).where(
                    pt.set_id.in_(set_ids)
                )
                for row in session.execute(query).mappings():
                    self.db_printings[(row["set_id"], row["number"])] = dict(row)
        self._check_rows()
        self._check_reprints_against_database()
        self._check_templates_fillable()
        self._check_formats()
        return self

    def _check_rows(self) -> None:
        known_sets = {s.code for s in self.source.sets} | set(self.db_sets)
        folded_sets = {fold(code): code for code in known_sets}
        seen_numbers: dict[tuple[str, str], Any] = {}
        total = len(self.source.rows)
        for index, row in enumerate(self.source.rows, start=1):
            if self.progress and (index % 5000 == 0 or index == total):
                self.progress("检查", index, total)
            values = row.values
            set_word = values.get("set", "").strip()
            set_code = folded_sets.get(fold(set_word)) if set_word else None
            if set_code is None:
                self.problem(
                    row.file,
                    row.line,
                    "set",
                    f"未知的系列代码「{set_word}」：manifest.toml 和数据库里都没有",
                    f"unknown set code {set_word!r}: not in manifest.toml nor in the database",
                )
            number = values.get("number", "").strip()
            if not number:
                self.problem(row.file, row.line, "number", "编号为空", "the collector number is empty")
            elif set_code is not None:
                key = (set_code, fold(number))
                if key in seen_numbers:
                    first = seen_numbers[key]
                    self.problem(
                        row.file,
                        row.line,
                        "number",
                        f"编号 {number} 在系列 {set_code} 中重复（{first.file}:{first.line} 已有）",
                        f"duplicate number {number} in set {set_code} (first at {first.file}:{first.line})",
                    )
                else:
                    seen_numbers[key] = row
            try:
                parsed = self.game.parse_row(values)
            except RowErrors as errors:
                for error in errors.errors:
                    self.problem(row.file, row.line, error.column, error.message.zh, error.message.en)
                continue
            finally:
                # Parsed, the raw cells are not read again; the row stays only as a place (file,
                # line) for messages. Released, a large import does not hold every row twice.
                row.values = {}
            name = values["name"].strip()
            stored = card_columns(parsed.card)
            if parsed.card.get("name_en"):
                self.name_en.setdefault(name, parsed.card["name_en"])
            if name in self.cards:
                first_values, first_row = self.cards[name]
                differences = (
                    [] if first_values["rules_hash"] == stored["rules_hash"] else _differences(first_values, stored)
                )
                if differences:
                    self.problem(
                        row.file,
                        row.line,
                        differences[0],
                        f"同名卡「{name}」的规则字段与 {first_row.file}:{first_row.line} 不一致："
                        f"{_describe(differences, first_values, stored)}",
                        f"card {name!r} contradicts {first_row.file}:{first_row.line} in {', '.join(differences)}",
                    )
            else:
                self.cards[name] = (stored, row)
            if set_code is not None and number:
                self.printings.append((set_code, number, name, parsed.printing, row))

    def _check_reprints_against_database(self) -> None:
        """A card already in the database, printed in a set this import does not rewrite,
        must keep its rules fields; a card printed only where this import rewrites is
        updated (an erratum)."""
        if not self.db_cards:
            return
        covered: set[tuple[int, str]] = set()
        for set_code, number, _name, _fields, _row in self.printings:
            db_set = self.db_sets.get(set_code)
            if db_set is not None:
                covered.add((db_set.id, number))  # type: ignore[arg-type]  # a set read from the database has its id
        elsewhere: dict[int, tuple[int, str]] = {}
        for (set_id, number), printing in self.db_printings.items():
            if (set_id, number) not in covered:
                elsewhere.setdefault(printing["card_id"], (set_id, number))
        set_codes = {s.id: s.code for s in self.db_sets.values()}
        for name, (stored, row) in self.cards.items():
            existing = self.db_cards.get(name)
            if existing is None or existing["id"] not in elsewhere:
                continue
            if existing["rules_hash"] == stored["rules_hash"]:
                continue
            full = self._full_card(existing["id"])
            differences = _differences(full, stored)
            if differences:
                set_id, number = elsewhere[existing["id"]]
                self.problem(
                    row.file,
                    row.line,
                    differences[0],
                    f"重印卡「{name}」与数据库中已有的同名卡（{set_codes.get(set_id)} {number}）规则字段矛盾："
                    f"{_describe(differences, full, stored)}",
                    f"reprint {name!r} contradicts the existing card ({set_codes.get(set_id)} {number}) "
                    f"in {', '.join(differences)}",
                )

    def _check_templates_fillable(self) -> None:
        templates = {t.name: t for t in self.source.templates}
        rarities_by_set: dict[str, set[str]] = {}
        for set_code, _number, _name, fields, _row in self.printings:
            rarities_by_set.setdefault(set_code, set()).add(fields["rarity"])
        manifest = str(Path(self.source.path) / "manifest.toml")
        for spec in self.source.sets:
            template = templates.get(spec.pack or "")
            if template is None:
                continue
            present = rarities_by_set.get(spec.code, set())
            for slot in template.slots:
                missing = [r for r, weight in slot["rarity"].items() if weight > 0 and r not in present]
                missing += [r for r, n in (slot.get("box_collation") or {}).items() if n > 0 and r not in present]
                if missing:
                    self.problem(
                        manifest,
                        spec.line,
                        "pack",
                        f"系列 {spec.code} 的卡包模板「{template.name}」需要稀有度 "
                        f"{'、'.join(sorted(set(missing)))} 的卡，但该系列没有这种稀有度的卡",
                        f"set {spec.code}: template {template.name!r} needs rarity "
                        f"{', '.join(sorted(set(missing)))} but the set has no such printing",
                    )
                    break

    def _check_formats(self) -> None:
        manifest = str(Path(self.source.path) / "manifest.toml")
        known_sets = {s.code for s in self.source.sets} | set(self.db_sets)
        known_cards = set(self.cards) | set(self.db_cards)
        banned = [name for fmt in self.source.formats for name in fmt.banlist if name not in known_cards]
        folded_cards = {fold(name): name for name in known_cards} if banned else {}
        for fmt in self.source.formats:
            for pattern in fmt.legal_sets:
                if pattern == "*" or any(ch in pattern for ch in "*?["):
                    continue
                if pattern not in known_sets:
                    self.problem(
                        manifest,
                        fmt.line,
                        "legal_sets",
                        f"赛制 {fmt.code} 的合法系列「{pattern}」不存在",
                        f"format {fmt.code}: legal set {pattern!r} does not exist",
                    )
            for card_name in fmt.banlist:
                if card_name not in known_cards and fold(card_name) not in folded_cards:
                    self.problem(
                        manifest,
                        fmt.line,
                        "banlist",
                        f"赛制 {fmt.code} 的禁限卡表中的「{card_name}」不是{self.game.name}的卡",
                        f"format {fmt.code}: ban-list card {card_name!r} is not a {self.game.slug} card",
                    )

    def _full_card(self, card_id: int) -> dict[str, Any]:
        columns = [table_of(Card).c[name] for name in RULES_FIELDS]
        row = self.session.execute(select(*columns).where(table_of(Card).c.id == card_id)).mappings().one()
        return dict(row)

    # ---- writing --------------------------------------------------------------------------


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [key for key in RULES_FIELDS if old.get(key) != new.get(key)]


def _describe(keys: list[str], old: dict[str, Any], new: dict[str, Any]) -> str:
    return "；".join(f"{key}「{_show(old.get(key))}」≠「{_show(new.get(key))}」" for key in keys[:3])


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "|".join(v["label"] if isinstance(v, dict) and "label" in v else str(v) for v in value)
    return "" if value is None else str(value)


def legal_set_codes(patterns: list[str], codes: Iterable[str]) -> list[str]:
    """The set codes a format's ``legal_sets`` (codes, ``*`` and ``M*`` wildcards) admit."""
    return [code for code in codes if any(fnmatch.fnmatchcase(code, p) for p in patterns)]

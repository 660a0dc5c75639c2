"""The checks of a whole source once its rows are checked: reprints against the cards the
database holds elsewhere, pack templates that its sets can fill, formats naming real sets and
cards. Each reads the row check's index (:class:`~catalog.ingest.validate.Plan`) and reports there.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import select
from sqlmodel import Session

from catalog.games import GameModule
from catalog.ingest.bulk import BATCH
from catalog.ingest.cardvalues import RULES_FIELDS
from catalog.ingest.differences import column_word, describe, differing_fields
from catalog.ingest.sources import Source
from catalog.models import Card, CardSet, Game, Printing, table_of
from catalog.text import fold


class CheckedSource(Protocol):
    """What these checks read of the row check (:class:`~catalog.ingest.validate.Plan`)."""

    @property
    def session(self) -> Session: ...
    @property
    def source(self) -> Source: ...
    @property
    def game(self) -> GameModule: ...
    @property
    def game_row(self) -> Game | None: ...
    @property
    def db_sets(self) -> dict[str, CardSet]: ...
    @property
    def db_changed(self) -> dict[int, str]: ...  # database card id → name, for cards whose rules differ
    @property
    def covered(self) -> set[int]: ...  # database printings this import rewrites
    @property
    def cards(self) -> dict[str, Any]: ...
    @property
    def rarities_by_set(self) -> dict[str, set[str]]: ...

    def problem(self, file: str, line: int, column: str, zh: str, en: str) -> None: ...
    def where(self, place: int) -> tuple[str, int]: ...
    def stored_at(self, places: set[int]) -> dict[int, dict[str, Any]]: ...
    def existing_cards(self, names: list[str], columns: tuple[str, ...]) -> Iterator[Any]: ...


def check_reprints_against_database(plan: CheckedSource) -> None:
    """A card already in the database, printed in a set this import does not rewrite,
    must keep its rules fields; a card printed only where this import rewrites is
    updated (an erratum). A game with errata takes the newest set's words instead."""
    if not plan.db_changed or plan.game.errata:
        return
    table = table_of(Printing)
    changed = sorted(plan.db_changed)
    elsewhere: dict[int, tuple[int, str]] = {}
    for start in range(0, len(changed), BATCH):
        query = (
            select(table.c.id, table.c.card_id, table.c.set_id, table.c.number)
            .where(table.c.card_id.in_(changed[start : start + BATCH]))
            .order_by(table.c.set_id, table.c.number)
        )
        for printing_id, card_id, set_id, number in plan.session.execute(query):
            if printing_id not in plan.covered:
                elsewhere.setdefault(card_id, (set_id, number))
    if not elsewhere:
        return
    set_codes = {s.id: s.code for s in plan.db_sets.values()}
    places = {card_id: plan.cards[plan.db_changed[card_id]][1] for card_id in elsewhere}
    stored_by_place = plan.stored_at(set(places.values()))
    for card_id, (set_id, number) in sorted(elsewhere.items(), key=lambda item: places[item[0]]):
        name = plan.db_changed[card_id]
        stored = stored_by_place[places[card_id]]
        full = full_card(plan, card_id)
        differences = differing_fields(full, stored)
        if differences:
            file, line = plan.where(places[card_id])
            plan.problem(
                file,
                line,
                column_word(differences[0], plan.game),
                f"重印卡「{name}」与数据库中已有的同名卡（{set_codes.get(set_id)} {number}）规则字段矛盾："
                f"{describe(differences, full, stored, plan.game)}",
                f"reprint {name!r} contradicts the existing card ({set_codes.get(set_id)} {number}) "
                f"in {', '.join(differences)}",
            )


def check_templates_fillable(plan: CheckedSource) -> None:
    templates = {t.name: t for t in plan.source.templates}
    manifest = str(Path(plan.source.path) / "manifest.toml")
    for spec in plan.source.sets:
        template = templates.get(spec.pack or "")
        if template is None:
            continue
        present = plan.rarities_by_set.get(spec.code, set())
        for slot in template.slots:
            missing = [r for r, weight in slot["rarity"].items() if weight > 0 and r not in present]
            missing += [r for r, n in (slot.get("box_collation") or {}).items() if n > 0 and r not in present]
            if missing:
                plan.problem(
                    manifest,
                    spec.line,
                    "pack",
                    f"系列 {spec.code} 的卡包模板「{template.name}」需要稀有度 "
                    f"{'、'.join(sorted(set(missing)))} 的卡，但该系列没有这种稀有度的卡",
                    f"set {spec.code}: template {template.name!r} needs rarity "
                    f"{', '.join(sorted(set(missing)))} but the set has no such printing",
                )
                break


def check_formats(plan: CheckedSource) -> None:
    manifest = str(Path(plan.source.path) / "manifest.toml")
    known_sets = {s.code for s in plan.source.sets} | set(plan.db_sets)
    banned = list(dict.fromkeys(name for fmt in plan.source.formats for name in fmt.banlist))
    known = {name for name in banned if name in plan.cards}
    known |= {name for (name,) in plan.existing_cards([n for n in banned if n not in known], ("name",))}
    unknown = {fold(name) for name in banned if name not in known}
    folded: set[str] = set()
    if unknown:
        # a ban list may spell a name in the other script: compare folded names
        folded = {key for key in map(fold, plan.cards) if key in unknown}
        if plan.game_row is not None:
            table = table_of(Card)
            keys = sorted(unknown)
            for start in range(0, len(keys), BATCH):
                folded |= set(
                    plan.session.scalars(
                        select(table.c.name_key).where(
                            table.c.game_id == plan.game_row.id, table.c.name_key.in_(keys[start : start + BATCH])
                        )
                    )
                )
    for fmt in plan.source.formats:
        for pattern in fmt.legal_sets:
            if pattern == "*" or any(ch in pattern for ch in "*?["):
                continue
            if pattern not in known_sets:
                plan.problem(
                    manifest,
                    fmt.line,
                    "legal_sets",
                    f"赛制 {fmt.code} 的合法系列「{pattern}」不存在",
                    f"format {fmt.code}: legal set {pattern!r} does not exist",
                )
        for card_name in fmt.banlist:
            if card_name not in known and fold(card_name) not in folded:
                plan.problem(
                    manifest,
                    fmt.line,
                    "banlist",
                    f"赛制 {fmt.code} 的禁限卡表中的「{card_name}」不是{plan.game.name}的卡",
                    f"format {fmt.code}: ban-list card {card_name!r} is not a {plan.game.slug} card",
                )


def full_card(plan: CheckedSource, card_id: int) -> dict[str, Any]:
    columns = [table_of(Card).c[name] for name in RULES_FIELDS]
    row = plan.session.execute(select(*columns).where(table_of(Card).c.id == card_id)).mappings().one()
    return dict(row)


def legal_set_codes(patterns: list[str], codes: Iterable[str]) -> list[str]:
    """The set codes a format's ``legal_sets`` (codes, ``*`` and ``M*`` wildcards) admit."""
    return [code for code in codes if any(fnmatch.fnmatchcase(code, p) for p in patterns)]

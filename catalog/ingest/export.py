"""Open data: the catalogue written back in its own import format (DESIGN §3).

:func:`export_catalogue` writes, for each game asked for, ``<dir>/<game>/manifest.toml`` and one
``<dir>/<game>/cards/<set>.csv`` per set, so that ``lunzang import <dir>/<game>`` into an empty
database gives the same catalogue, and exporting that gives the same bytes. What a game's own
columns hold is that game's knowledge (``GameModule.export_game_fields``); this module only
walks the tables in a fixed order: sets as the manifest listed them, printings as they were
imported (their ids), formats and pack templates by name.

The files carry no formula risk of their own (they are the import format, not a spreadsheet
export): a cell is written exactly as the import would read it back.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from sqlmodel import Session, col, select

from catalog.errors import LunzangError, Message
from catalog.games import GAMES, get_game
from catalog.games.base import COMMON_OPTIONAL, COMMON_REQUIRED, GameModule
from catalog.ingest.cardvalues import RULES_FIELDS
from catalog.models import BanEntry, Card, CardSet, Format, Game, PackTemplate, Printing

# The card fields a game module's ``export_game_fields`` may read (the inverse of its parser):
# the rules fields an import compares, and the names.
CARD_FIELDS = ("name", "name_en", *RULES_FIELDS)


class UnknownGame(LunzangError):
    """``--game`` named no game this catalogue holds."""

    code = "unknown_game"

    def __init__(self, slug: str, known: Iterable[str]):
        names = list(known)
        super().__init__(
            Message(
                f"目录中没有游戏「{slug}」，可用：{'、'.join(names) or '（无）'}",
                f"no game {slug!r} in the catalogue; known: {', '.join(names) or '(none)'}",
            )
        )
        self.slug = slug


@dataclass
class GameExport:
    """What was written for one game."""

    slug: str
    folder: Path
    sets: int = 0
    printings: int = 0
    formats: int = 0
    files: list[Path] = field(default_factory=list)


def export_catalogue(*, session: Session, out: Path, games: Iterable[str] | None = None) -> list[GameExport]:
    """Write every game in ``games`` (default: every game the database holds cards or sets for)
    into ``out`` in the import format. Reads only; the caller owns the transaction."""
    stored = {g.slug: g for g in session.exec(select(Game).order_by(col(Game.slug))).all()}
    wanted: list[str]
    if games is None:
        wanted = [slug for slug in stored if _has_sets(session, stored[slug])]
    else:
        wanted = []
        for slug in games:
            module = get_game(slug)
            canonical = module.slug if module else slug
            if canonical not in stored:
                raise UnknownGame(slug, stored)
            if canonical not in wanted:
                wanted.append(canonical)
    return [_export_game(session, stored[slug], out / slug) for slug in wanted]


def _has_sets(session: Session, game: Game) -> bool:
    return session.exec(select(CardSet.id).where(CardSet.game_id == game.id).limit(1)).first() is not None


def _export_game(session: Session, game: Game, folder: Path) -> GameExport:
    module = get_game(game.slug)
    if module is None:  # a game row the code no longer knows: nothing could import it back
        raise UnknownGame(game.slug, GAMES)
    module = module.with_vocabulary(game.vocabulary)
    result = GameExport(game.slug, folder)
    sets = session.exec(
        select(CardSet).where(CardSet.game_id == game.id).order_by(col(CardSet.position), col(CardSet.id))
    ).all()
    templates = {t.id: t for t in session.exec(select(PackTemplate).where(PackTemplate.game_id == game.id)).all()}
    formats = session.exec(select(Format).where(Format.game_id == game.id).order_by(col(Format.code))).all()
    cards_folder = folder / "cards"
    cards_folder.mkdir(parents=True, exist_ok=True)
    for stale in cards_folder.glob("*.csv"):  # a re-export into the same folder replaces it whole
        stale.unlink()

    manifest = _manifest(session, game, module, sets, templates, formats)
    manifest_path = folder / "manifest.toml"
    manifest_path.write_bytes(tomli_w.dumps(manifest).encode("utf-8"))
    result.files.append(manifest_path)
    result.sets = len(sets)
    result.formats = len(formats)

    columns = columns_of(module)
    used_names: set[str] = set()
    for card_set in sets:
        rows = set_printings(session, card_set)
        buffer = io.StringIO(newline="")
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="raise")
        writer.writeheader()
        for printing, card in rows:
            writer.writerow(printing_row(module, card_set, printing, card))
        path = cards_folder / f"{file_name(card_set.code, used_names)}.csv"
        path.write_bytes(buffer.getvalue().encode("utf-8"))
        result.files.append(path)
        result.printings += len(rows)
    return result


def columns_of(module: GameModule) -> list[str]:
    """The game's card CSV columns, common ones first (DESIGN §3)."""
    return list(dict.fromkeys(COMMON_REQUIRED + COMMON_OPTIONAL + module.game_columns))


def printing_row(module: GameModule, card_set: CardSet, printing: Printing, card: Card) -> dict[str, str]:
    """One printing as a row of the game's card CSV (every column of the game, DESIGN §3)."""
    fields: dict[str, Any] = {name: getattr(card, name) for name in CARD_FIELDS}
    row = dict.fromkeys(columns_of(module), "")
    row.update(
        {
            "set": card_set.code,
            "number": printing.number,
            "name": card.name,
            "rarity": printing.rarity,
            "type": card.type,
            "text": card.text,
            "subtype": card.subtype,
            "flavor": printing.flavor,
            "illustrator": printing.illustrator,
            "image": printing.image,
        }
    )
    row.update({k: v for k, v in module.export_game_fields(fields).items() if k in row})
    return row


_UNSAFE = re.compile(r"[^\w.-]+")


def file_name(code: str, used: set[str]) -> str:
    """A set code as a file name (``S13/SD`` → ``S13_SD``), unique within the folder; the
    importer reads the set from each row's ``set`` column, never from the file's name."""
    base = _UNSAFE.sub("_", code).strip("._") or "set"
    name, n = base, 2
    while name.lower() in used:
        name, n = f"{base}-{n}", n + 1
    used.add(name.lower())
    return name


def _number(value: float | int) -> float | int:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _manifest(
    session: Session,
    game: Game,
    module: GameModule,
    sets: Sequence[CardSet],
    templates: dict[int | None, PackTemplate],
    formats: Sequence[Format],
) -> dict[str, Any]:
    manifest: dict[str, Any] = {"game": game.slug, "name": game.name}
    if sets and all(s.sample for s in sets):
        manifest["sample"] = True
    shared_source = bool(sets) and all(s.source == sets[0].source for s in sets)
    if shared_source and sets[0].source:
        manifest["source"] = sets[0].source
    if game.vocabulary:
        manifest["vocabulary"] = game.vocabulary
    used_templates = sorted({templates[s.pack_template_id].name for s in sets if s.pack_template_id in templates})
    by_name = {t.name: t for t in templates.values()}
    if used_templates:
        manifest["packs"] = {name: _template(by_name[name]) for name in used_templates}
    entries = []
    for card_set in sets:
        entry: dict[str, Any] = {"code": card_set.code, "name": card_set.name}
        if card_set.series:
            entry["series"] = card_set.series
        entry["kind"] = card_set.kind
        if card_set.release:
            entry["release"] = card_set.release
        if card_set.description:
            entry["description"] = card_set.description
        if card_set.sample and "sample" not in manifest:
            entry["sample"] = True  # some sets of this game are ours, some not: each says so
        if not shared_source and card_set.source:
            entry["source"] = card_set.source  # the sets' sources differ: each says its own
        template = templates.get(card_set.pack_template_id)
        if template is not None:
            entry["pack"] = template.name
        entries.append(entry)
    manifest["sets"] = entries
    if formats:
        manifest["formats"] = [_format(session, f) for f in formats]
    return manifest


def _template(template: PackTemplate) -> dict[str, Any]:
    slots = []
    for slot in template.slots:
        out: dict[str, Any] = {
            "count": slot["count"],
            "rarity": {r: _number(w) for r, w in slot["rarity"].items()},
        }
        if slot.get("box_collation"):
            out["box_collation"] = dict(slot["box_collation"])
        slots.append(out)
    return {"packs_per_box": template.packs_per_box, "slots": slots}


def _format(session: Session, fmt: Format) -> dict[str, Any]:
    entry: dict[str, Any] = {"code": fmt.code, "name": fmt.name, "rules": fmt.rules, "legal_sets": list(fmt.legal_sets)}
    bans = session.exec(
        select(Card.name, BanEntry.limit)
        .join(Card, col(Card.id) == col(BanEntry.card_id))
        .where(BanEntry.format_id == fmt.id)
        .order_by(col(Card.name))
    ).all()
    if bans:
        entry["banlist"] = {name: limit for name, limit in bans}
    for key, value in sorted(fmt.params.items()):
        if value is not None:
            entry[key] = value
    return entry


def set_printings(session: Session, card_set: CardSet) -> Sequence[tuple[Printing, Card]]:
    """A set's printings with their cards, in the order the export writes them."""
    return session.exec(
        select(Printing, Card)
        .join(Card, col(Card.id) == col(Printing.card_id))
        .where(Printing.set_id == card_set.id)
        .order_by(col(Printing.id))
    ).all()

"""Curators edit a game's sets and formats (legal sets, ban/limit lists) on the web
through the importer itself: the game is exported in its import format, the one set or format
entry of the manifest is changed, and the folder is imported back — the same checks (series,
kinds, pack templates against the rows, ban-list names, legal-set codes), the same writer, the
same catalogue version. Importing unchanged rows changes nothing (the import is idempotent), so
only what the curator changed moves. Each edit is a revision (``kind`` "set" or "format") with
the entry's cells before and after; a revert puts the old cells back the same way.

Re-importing a whole game costs what an import of it costs (0.15 s for the sample's 永恒之轮);
one use case owning no transaction, like every edit here.
"""

from __future__ import annotations

import tempfile
import tomllib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import tomli_w
from sqlmodel import Session, col, select

from catalog.curation import (
    REVERTERS,
    CurationError,
    NothingChanged,
    NothingToRevise,
    StaleRevert,
    _cell,
    _note,
    _require_curator,
)
from catalog.errors import Message
from catalog.ingest import import_catalogue
from catalog.ingest.export import _format, export_catalogue
from catalog.models import CardSet, CatalogueRevision, Format, Game, PackTemplate, User

SET_COLUMNS = ("name", "series", "kind", "release", "description", "pack", "source")
FORMAT_COLUMNS = ("name", "rules", "legal_sets", "banlist")


def set_cells(session: Session, card_set: CardSet) -> dict[str, str]:
    """The set's manifest entry as text cells (``pack``: the template's name)."""
    template = session.get(PackTemplate, card_set.pack_template_id) if card_set.pack_template_id else None
    return {
        "name": card_set.name,
        "series": card_set.series,
        "kind": card_set.kind,
        "release": card_set.release,
        "description": card_set.description,
        "pack": template.name if template else "",
        "source": card_set.source,
    }


def format_cells(session: Session, fmt: Format) -> dict[str, str]:
    """The format's entry as text cells: legal sets space-separated, the ban list a line per
    card (``卡名=0``: 0 banned, 1 限制, 2 准限制)."""
    entry = _format(session, fmt)
    return {
        "name": fmt.name,
        "rules": fmt.rules,
        "legal_sets": " ".join(entry.get("legal_sets", [])),
        "banlist": "\n".join(f"{name}={limit}" for name, limit in entry.get("banlist", {}).items()),
    }


def edit_set(
    *, session: Session, by: User, set_id: int, cells: dict[str, str], note: str, now: datetime
) -> CatalogueRevision:
    """Change a set's name, series, kind, release, description, pack template or source."""
    _require_curator(by)
    return _edit_set(session, by, set_id, cells, _note(note), now, reverts=None)


def edit_format(
    *, session: Session, by: User, format_id: int, cells: dict[str, str], note: str, now: datetime
) -> CatalogueRevision:
    """Change a format's name, rule kind, legal sets or ban/limit list."""
    _require_curator(by)
    return _edit_format(session, by, format_id, cells, _note(note), now, reverts=None)


def revert_entry(session: Session, by: User, revision: CatalogueRevision, why: str, now: datetime) -> CatalogueRevision:
    """A revert of a set or format revision (called by catalog.curation.revert)."""
    old = {column: pair[0] for column, pair in revision.changes.items()}
    expected = {column: pair[1] for column, pair in revision.changes.items()}
    if revision.kind == "set":
        card_set = _locked_set(session, revision.target_id)
        current = set_cells(session, card_set)
    else:
        current = format_cells(session, _locked_format(session, revision.target_id))
    moved = [column for column, value in expected.items() if current.get(column) != value]
    if moved:
        raise StaleRevert(moved)
    if revision.kind == "set":
        return _edit_set(session, by, revision.target_id, old, why, now, reverts=revision.id)
    return _edit_format(session, by, revision.target_id, old, why, now, reverts=revision.id)


REVERTERS["set"] = REVERTERS["format"] = revert_entry


def _edit_set(
    session: Session, by: User, set_id: int, cells: dict[str, str], why: str, now: datetime, *, reverts: int | None
) -> CatalogueRevision:
    card_set = _locked_set(session, set_id)
    old = set_cells(session, card_set)
    new = {**old, **{c: _cell(cells[c]) for c in SET_COLUMNS if c in cells}}
    changes = {c: [old[c], new[c]] for c in SET_COLUMNS if old[c] != new[c]}
    if not changes:
        raise NothingChanged()

    def change(manifest: dict[str, Any]) -> None:
        entry = next(e for e in manifest["sets"] if e["code"] == card_set.code)
        for column in SET_COLUMNS:
            entry.pop(column, None)
            if new[column]:
                entry[column] = new[column]
        if not new["source"] and manifest.get("source"):
            entry["source"] = ""  # the manifest's shared source no longer holds for this set

    _reimport(session, card_set.game_id, change)
    return _revision(
        session, by, card_set.game_id, "set", set_id, f"{card_set.code} {new['name']}", why, now, changes, reverts
    )


def _edit_format(
    session: Session, by: User, format_id: int, cells: dict[str, str], why: str, now: datetime, *, reverts: int | None
) -> CatalogueRevision:
    fmt = _locked_format(session, format_id)
    old = format_cells(session, fmt)
    new = {**old, **{c: _cell(cells[c]) for c in FORMAT_COLUMNS if c in cells}}
    changes = {c: [old[c], new[c]] for c in FORMAT_COLUMNS if old[c] != new[c]}
    if not changes:
        raise NothingChanged()
    banlist = _banlist(new["banlist"])

    def change(manifest: dict[str, Any]) -> None:
        entry = next(e for e in manifest.get("formats", []) if e["code"] == fmt.code)
        entry["name"], entry["rules"] = new["name"], new["rules"]
        entry["legal_sets"] = new["legal_sets"].replace(",", " ").split()
        entry.pop("banlist", None)
        if banlist:
            entry["banlist"] = banlist

    _reimport(session, fmt.game_id, change)
    return _revision(
        session, by, fmt.game_id, "format", format_id, f"{fmt.code} {new['name']}", why, now, changes, reverts
    )


def _banlist(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, limit = line.rpartition("=")
        if not sep or not name.strip():
            raise CurationError(
                Message(
                    f"禁限卡表第 {number} 行应写成「卡名=0」（0 禁止、1 限制、2 准限制）",
                    f"ban list line {number} must read 'card name=0' (0 banned, 1 limited, 2 semi-limited)",
                )
            )
        value = limit.strip()
        found[name.strip()] = int(value) if value.isdigit() else value  # the importer judges the value
    return found


def _reimport(session: Session, game_id: int, change: Callable[[dict[str, Any]], None]) -> None:
    game = session.get(Game, game_id)
    assert game is not None
    with tempfile.TemporaryDirectory(prefix="lunzang-edit-") as tmp:
        root = Path(tmp)
        export_catalogue(session=session, out=root, games=[game.slug])
        path = root / game.slug / "manifest.toml"
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
        change(manifest)
        path.write_text(tomli_w.dumps(manifest), encoding="utf-8")
        import_catalogue(session=session, paths=[root / game.slug])


def _revision(
    session: Session,
    by: User,
    game_id: int,
    kind: str,
    target_id: int,
    label: str,
    why: str,
    now: datetime,
    changes: dict[str, list[str]],
    reverts: int | None,
) -> CatalogueRevision:
    revision = CatalogueRevision(
        game_id=game_id,
        kind=kind,
        target_id=target_id,
        label=label[:200],
        user_id=by.id,
        created_at=now,
        note=why,
        changes=changes,
        reverts_id=reverts,
    )
    session.add(revision)
    session.flush()
    return revision


def _locked_set(session: Session, set_id: int) -> CardSet:
    card_set = session.exec(select(CardSet).where(CardSet.id == set_id).with_for_update()).first()
    if card_set is None:
        raise NothingToRevise("系列", "set")
    return card_set


def _locked_format(session: Session, format_id: int) -> Format:
    fmt = session.exec(select(Format).where(Format.id == format_id).with_for_update()).first()
    if fmt is None:
        raise NothingToRevise("赛制", "format")
    return fmt


def history_of(session: Session, *, kind: str, target_id: int) -> list[CatalogueRevision]:
    """A set's or format's own revisions, newest first."""
    return list(
        session.exec(
            select(CatalogueRevision)
            .where(CatalogueRevision.kind == kind, CatalogueRevision.target_id == target_id)
            .order_by(col(CatalogueRevision.id).desc())
            .limit(200)
        ).all()
    )


def formats_of(session: Session, game_id: int | None) -> list[Format]:
    """A game's formats by code (the game's sets page lists them with their history)."""
    return list(session.exec(select(Format).where(Format.game_id == game_id).order_by(col(Format.code))).all())

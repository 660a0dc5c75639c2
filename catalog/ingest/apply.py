"""Turning sources into rows: read every source's manifest, then per source check every row
(streamed from the files a chunk at a time, each checked chunk kept for the writer: in memory up
to a bound, past it in a temporary file, see :mod:`~catalog.ingest.spool`), then write the
checked chunks one by one.

The use case :func:`import_catalogue` writes into the session it is given and never
commits; a caller that wants a dry run rolls back. Any problem anywhere raises
:class:`ImportFailed` before the caller could commit, so an import is all or nothing.
Reading is :mod:`catalog.ingest.sources`, checking :mod:`~catalog.ingest.validate`, writing
:mod:`~catalog.ingest.write` (with :mod:`~catalog.ingest.bulk` for large imports).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from catalog.errors import Message
from catalog.games import GAMES
from catalog.ingest.sources import (
    Problem,
    Row,
    Source,
    StoredVocabulary,
    combine_json_sources,
    expand_paths,
    read_source,
)
from catalog.ingest.validate import ImportFailed, Progress
from catalog.ingest.write import ImportReport, PlanWriter
from catalog.models import Card, CardSet, Game, Printing
from catalog.pauses import collector_paused


def import_catalogue(*, session: Session, paths: Iterable[Path], progress: Progress | None = None) -> ImportReport:
    """Import game folders / community JSON files into the catalogue (no commit).

    Idempotent: the second run of the same files changes nothing. Raises
    :class:`ImportFailed` with every problem found, located as ``file:line: column``.
    """
    with collector_paused():
        return _import(session=session, paths=paths, progress=progress)


def _import(*, session: Session, paths: Iterable[Path], progress: Progress | None) -> ImportReport:
    folders, problems = expand_paths(list(paths))
    stored = _stored_vocabularies(session)
    known_names = _known_names(session)
    sources = combine_json_sources([read_source(path, stored) for path in folders], known_names)
    _rename_cards(session, sources, known_names)
    report = ImportReport()
    for source in sources:
        problems.extend(source.problems)
        if source.skipped is not None:
            report.notes.append(source.skipped)
    for source in sources:
        if source.game is None or source.problems:
            continue
        plan = PlanWriter(session, source, progress)
        try:
            plan.plan()
            report.rows += plan.rows
            if plan.read_problems:
                # rows that could not be read: reported alone, as a file that cannot be read is
                problems.extend(plan.read_problems)
                continue
            problems.extend(plan.problems)
            if not problems:
                # Written chunk by chunk into the caller's transaction: a problem found in a later
                # source still raises below, and the caller's rollback undoes this source too.
                plan.write(report)
                if source.game.slug not in report.games:
                    report.games.append(source.game.slug)
        finally:
            plan.close()
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: (p.file, p.line)))
    return report


def _known_names(session: Session) -> dict[str, dict[str, Any]]:
    """Each game that reads a JSON format with cards unified across files: its stored cards by
    English name → (name, faction, ids and Traditional name in ``extra``), so a later set names a
    card the way the catalogue already does and adds to its houses and ids."""
    found: dict[str, dict[str, Any]] = {}
    for game in session.scalars(select(Game)):
        module = GAMES.get(game.slug)
        if module is None or module.json_format is None or module.json_format.unify is None:
            continue
        rows = session.execute(
            select(Card.name_en, Card.name, Card.faction, Card.extra).where(Card.game_id == game.id, Card.name_en != "")
        )
        found[game.slug] = {
            name_en: (
                name,
                faction or "",
                tuple((extra or {}).get("ids") or ()),
                str((extra or {}).get("zhhant") or ""),
            )
            for name_en, name, faction, extra in rows
        }
    return found


def _rename_cards(session: Session, sources: list[Source], known_names: dict[str, dict[str, Any]]) -> None:
    """A card the catalogue holds under its English name (a set without Chinese names came
    first) takes the Chinese name a later set gives it, so both sets' printings are one card."""
    from sqlalchemy import update

    from catalog.ingest.searchrows import with_other_names as _with_other_names
    from catalog.models import CardSearch
    from catalog.text import fold, pinyin_keys, search_keys_text

    for source in sources:
        if source.game is None or source.game.slug not in known_names:
            continue
        known = known_names[source.game.slug]
        renames = {
            row.values["name_en"]: row.values["name"]
            for row in source.json_rows
            if (known.get(row.values.get("name_en", "")) or ("",))[0]
            == row.values.get("name_en")
            != row.values.get("name")
        }
        game_id = session.scalars(select(Game.id).where(Game.slug == source.game.slug)).one()
        for english, name in renames.items():
            card = session.scalars(select(Card).where(Card.game_id == game_id, Card.name == english)).first()
            taken = session.scalars(select(Card.id).where(Card.game_id == game_id, Card.name == name)).first()
            if card is None or taken is not None:
                continue
            pinyin, initials = pinyin_keys(name)
            card.name, card.name_key, card.pinyin, card.initials = name, fold(name), pinyin, initials
            keys = search_keys_text(card.name_key, pinyin, initials, _with_other_names(card.name_en, card.extra))
            session.execute(
                update(CardSearch)
                .where(col(CardSearch.card_id) == card.id)
                .values(name=name, sort_key=pinyin, keys=keys)
            )
            known[english] = (name, *known[english][1:])
        session.flush()


def _stored_vocabularies(session: Session) -> dict[str, StoredVocabulary]:
    """Each imported game's declared words (manifest ``[vocabulary]``), and whether it has
    printings yet (then its ladder in use is the module's default unless one was declared)."""
    found: dict[str, StoredVocabulary] = {}
    for game in session.scalars(select(Game)):
        has = session.execute(
            select(Printing.id).join(CardSet, col(CardSet.id) == col(Printing.set_id)).where(CardSet.game_id == game.id)
        ).first()
        found[game.slug] = StoredVocabulary(dict(game.vocabulary or {}), has is not None)
    return found


def import_rows(*, session: Session, game: str, rows: list[dict[str, str]], label: str) -> ImportReport:
    """Rows of the import format for sets the database already holds, checked and written
    exactly as an import of a file holding them would be (no commit): the one path by which a
    web edit of the catalogue (catalog.curation) reaches the tables, so it can never store what
    an import would refuse. ``label`` names the rows in problems (``label:1: attack: …``).
    Raises :class:`ImportFailed` with every problem found."""
    from catalog.games import get_game

    module = get_game(game)
    stored = session.scalars(select(Game).where(Game.slug == game)).first()
    if module is None or stored is None:
        raise ImportFailed([Problem(label, 1, "game", Message(f"没有游戏「{game}」", f"no game {game!r}"))])
    vocabulary = dict(stored.vocabulary or {})
    source = Source(label, module.with_vocabulary(vocabulary), vocabulary=vocabulary)
    source.json_rows = [Row(label, line, values) for line, values in enumerate(rows, start=1)]
    report = ImportReport()
    plan = PlanWriter(session, source, None)
    try:
        plan.plan()
        problems = plan.read_problems or plan.problems
        if problems:
            raise ImportFailed(sorted(problems, key=lambda p: (p.file, p.line)))
        plan.write(report)
        report.rows = plan.rows
        report.games.append(module.slug)
    finally:
        plan.close()
    return report

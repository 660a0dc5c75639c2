"""Open data on the site: per game, the catalogue in its import format as a zip
(what ``lunzang catalogue export`` writes) and one JSON bulk file (like Scryfall's bulk data),
both crediting the contributors and stating the licence.

Both depend only on the catalogue, so each is built once per catalogue version (moved by every
import and every web edit) and kept as a file named by that version in a folder the caller
gives: a request for a current file reads it, a request after an edit builds the next one. The
database is only read. Files appear by rename (a reader sees a whole file or none); old
versions' files are left for an operator's cleanup (they are a few hundred kB).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.orm import aliased
from sqlmodel import Session, col, func, select

from catalog.ingest.export import UnknownGame, _export_game, _manifest, printing_row, set_printings
from catalog.models import CardSet, CatalogueRevision, Format, Game, PackTemplate, Printing, User

# The project's choice for community contributions (README "Open data"): CC0, so the catalogue
# can be merged into any wiki, app or database without an attribution chain to carry.
LICENCE = {
    "id": "CC0-1.0",
    "name": "CC0 1.0 Universal (Public Domain Dedication)",
    "url": "https://creativecommons.org/publicdomain/zero/1.0/",
    "scope": (
        "Community contributions to the Lunzang catalogue (transcriptions, corrections, structure, "
        "the sample cards we wrote). Card texts, names and art printed by a publisher remain theirs; "
        "this waiver covers only what the contributors made."
    ),
}
KINDS = ("zip", "json")
ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # fixed entry times: the same catalogue gives the same bytes


@dataclass(frozen=True)
class Contributor:
    username: str
    revisions: int  # revisions made (curators) or credited (players whose proposals were adopted)


@dataclass(frozen=True)
class GameData:
    id: int
    slug: str
    name: str
    version: str
    sets: int
    printings: int


def games(session: Session) -> list[GameData]:
    """Every game with at least one set, with what its files would hold."""
    found = []
    for game in session.exec(select(Game).order_by(col(Game.slug))).all():
        sets = session.exec(select(func.count()).select_from(CardSet).where(CardSet.game_id == game.id)).one()
        if not sets:
            continue
        printings = session.exec(
            select(func.count())
            .select_from(Printing)
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .where(CardSet.game_id == game.id)
        ).one()
        assert game.id is not None
        found.append(GameData(game.id, game.slug, game.name, game.catalogue_version, int(sets), int(printings)))
    return found


def contributors(session: Session, game_id: int) -> list[Contributor]:
    """Everyone whose name a revision of this game carries, most revisions first."""
    counts: dict[str, int] = {}
    for column in (CatalogueRevision.user_id, CatalogueRevision.credited_id):
        person = aliased(User)
        rows = session.exec(
            select(person.username, func.count())
            .join(CatalogueRevision, col(person.id) == col(column))
            .where(CatalogueRevision.game_id == game_id)
            .group_by(col(person.username))
        ).all()
        for username, count in rows:
            counts[username] = counts.get(username, 0) + int(count)
    return [Contributor(name, n) for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def data_file(*, session: Session, slug: str, kind: str, cache: Path) -> tuple[Path, str]:
    """The ``kind`` file (zip or json) of the game's current catalogue and that version, built
    into ``cache`` the first time this version is asked for. Raises UnknownGame."""
    game = session.exec(select(Game).where(Game.slug == slug)).first()
    if (
        game is None
        or kind not in KINDS
        or not session.exec(select(CardSet.id).where(CardSet.game_id == game.id)).first()
    ):
        raise UnknownGame(slug, [g.slug for g in games(session)])
    path = cache / f"{game.slug}-{game.catalogue_version}.{kind}"
    if not path.exists():
        build: Callable[[Session, Game], bytes] = _zip if kind == "zip" else _json
        _publish(path, build(session, game))
    return path, game.catalogue_version


def _publish(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".building-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _credits(session: Session, game: Game) -> str:
    assert game.id is not None
    people = contributors(session, game.id)
    lines = [
        f"Lunzang catalogue: {game.name} ({game.slug}), catalogue version {game.catalogue_version}",
        f"Licence: {LICENCE['name']} — {LICENCE['url']}",
        str(LICENCE["scope"]),
        "",
        "Contributors (revisions made or proposed on the site):" if people else "Contributors: none yet.",
        *(f"- {person.username} ({person.revisions})" for person in people),
    ]
    return "\n".join(lines) + "\n"


def _zip(session: Session, game: Game) -> bytes:
    """The game folder as ``lunzang catalogue export`` writes it, plus LICENCE and CONTRIBUTORS."""
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _export_game(session, game, root / game.slug)
        (root / "CREDITS.txt").write_text(_credits(session, game), encoding="utf-8")
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                entry = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=ZIP_TIME)
                entry.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(entry, path.read_bytes())
    return buffer.getvalue()


def _json(session: Session, game: Game) -> bytes:
    """One object: the game, its sets, formats and pack templates as the manifest says them, and
    one entry per printing in the import format's columns (strings, as the CSV holds them)."""
    from catalog.games import get_game

    module = get_game(game.slug)
    assert module is not None and game.id is not None
    module = module.with_vocabulary(game.vocabulary)
    sets = session.exec(
        select(CardSet).where(CardSet.game_id == game.id).order_by(col(CardSet.position), col(CardSet.id))
    ).all()
    templates = {t.id: t for t in session.exec(select(PackTemplate).where(PackTemplate.game_id == game.id)).all()}
    formats = session.exec(select(Format).where(Format.game_id == game.id).order_by(col(Format.code))).all()
    manifest = _manifest(session, game, module, sets, templates, formats)
    cards: list[dict[str, str]] = []
    for card_set in sets:
        rows = set_printings(session, card_set)
        cards.extend(printing_row(module, card_set, printing, card) for printing, card in rows)
    document: dict[str, Any] = {
        "object": "bulk_data",
        "game": game.slug,
        "name": game.name,
        "catalogue_version": game.catalogue_version,
        "licence": LICENCE,
        "contributors": [{"username": p.username, "revisions": p.revisions} for p in contributors(session, game.id)],
        "sample": bool(manifest.get("sample", False)),
        "vocabulary": manifest.get("vocabulary", {}),
        "packs": manifest.get("packs", {}),
        "sets": manifest["sets"],
        "formats": manifest.get("formats", []),
        "cards": cards,
    }
    return json.dumps(document, ensure_ascii=False, indent=1, sort_keys=False).encode("utf-8")

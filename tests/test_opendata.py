"""On the site: per game, the import-format zip and the JSON bulk file, built once
per catalogue version (a download never writes to the database), crediting the contributors and
stating the licence; the zip imports back into an empty database as the same catalogue."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlmodel import Session, select

from catalog import curation
from catalog import db as catalog_db
from catalog.ingest import import_catalogue, opendata
from catalog.models import Card, User
from tests.kits.ingest import catalogue_by_names, empty_tables, export_files
from webapp.db import get_engine

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
CARD = "小红帽·森林歌者"


@pytest.fixture
def cache(sample_app, tmp_path: Path) -> Path:
    sample_app.config["OPENDATA_DIR"] = str(tmp_path / "opendata")
    return tmp_path / "opendata"


def _writes(engine) -> list[str]:
    seen: list[str] = []

    def record(conn, cursor, statement: str, *args) -> None:
        if statement.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    return seen


def test_zip_and_json_per_version_crediting_contributors(
    sample_app, client, make_user, cache: Path, tmp_path: Path
) -> None:
    engine = get_engine(sample_app)
    page = client.get("/catalogue/data").get_data(as_text=True)
    assert "/catalogue/data/samsara.zip" in page and "CC0" in page
    writes = _writes(engine)
    first = client.get("/catalogue/data/samsara.json")
    assert first.status_code == 200 and writes == []  # a download only reads the database
    bulk = json.loads(first.data)
    assert bulk["licence"]["id"] == "CC0-1.0" and bulk["contributors"] == []
    assert any(row["set"] == "M4" and row["number"] == "M4-001" and row["name"] == CARD for row in bulk["cards"])
    assert (
        client.get("/catalogue/data/samsara.json", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    )
    assert len(list(cache.iterdir())) == 1
    # an edit moves the version: the next download is built anew and names the editor
    with Session(engine) as session, session.begin():
        cura = make_user(session, "cura", role="curator")
        card = session.exec(select(Card).where(Card.name == CARD)).one()
        curation.edit_card(session=session, by=cura, card_id=card.id, cells={"attack": "3"}, note="x", now=NOW)
    second = json.loads(client.get("/catalogue/data/samsara.json").data)
    assert second["catalogue_version"] != bulk["catalogue_version"]
    assert second["contributors"] == [{"username": "cura", "revisions": 1}]
    assert any(row["name"] == CARD and row["attack"] == "3" for row in second["cards"])

    # the zip: the game folder as the CLI exports it, plus the credits; it imports back the same
    response = client.get("/catalogue/data/samsara.zip")
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    assert "samsara/manifest.toml" in archive.namelist()
    assert "cura (1)" in archive.read("CREDITS.txt").decode()
    archive.extractall(tmp_path / "unzipped")
    exported = export_files(engine, tmp_path / "cli", ["samsara"])
    unzipped = {
        str(p.relative_to(tmp_path / "unzipped")): p.read_bytes()
        for p in sorted((tmp_path / "unzipped" / "samsara").rglob("*"))
        if p.is_file()
    }
    assert unzipped == exported  # byte for byte what `lunzang catalogue export` writes
    before = catalogue_by_names(engine)
    empty_tables(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[tmp_path / "unzipped" / "samsara"])
    after = catalogue_by_names(engine)
    assert after["cards"] == {key: row for key, row in before["cards"].items() if key[0] == "samsara"}
    assert after["printings"] == [row for row in before["printings"] if row[0] == "samsara"]
    assert export_files(engine, tmp_path / "again", ["samsara"]) == exported


def test_unknown_games_and_kinds_are_a_clear_404(sample_app, client, cache: Path) -> None:
    for path in ("/catalogue/data/nosuch.zip", "/catalogue/data/samsara.exe", "/catalogue/data/..%2f.json"):
        assert client.get(path).status_code == 404
    assert not cache.exists()


def test_contributors_count_both_curators_and_credited_players(sample_catalogue, make_user) -> None:
    from catalog.curation import proposals

    with Session(sample_catalogue) as session, session.begin():
        make_user(session, "cura", role="curator")
        make_user(session, "player")
    with Session(sample_catalogue) as session, session.begin():
        player = session.exec(select(User).where(User.username == "player")).one()
        card = session.exec(select(Card).where(Card.name == CARD)).one()
        proposal = proposals.propose(
            session=session, by=player, kind="card", target_id=card.id, cells={"attack": "4"}, source="x", now=NOW
        )
        cura = session.exec(select(User).where(User.username == "cura")).one()
        proposals.approve(session=session, by=cura, proposal_id=proposal.id, now=NOW)
        people = opendata.contributors(session, card.game_id)
    assert [(p.username, p.revisions) for p in people] == [("cura", 1), ("player", 1)]

"""Result tiles are rendered once per printing and kept (webapp/cards/tiles.py): until
the game's next import, in the reader's language, with the printing's current image; the
buttons under a tile stay the page's own."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.images import scans
from catalog.models import Game, Printing, PrintingScan
from tests.kits.ingest import ROWS, run_import, write_folder
from tests.kits.web import ensure_translations_compiled, page, visible_text
from webapp.cards import tiles

QUERY = "/cards?q=t:战魂"


@pytest.fixture
def web(app, engine: Engine, tmp_path: Path):
    tiles.cache_clear()
    run_import(engine, write_folder(tmp_path / "v1"))
    return app.test_client()


def _tile(markup: str, name: str) -> str:
    """The markup of the tile showing ``name``."""
    return next(t for t in markup.split('<li class="tile"')[1:] if f">{name}</span>" in t).split("</li>")[0]


def _without_tokens(markup: str) -> str:
    """The page without its CSRF tokens (signed with the time: they change by the second)."""
    return re.sub(r'name="csrf_token" value="[^"]*"', "", markup)


def _version(engine: Engine) -> str:
    with Session(engine) as session:
        return session.scalars(select(Game.catalogue_version).where(Game.slug == "samsara")).one()


def test_a_tile_is_kept_and_shows_the_new_data_after_an_import(web, engine: Engine, tmp_path: Path) -> None:
    first = page(web, QUERY)
    assert "进场时抽一张牌。" in visible_text(_tile(first, "火龙"))
    kept = len(tiles._faces)
    assert kept == 2  # 火龙 and 水灵, one face each
    again = page(web, QUERY)
    assert _without_tokens(again) == _without_tokens(first) and len(tiles._faces) == kept  # reused

    before = _version(engine)
    changed = [row.replace("进场时抽一张牌。", "进场时抽两张牌。") for row in ROWS]
    run_import(engine, write_folder(tmp_path / "v2", rows=changed))
    assert _version(engine) != before  # the import made the kept tiles stale
    text = visible_text(_tile(page(web, QUERY), "火龙"))
    assert "进场时抽两张牌。" in text and "进场时抽一张牌。" not in text


def test_each_language_has_its_own_tile(web) -> None:
    ensure_translations_compiled()
    assert "战魂" in visible_text(_tile(page(web, QUERY), "火龙"))
    english = visible_text(_tile(page(web, QUERY + "&lang=en"), "火龙"))
    assert "Soul" in english and "战魂" not in english
    assert "Add one “火龙” to the deck" in _tile(page(web, QUERY + "&lang=en"), "火龙").replace("&#34;", '"')


def test_an_uploaded_scan_changes_the_tile_image(web, engine: Engine) -> None:
    drawn = _tile(page(web, QUERY), "火龙")
    assert "?v=scan-" not in drawn
    with Session(engine) as session, session.begin():
        printing = session.scalars(select(Printing).where(Printing.number == "T1-001")).one()
        now = datetime.now(UTC)
        scan = PrintingScan(printing_id=printing.id, sha256="ab" * 32, width=744, height=1039, uploaded_at=now)
        session.add(scan)
        session.flush()
        scans.catalogue_changed(session, printing.id)  # as add_scan does: kept pages age out
    assert "?v=scan-abababab" in _tile(page(web, QUERY), "火龙")


def test_the_buttons_are_the_page_s_own(web) -> None:
    """Counts and the way back are per page, though the faces are kept."""
    page(web, QUERY)
    with web.session_transaction() as browser:
        browser["working_deck"] = {"game": "samsara", "list": "2 火龙\n"}
    tile = _tile(page(web, QUERY + "&view=grid"), "火龙")
    assert "卡组中 2 张" in visible_text(tile)
    assert 'name="next" value="/cards?q=t:战魂&amp;view=grid#hit-' in tile
    assert "卡组中 0 张" in visible_text(_tile(page(web, QUERY), "水灵"))

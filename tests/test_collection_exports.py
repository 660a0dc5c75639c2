"""exports for Deckbox, ManaBox, Moxfield and a plain XLSX.

Each reads back into us with nothing lost that we store (quantity, for trade, condition,
language, finish), is recognised as its tool by its documented header, and carries no live
formula. Both databases."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import export_collection, export_xlsx, import_collection
from catalog.collection.exports import MANABOX_COLUMNS, MOXFIELD_COLUMNS
from catalog.collection.presets import detect, header_key
from catalog.models import Card
from tests.kits.collection import NOW, committed_user, snapshot

# every condition, language and finish; for-trade 0, some, all; two games
SEED = (
    "set,number,quantity,condition,language,finish,for_trade\n"
    "M4,M4-001,3,NM,简中,普通,2\n"
    "M4,M4-001,1,LP,EN,闪,1\n"
    "M4,M4-002,2,MP,繁中,普通,0\n"
    "M4,M4-003,4,HP,日,闪,4\n"
    "P2,P2-008,1,DMG,简中,闪,0\n"
    "SMP,SMP-001,5,NM,EN,普通,3\n"
)
TOOLS = {"deckbox": "deckbox", "manabox": "manabox", "moxfield": "moxfield", "lunzang": "lunzang"}


@pytest.fixture
def users(sample_catalogue: Engine, make_user) -> tuple[int, int]:
    alice = committed_user(sample_catalogue, make_user, "alice")
    bob = committed_user(sample_catalogue, make_user, "bob")
    with catalog_db.transaction(sample_catalogue) as session:
        import_collection(session=session, user_id=alice, data=SEED.encode(), now=NOW)
    return alice, bob


def _import(engine: Engine, user_id: int, data: bytes, mode: str, dry_run: bool = False):
    with catalog_db.transaction(engine) as session:
        return import_collection(session=session, user_id=user_id, data=data, mode=mode, dry_run=dry_run, now=NOW)


@pytest.mark.parametrize("preset", [*TOOLS, "xlsx"])
def test_an_export_reads_back_with_nothing_lost(sample_catalogue: Engine, users: tuple[int, int], preset: str) -> None:
    alice, bob = users
    with Session(sample_catalogue) as session:
        mine = snapshot(session, alice)
        if preset == "xlsx":
            data = export_xlsx(session=session, user_id=alice)
        else:
            data = export_collection(session=session, user_id=alice, preset=preset).encode()
    again = _import(sample_catalogue, alice, data, "replace", dry_run=True)
    assert not again.changed, again.changes
    if preset != "xlsx":
        assert again.preset == TOOLS[preset]
    _import(sample_catalogue, bob, data, "add")
    with Session(sample_catalogue) as session:
        assert snapshot(session, bob) == mine


@pytest.mark.parametrize(("preset", "columns"), [("manabox", MANABOX_COLUMNS), ("moxfield", MOXFIELD_COLUMNS)])
def test_a_tool_export_has_the_tools_documented_header(
    sample_catalogue: Engine, users: tuple[int, int], preset: str, columns: tuple[str, ...]
) -> None:
    with Session(sample_catalogue) as session:
        text = export_collection(session=session, user_id=users[0], preset=preset)
    header = next(csv.reader(io.StringIO(text)))
    assert tuple(header) == columns
    assert detect([header_key(c) for c in header]).key == preset


def test_manabox_puts_the_copies_for_trade_in_a_trade_binder(sample_catalogue: Engine, users: tuple[int, int]) -> None:
    with Session(sample_catalogue) as session:
        text = export_collection(session=session, user_id=users[0], preset="manabox")
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["Collector number"] == "M4-001" and r["Foil"] == "normal"]
    assert sorted((r["Binder Name"], r["Quantity"], r["Condition"], r["Language"]) for r in rows) == [
        ("Collection", "1", "near_mint", "zh_CN"),
        ("Trade", "2", "near_mint", "zh_CN"),
    ]


def test_the_xlsx_export_has_no_formula_even_for_a_name_that_looks_like_one(
    sample_catalogue: Engine, users: tuple[int, int]
) -> None:
    alice, _bob = users
    with Session(sample_catalogue) as session, session.begin():
        card = session.scalars(select(Card).where(Card.name == "小红帽·森林歌者")).one()
        card.name = "=1+1小红帽"
    with Session(sample_catalogue) as session:
        data = export_xlsx(session=session, user_id=alice)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
        xml = "".join(archive.read(n).decode() for n in sheets)
    assert "<f>" not in xml and "<f " not in xml
    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(data)).worksheets[0]
    names = [row[2] for row in sheet.iter_rows(values_only=True)]
    assert "=1+1小红帽" in names
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row)


def test_the_site_and_the_cli_offer_every_export(sample_app, client, login, runner, tmp_path) -> None:
    alice = login(client)
    from webapp.db import get_engine

    with catalog_db.transaction(get_engine(sample_app)) as session:
        import_collection(session=session, user_id=alice.id, data=SEED.encode(), now=NOW)
    page = client.get("/collection/import").get_data(as_text=True)
    for link in ("preset=manabox", "preset=moxfield", "/collection/export.xlsx"):
        assert link in page
    workbook = client.get("/collection/export.xlsx")
    assert workbook.status_code == 200 and workbook.data[:4] == b"PK\x03\x04"
    assert "attachment" in workbook.headers["Content-Disposition"]
    assert client.get("/collection/export.csv?preset=moxfield").get_data(as_text=True).startswith("\ufeffCount,")
    missing = runner.invoke(args=["collection", "export", "alice", "--preset", "xlsx"])
    assert missing.exit_code == 2 and "--out" in missing.output
    out = tmp_path / "c.xlsx"
    written = runner.invoke(args=["collection", "export", "alice", "--preset", "xlsx", "--out", str(out)])
    assert written.exit_code == 0 and out.read_bytes()[:4] == b"PK\x03\x04"
    manabox = runner.invoke(args=["collection", "export", "alice", "--preset", "manabox"])
    assert manabox.output.startswith("Binder Name,")

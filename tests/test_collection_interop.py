"""Collection CSV round trips with other tools (Deckbox, Excel)."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from sqlmodel import Session

from catalog.collection import export_collection, import_collection
from catalog.collection.csvio import CollectionFileError
from tests.kits.collection import NOW, collection_of, confirm, db, pid, snapshot, upload
from webapp.db import get_engine

SEEDED = "set,number,quantity,condition,for_trade\nM4,M4-001,3,,2\nM4,M4-002,1,LP,1\nP2,P2-008,2,,0\n"


def seed(app: Any, user_id: int, data: str = SEEDED) -> None:
    with Session(get_engine(app)) as session, session.begin():
        import_collection(session=session, user_id=user_id, data=data.encode(), mode="add", now=NOW)


def dry_run(app: Any, user_id: int, data: bytes, mode: str = "replace") -> Any:
    with Session(get_engine(app)) as session:
        return import_collection(session=session, user_id=user_id, data=data, mode=mode, dry_run=True, now=NOW)


# ---------------------------------------------------------------------------- item 11


def test_the_deckbox_preset_carries_the_for_trade_count_both_ways(sample_app, login) -> None:
    alice = login(sample_app.test_client())
    seed(sample_app, alice.id)
    with db(sample_app) as session:
        text = export_collection(session=session, user_id=alice.id, preset="deckbox")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "Tradelist Count" in rows[0]
    assert sorted((r["Card Number"], r["Count"], r["Tradelist Count"]) for r in rows) == [
        ("M4-001", "3", "2"),
        ("M4-002", "1", "1"),
        ("P2-008", "2", "0"),
    ]
    report = dry_run(sample_app, alice.id, text.encode())
    assert report.preset == "deckbox" and not report.changed  # the round trip keeps every for-trade count


@pytest.mark.parametrize(
    "row",
    [
        "1,Sun Wukong,P2,P2-008,Near Mint,Chinese,",  # the pinyin of 孙悟空, as Deckbox users write it
        "1,SUN WUKONG,征天西游,P2-008,Near Mint,Chinese,",  # the set by its name, as Deckbox exports
        "1,孫悟空,P2,P2-008,Near Mint,Chinese,",
    ],
)
def test_a_deckbox_row_with_set_number_and_another_name_of_the_card_imports(sample_app, login, row: str) -> None:
    alice = login(sample_app.test_client())
    data = f"Count,Name,Edition,Card Number,Condition,Language,Foil\n{row}\n".encode()
    report = dry_run(sample_app, alice.id, data, mode="add")
    assert report.lines_added == 1 and report.changes[0]["number"] == "P2-008"


def test_an_english_keyforge_name_matches_its_printing(sample_app, login) -> None:
    alice = login(sample_app.test_client())
    data = b"Count,Name,Edition,Card Number\n2,Summit Fist Champion,SMP,SMP-001\n"
    report = dry_run(sample_app, alice.id, data, mode="add")
    assert report.lines_added == 1 and report.changes[0]["name"] == "山岳拳王"


def test_a_real_name_mismatch_is_still_reported(sample_app, login) -> None:
    alice = login(sample_app.test_client())
    data = b"Count,Name,Edition,Card Number\n1,Zhu Bajie,P2,P2-008\n"
    with pytest.raises(CollectionFileError) as error:
        dry_run(sample_app, alice.id, data, mode="add")
    [problem] = error.value.problems
    assert problem.line == 2 and problem.column == "Name"
    assert "孙悟空" in problem.message.zh and "Zhu Bajie" in problem.message.zh


# ---------------------------------------------------------------------------- item 12


@pytest.mark.parametrize("preset", ["lunzang", "deckbox"])
def test_the_site_download_has_a_bom_for_excel_and_reimports_as_a_no_op(sample_app, client, login, preset: str) -> None:
    alice = login(client)
    seed(sample_app, alice.id)
    before = collection_of(sample_app, alice.id)
    response = client.get(f"/collection/export.csv?preset={preset}")
    body = response.get_data()
    assert body.startswith(b"\xef\xbb\xbf")  # UTF-8 with BOM: Excel on Chinese Windows reads it as UTF-8
    assert response.mimetype == "text/csv" and response.mimetype_params.get("charset") == "utf-8"
    assert "孙悟空" in body.decode("utf-8-sig")
    preview = upload(client, body, mode="replace", name="export.csv").get_data(as_text=True)
    assert "导入不会改变你的收藏" in preview and "确认导入" not in preview
    assert collection_of(sample_app, alice.id) == before


# ---------------------------------------------------------------------------- item 13


def test_the_web_preview_shows_for_trade_changes(sample_app, client, login) -> None:
    alice = login(client)
    seed(sample_app, alice.id)
    data = b"set,number,quantity,condition,for_trade\nM4,M4-001,3,,0\nM4,M4-002,1,LP,1\nP2,P2-008,2,,2\n"
    preview = upload(client, data, mode="replace").get_data(as_text=True)
    assert '<dd class="num" data-count="changed">2</dd>' in preview
    table = re.search(r'<table class="import-changes">.*?</table>', preview, re.S).group(0)
    assert "可交换" in table
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    cells = [re.findall(r"<td[^>]*>(?:<strong>)?([^<]*)", row) for row in rows]
    assert [c[1] for c in cells] == ["M4-001", "P2-008"]
    assert [c[-2:] for c in cells] == [["2", "0"], ["0", "2"]]  # for trade: before → after
    confirm(client, preview)
    with db(sample_app) as session:
        after = snapshot(session, alice.id)
    assert after[(pid(sample_app, "M4", "M4-001"), "NM", "简中", "普通")] == (3, 0)
    assert after[(pid(sample_app, "P2", "P2-008"), "NM", "简中", "普通")] == (2, 2)

"""Collection CSV import/export and the grade vocabularies."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import (
    CollectionFileError,
    ItemGrade,
    NegativeQuantity,
    adjust,
    export_collection,
    import_collection,
    undo_import,
)
from catalog.collection.csvio import MAX_BYTES, decode
from catalog.collection.grades import BadGrade, acceptable, parse_grade
from catalog.collection.imports import ImportNotFound
from catalog.models import CardSet, CollectionImport, Game, LedgerEntry
from tests.kits.collection import NOW, committed_user, owned, printing_id, snapshot
from tests.kits.db import table_counts
from webapp.shapes.collection import ImportReport

HEADER = "set,number,name,quantity,condition,language,finish,for_trade\n"


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("condition", "", "NM"),
        ("condition", "nm", "NM"),
        ("condition", "Near Mint", "NM"),
        ("condition", "Mint", "NM"),
        ("condition", "全新", "NM"),
        ("condition", "Good (Lightly Played)", "LP"),
        ("condition", "lightly-played", "LP"),
        ("condition", "Played", "MP"),
        ("condition", "ＨＰ", "HP"),
        ("condition", "Poor", "DMG"),
        ("condition", "損壞", "DMG"),
        ("condition", "shiny", None),
        ("language", "", "简中"),
        ("language", "简体中文", "简中"),
        ("language", "Chinese", "简中"),
        ("language", "Simplified Chinese", "简中"),
        ("language", "繁體中文", "繁中"),
        ("language", "Traditional Chinese", "繁中"),
        ("language", "zh-TW", "繁中"),
        ("language", "English", "EN"),
        ("language", "英文", "EN"),
        ("language", "日本語", "日"),
        ("language", "Japanese", "日"),
        ("language", "Klingon", None),
        ("finish", "", "普通"),
        ("finish", "foil", "闪"),
        ("finish", "閃卡", "闪"),
        ("finish", "yes", "闪"),
        ("finish", "1", "闪"),
        ("finish", "non-foil", "普通"),
        ("finish", "false", "普通"),
        ("finish", "etched", None),
    ],
)
def test_grade_aliases(kind: str, text: str, expected: str | None) -> None:
    assert parse_grade(kind, text) == expected


def test_grade_parse_and_order() -> None:
    assert ItemGrade.parse("lp", "english", "foil") == ItemGrade("LP", "EN", "闪")
    with pytest.raises(BadGrade) as caught:
        ItemGrade.parse(language="Klingon")
    assert caught.value.field == "language" and "Klingon" in caught.value.message.zh
    assert acceptable("NM", "MP") and acceptable("MP", "MP") and not acceptable("HP", "MP")


# ---------------------------------------------------------------------------- decoding


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (HEADER.encode(), HEADER),
        (b"\xef\xbb\xbf" + HEADER.encode(), HEADER),
        ("set,name\nM4,小红帽·森林歌者\n".encode("gbk"), "set,name\nM4,小红帽·森林歌者\n"),
        ("set,name\nZT1,龍王·誅天\n".encode("gb18030"), "set,name\nZT1,龍王·誅天\n"),
    ],
)
def test_decode_accepts_utf8_bom_and_gbk(data: bytes, expected: str) -> None:
    assert decode(data) == expected


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"x" * (MAX_BYTES + 1), "10 MB"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "二进制"),
        (bytes(range(1, 9)) * 10, "控制字符"),
        (b"set,name\n\xff\xfe\xfd\xfc\n", "编码"),
    ],
)
def test_decode_refuses_large_and_binary_files(data: bytes, fragment: str) -> None:
    with pytest.raises(CollectionFileError) as caught:
        decode(data)
    assert fragment in caught.value.problems[0].message.zh


# ---------------------------------------------------------------------------- importing


@pytest.fixture
def alice(sample_catalogue: Engine, make_user) -> int:
    return committed_user(sample_catalogue, make_user)


def _import(engine: Engine, user_id: int, text: str | bytes, **options) -> object:
    data = text.encode() if isinstance(text, str) else text
    with catalog_db.transaction(engine) as session:
        return import_collection(session=session, user_id=user_id, data=data, filename="c.csv", now=NOW, **options)


def test_import_add_merges_identical_rows_and_resolves_every_way(sample_catalogue: Engine, alice: int) -> None:
    text = (
        HEADER
        + "M4,M4-001,,2,,,,\n"
        + "m4,m4-001,小红帽·森林歌者,1,nm,简体中文,普通,1\n"  # the same item: merged
        + "M4,,小红帽·狼猎手,1,LP,English,foil,0\n"  # set + name
        + "M4,M4-003,,3,,,,\n"
    )
    report = _import(sample_catalogue, alice, text)
    assert (report.rows, report.merged, report.lines_added, report.cards_added) == (4, 1, 3, 7)
    with Session(sample_catalogue) as session:
        assert owned(session, alice, printing_id(session, "M4", "M4-001")) == (3, 1)
        assert owned(session, alice, printing_id(session, "M4", "M4-002"), ItemGrade("LP", "EN", "闪")) == (1, 0)
        assert session.scalar(select(func.count()).select_from(LedgerEntry)) == 3
        assert set(session.scalars(select(LedgerEntry.reason))) == {"import"}
    again = _import(sample_catalogue, alice, text)
    with Session(sample_catalogue) as session:
        assert owned(session, alice, printing_id(session, "M4", "M4-001")) == (6, 2)
    assert again.lines_changed == 3


def test_deckbox_headers_and_gbk(sample_catalogue: Engine, alice: int) -> None:
    text = (
        "Count,Name,Edition,Card Number,Condition,Language,Foil\n"
        "2,小红帽·森林歌者,M4,M4-001,Near Mint,Chinese,\n"
        "1,小红帽·狼猎手,M4,M4-002,Played,English,foil\n"
    )
    report = _import(sample_catalogue, alice, text.encode("gbk"))
    assert report.preset == "deckbox" and report.cards_added == 3
    with Session(sample_catalogue) as session:
        assert owned(session, alice, printing_id(session, "M4", "M4-002"), ItemGrade("MP", "EN", "闪")) == (1, 0)


@pytest.mark.parametrize(
    ("body", "line", "column", "fragment"),
    [
        ("number,quantity\nM4-001,1\n", 1, "set / name", "缺少列"),
        ("set,set\nM4,M4\n", 1, "set", "重复"),
        (HEADER + "M99,M99-001,,1,,,,\n", 2, "set", "未知的系列"),
        (HEADER + "M4,M4-999,,1,,,,\n", 2, "number", "没有编号"),
        (HEADER + "M4,M4-001,亚瑟王,1,,,,\n", 2, "name", "不是「亚瑟王」"),
        (HEADER + "M4,M4-001,,three,,,,\n", 2, "quantity", "不是 0 到 100000"),
        (HEADER + "M4,M4-001,,-1,,,,\n", 2, "quantity", "整数"),
        (HEADER + "M4,M4-001,,1,shiny,,,\n", 2, "condition", "未知的品相"),
        (HEADER + "M4,M4-001,,1,,Klingon,,\n", 2, "language", "未知的语言"),
        (HEADER + "M4,M4-001,,1,,,etched,\n", 2, "finish", "未知的工艺"),
        (HEADER + "M4,M4-001,,1,,,,2\n", 2, "for_trade", "大于数量"),
        (HEADER + "M4,M4-001,,1,,,,,extra\n", 2, "-", "表头只有"),
        (HEADER + "\n\nM4,,,1,,,,\n", 4, "number", "编号或卡名"),
        ("name,quantity\n没有这张卡,1\n", 2, "name", "没有名为"),
        ("", 1, "-", "没有表头"),
        ("Count,Name,Edition,Card Number\n1,小红帽·森林歌者,M4,M4-777\n", 2, "Card Number", "没有编号"),
    ],
)
def test_every_error_has_line_and_column_and_nothing_is_written(
    sample_catalogue: Engine, alice: int, body: str, line: int, column: str, fragment: str
) -> None:
    before = table_counts(sample_catalogue)
    with pytest.raises(CollectionFileError) as caught:
        _import(sample_catalogue, alice, body)
    problem = caught.value.problems[0]
    assert (problem.line, problem.column) == (line, column), problem
    assert fragment in problem.message.zh
    assert problem.message.en
    assert table_counts(sample_catalogue) == before


def test_all_errors_are_reported_at_once(sample_catalogue: Engine, alice: int) -> None:
    body = HEADER + "M4,M4-001,,1,,,,\nM4,M4-999,,1,,,,\nM4,M4-002,,x,bad,,,\n"
    with pytest.raises(CollectionFileError) as caught:
        _import(sample_catalogue, alice, body)
    assert [(p.line, p.column) for p in caught.value.problems] == [(3, "number"), (4, "quantity"), (4, "condition")]


def test_dry_run_reports_and_writes_nothing(sample_catalogue: Engine, alice: int) -> None:
    before = table_counts(sample_catalogue)
    report = _import(sample_catalogue, alice, HEADER + "M4,M4-001,,2,,,,\n", dry_run=True)
    assert report.dry_run and report.import_id is None and report.cards_added == 2
    assert report.changes[0]["name"] == "小红帽·森林歌者" and report.changes[0]["after"] == 2
    json.dumps(ImportReport.of(report).body())
    assert table_counts(sample_catalogue) == before


def test_replace_makes_the_file_the_collection_and_reimporting_an_export_changes_nothing(
    sample_catalogue: Engine, alice: int
) -> None:
    _import(sample_catalogue, alice, HEADER + "M4,M4-001,,2,,,,1\nM4,M4-002,,1,LP,EN,闪,0\nM4,M4-003,,5,,,,\n")
    report = _import(sample_catalogue, alice, HEADER + "M4,M4-001,,3,,,,\nM4,M4-004,,1,,,,\n", mode="replace")
    assert (report.lines_added, report.lines_changed, report.lines_removed) == (1, 1, 2)
    assert {c["number"] for c in report.changes} == {"M4-001", "M4-002", "M4-003", "M4-004"}
    with Session(sample_catalogue) as session:
        assert sorted(snapshot(session, alice).values()) == [(1, 0), (3, 0)]
        exported = export_collection(session=session, user_id=alice)
        deckbox = export_collection(session=session, user_id=alice, preset="deckbox")
        before = snapshot(session, alice)
    assert exported.splitlines()[0] == HEADER.strip()
    assert deckbox.splitlines()[0] == "Count,Tradelist Count,Name,Edition,Card Number,Condition,Language,Foil"
    counts = table_counts(sample_catalogue)
    for text in (exported, deckbox):
        again = _import(sample_catalogue, alice, text, mode="replace")
        assert not again.changed
    with Session(sample_catalogue) as session:
        assert snapshot(session, alice) == before
    counts["collection_import"] += 2  # the two no-op imports are recorded, with no ledger rows
    assert table_counts(sample_catalogue) == counts


def test_undo_an_import(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, delta=1, reason="manual", now=NOW)
    first = _import(sample_catalogue, alice, HEADER + "M4,M4-001,,2,,,,1\nM4,M4-003,,1,,,,\n")
    with catalog_db.transaction(sample_catalogue) as session:
        changes = undo_import(session=session, user_id=alice, import_id=first.import_id, now=NOW)
        assert len(changes) == 2
        assert owned(session, alice, pid) == (1, 0)
        record = session.get(CollectionImport, first.import_id)
        assert record is not None and record.undone_at == NOW
    with pytest.raises(ImportNotFound), catalog_db.transaction(sample_catalogue) as session:
        undo_import(session=session, user_id=alice, import_id=first.import_id, now=NOW)


def test_undo_is_refused_when_cards_were_removed_since(sample_catalogue: Engine, alice: int, make_user) -> None:
    report = _import(sample_catalogue, alice, HEADER + "M4,M4-001,,2,,,,\n")
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, delta=-2, reason="manual", now=NOW)
    before = table_counts(sample_catalogue)
    with pytest.raises(NegativeQuantity) as caught, catalog_db.transaction(sample_catalogue) as session:
        undo_import(session=session, user_id=alice, import_id=report.import_id, now=NOW)
    assert "未作任何改动" in caught.value.message.zh
    assert table_counts(sample_catalogue) == before
    bob = committed_user(sample_catalogue, make_user, "bob")
    with pytest.raises(ImportNotFound), catalog_db.transaction(sample_catalogue) as session:
        undo_import(session=session, user_id=bob, import_id=report.import_id, now=NOW)


def test_a_set_code_in_two_games_needs_the_game_column(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        other = session.scalars(select(Game).where(Game.slug == "longzhiyi")).one()
        session.add(CardSet(game_id=other.id, code="M4", code_key="m4", name="同名系列"))
        assert export_collection(session=session, user_id=alice) == HEADER.replace("\n", "\r\n")
    with pytest.raises(CollectionFileError) as caught:
        _import(sample_catalogue, alice, HEADER + "M4,M4-001,,1,,,,\n")
    assert caught.value.problems[0].column == "set" and "game" in caught.value.problems[0].message.zh
    _import(sample_catalogue, alice, HEADER.strip() + ",game\nM4,M4-001,,2,,,,,samsara\n")
    with Session(sample_catalogue) as session:
        exported = export_collection(session=session, user_id=alice)
        before = snapshot(session, alice)
    assert exported.splitlines()[0].endswith(",game") and exported.splitlines()[1].endswith(",samsara")
    assert not _import(sample_catalogue, alice, exported, mode="replace").changed
    with Session(sample_catalogue) as session:
        assert snapshot(session, alice) == before

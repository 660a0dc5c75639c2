"""The streaming importer: it writes the rows the importer before it wrote,
bad input anywhere still changes nothing, and its memory does not grow with the catalogue
beyond the index of names and numbers every row is checked against."""

from __future__ import annotations

import csv
import gc
import tracemalloc
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from catalog import db as catalog_db
from catalog.ingest import ImportFailed, cardvalues, import_catalogue
from catalog.ingest import spool as ingest_spool
from catalog.ingest import validate as ingest_validate
from catalog.ingest import write as ingest_write
from catalog.ingest.cardfiles import decode as _decode
from catalog.ingest.synth import write_synthetic_catalogue
from tests.kits.catalogue import write_catalogue
from tests.kits.ingest import catalogue_digest, read_rows, scenario, synthetic, write_rows

# What the importer before streaming (main at 62fa96d, which held every row in memory) wrote for
# tests.kits.ingest.scenario, computed with that code on SQLite and PostgreSQL (same digests on
# both). Table: "rows sha256-prefix" of its rows with natural keys in place of ids.
EXPECTED = [
    {
        "game": "1 0e888a437e321842",
        "pack_template": "1 473d221330eb37a1",
        "card_set": "2 c31696a60aa624ec",
        "card": "3 7b37ad10e5e7543a",
        "card_search": "3 f67cc9b3917b19fe",
        "card_text": "3 d636ceaf1fec80bb",
        "card_trait": "3 1eca736dffd4941b",
        "card_keyword": "4 ae4eda2149eb9be4",
        "printing": "4 5e2f4a0ee333ce05",
        "format": "1 5534efff5fec5c00",
        "ban_entry": "2 c1c2af814bc101e9",
    },
    {
        "game": "1 0e888a437e321842",
        "pack_template": "1 473d221330eb37a1",
        "card_set": "14 004c50cab82d646e",
        "card": "5409 7b7417cf6e011e6d",
        "card_search": "5409 1aafae7939f04631",
        "card_text": "5409 86fbcb15c5a5207e",
        "card_trait": "3316 33c3d2eabf4658b6",
        "card_keyword": "1906 d99e989273e93b2f",
        "printing": "6004 c5c5154e3ab3bc41",
        "format": "1 5534efff5fec5c00",
        "ban_entry": "2 c1c2af814bc101e9",
    },
    {
        "game": "1 0e888a437e321842",
        "pack_template": "1 473d221330eb37a1",
        "card_set": "14 004c50cab82d646e",
        "card": "5409 c240ac3cc05a9ab3",
        "card_search": "5409 ddf331f175f742d4",
        "card_text": "5409 3e43f1ee101e2bbf",
        "card_trait": "3316 33c3d2eabf4658b6",
        "card_keyword": "1906 d99e989273e93b2f",
        "printing": "6004 f8e936d6a041fc87",
        "format": "1 5534efff5fec5c00",
        "ban_entry": "2 c1c2af814bc101e9",
    },
]


def run_import(engine: Engine, *paths: Path) -> None:
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=list(paths))


@pytest.mark.parametrize(
    ("lookup", "spool_rows"),
    [("whole sets", None), ("by numbers", 2500)],
    ids=["whole sets, chunks kept in memory", "by numbers, chunks past 2,500 rows in a file"],
)
@pytest.mark.parametrize("bulk", [False, True], ids=["row indexes kept", "indexes rebuilt"])
def test_the_streaming_import_writes_the_rows_the_old_importer_wrote(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bulk: bool, lookup: str, spool_rows: int | None
) -> None:
    """6,000 printings (three chunks, reprints across them), then re-imported with an erratum,
    a rarity change, a renamed card (its old card removed) and a new flavour text; the existing
    printings read a set at a time, and (as a large set is) by the chunk's numbers; the checked
    chunks kept in memory, and (as a large import's are) sent to a file from the second chunk on."""
    if bulk:
        monkeypatch.setattr(ingest_write, "BULK_THRESHOLD", 1000)
    if lookup == "by numbers":
        monkeypatch.setattr(ingest_validate, "WHOLE_SET", 0)
        monkeypatch.setattr(ingest_validate, "WHOLE_SET_FACTOR", 0)
    if spool_rows is not None:
        monkeypatch.setattr(ingest_spool, "SPOOL_ROWS", spool_rows)
    assert scenario(engine, tmp_path, run_import) == EXPECTED


def _one_big_file(root: Path, printings: int) -> tuple[Path, Path]:
    """A synthetic catalogue whose rows are all in one CSV file (the folder, the file)."""
    folder = synthetic(root, printings)
    rows: list[list[str]] = []
    for path in sorted((folder / "cards").glob("*.csv")):
        found = read_rows(path)
        rows += found[1:] if rows else found
        path.unlink()
    big = folder / "cards" / "all.csv"
    write_rows(big, rows)
    return folder, big


def test_a_bad_record_late_in_a_big_file_changes_nothing(sample_catalogue: Engine, tmp_path: Path) -> None:
    folder, big = _one_big_file(tmp_path, 5000)
    rows = read_rows(big)
    rows[-1][3] = "金卡"  # rarity of the very last record
    write_rows(big, rows)
    before = catalogue_digest(sample_catalogue)
    with pytest.raises(ImportFailed) as failure:
        run_import(sample_catalogue, folder)
    (problem,) = failure.value.problems
    assert (problem.file, problem.line, problem.column) == (str(big), len(rows), "rarity")
    assert "未知的稀有度「金卡」" in problem.message.zh
    assert "unknown rarity '金卡'" in problem.message.en
    assert catalogue_digest(sample_catalogue) == before


def test_a_contradiction_late_in_a_big_file_names_the_first_row(engine: Engine, tmp_path: Path) -> None:
    """The first printing's values are not kept: the message reads them again from the file."""
    folder, big = _one_big_file(tmp_path, 5000)
    rows = read_rows(big)
    early = next(i for i in range(1, 100) if rows[i][4] == "战魂" and rows[i][8] != "9")
    rows[-1] = [*rows[-1][:2], *rows[early][2:]]  # the last row reprints an early row's card…
    rows[-1][8] = "9"  # …with another attack
    write_rows(big, rows)
    with pytest.raises(ImportFailed) as failure:
        run_import(engine, folder)
    (problem,) = failure.value.problems
    assert (problem.file, problem.line, problem.column) == (str(big), len(rows), "attack")
    assert f"与 {big}:{early + 1} 不一致：attack「{rows[early][8]}」≠「9」" in problem.message.zh
    assert catalogue_digest(engine)["card"].startswith("0 ")


def test_a_later_source_that_fails_rolls_back_the_one_written_before_it(engine: Engine, tmp_path: Path) -> None:
    """Each source is written as soon as it checks clean; the whole import is still one
    transaction, so a problem in the next source undoes it."""
    good = synthetic(tmp_path / "good", 3000)
    bad = write_catalogue(
        tmp_path / "bad",
        "longzhiyi",
        [{"code": "L1", "name": "一"}],
        {"l1.csv": "set,number,name,rarity,type,text\nL1,1,某人,9,人物,\n"},
    )
    before = catalogue_digest(engine)
    with pytest.raises(ImportFailed) as failure:
        run_import(engine, good, bad)
    assert [p.column for p in failure.value.problems] == ["rarity"]
    assert catalogue_digest(engine) == before


def test_bytes_that_are_not_utf8_late_in_a_file_are_located_as_before(engine: Engine, tmp_path: Path) -> None:
    """Streamed, the file is decoded a block at a time; the problem names the same line and
    byte as decoding the whole file did."""
    folder, big = _one_big_file(tmp_path, 5000)
    data = bytearray(big.read_bytes())
    at = data.rindex(b"\n", 0, len(data) - 200) + 5
    data[at] = 0xFF
    big.write_bytes(b"\xef\xbb\xbf" + bytes(data))
    expected = _decode(big.read_bytes(), str(big))[1]
    with pytest.raises(ImportFailed) as failure:
        run_import(engine, folder)
    assert [str(p) for p in failure.value.problems] == [str(expected)]
    assert catalogue_digest(engine)["printing"].startswith("0 ")


def _peak_of_import(url: str, folder: Path, traced: bool = True) -> int:
    engine = catalog_db.make_engine(url)
    catalog_db.upgrade(engine)
    gc.collect()
    if traced:
        tracemalloc.start()
    try:
        run_import(engine, folder)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        engine.dispose()


def test_import_memory_does_not_grow_with_the_catalogue_beyond_its_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Peak traced memory of importing 1,000 and 5,000 printings in chunks of 500 rows (fresh
    SQLite files, the libraries warmed up first, untraced), the checked chunks kept in memory up
    to one chunk (SPOOL_ROWS, 100,000 by default: the same bound, smaller), in a file past it. The importer that
    held the catalogue grew ~4,100 bytes per printing (8.9 → 83 MB for 2,000 → 20,000
    printings); streaming, what grows is the index of card names and numbers (~460 bytes per
    printing while checking) and ``fold``'s cache of numbers (bounded: 65,536 entries): ~930
    bytes per printing here, and less beyond 65,536 printings. (Chunks kept in memory add ~1.2
    KB per printing of a first import up to the bound: without one this test fails.)"""
    monkeypatch.setattr(ingest_validate, "CHUNK", 500)
    monkeypatch.setattr(ingest_spool, "SPOOL_ROWS", 500)
    warm = write_synthetic_catalogue(tmp_path / "warm", printings=300, seed=9)
    _peak_of_import(f"sqlite:///{tmp_path / 'warm.sqlite3'}", warm, traced=False)
    peaks = {
        n: _peak_of_import(f"sqlite:///{tmp_path / f'{n}.sqlite3'}", synthetic(tmp_path / str(n), n))
        for n in (1000, 5000)
    }
    per_printing = (peaks[5000] - peaks[1000]) / 4000
    print(f"peak {peaks[1000] / 1e6:.1f} MB → {peaks[5000] / 1e6:.1f} MB, {per_printing:.0f} B per printing more")
    assert per_printing < 1500
    assert peaks[5000] < 2.5 * peaks[1000]


def test_rows_are_read_as_they_are_checked(tmp_path: Path) -> None:
    """The source holds no rows: they come from the files each time they are asked for."""
    from catalog.ingest.sources import read_source

    folder, big = _one_big_file(tmp_path, 1200)
    source = read_source(folder)
    assert not source.json_rows and [f.path for f in source.csv_files] == [big]
    rows = source.iter_rows()
    first = next(rows)
    assert (first.file, first.line, first.values["number"]) == (str(big), 2, "X1-0001")
    assert sum(1 for _ in rows) == 1199
    with big.open(encoding="utf-8", newline="") as handle:
        assert sum(1 for _ in csv.reader(handle)) == 1201


@pytest.mark.parametrize("whole_set", [4000, 0], ids=["a set read whole", "by numbers"])
def test_existing_printings_are_the_numbers_asked_for(
    sample_catalogue: Engine, monkeypatch: pytest.MonkeyPatch, whole_set: int
) -> None:
    """Read a set at a time or by numbers, the lookup yields the printings at the numbers named
    and no other (a printing of the set it did not name is not one the import rewrites)."""
    from types import SimpleNamespace

    from sqlalchemy import func, select
    from sqlmodel import Session

    from catalog.models import CardSet, Printing

    monkeypatch.setattr(ingest_validate, "WHOLE_SET", whole_set)
    monkeypatch.setattr(ingest_validate, "WHOLE_SET_FACTOR", 4 if whole_set else 0)
    with Session(sample_catalogue) as session:
        m4 = session.scalars(select(CardSet).where(CardSet.code == "M4")).one()
        numbers = list(session.scalars(select(Printing.number).where(Printing.set_id == m4.id).order_by(Printing.id)))
        size = session.scalar(select(func.count()).select_from(Printing).where(Printing.set_id == m4.id))
        asked = numbers[::3]
        plan = SimpleNamespace(session=session, db_sets={"M4": m4}, db_set_sizes={m4.id: size})
        found = list(ingest_validate.Plan.existing_printings(plan, {"M4": asked}, ("id", "number")))  # type: ignore[arg-type]  # a stand-in for the plan: the lookup reads only these
    assert sorted(row.number for row in found) == sorted(asked) and len(asked) < len(numbers)


def test_an_english_name_given_by_a_later_printing_of_an_unchanged_card_is_written(
    engine: Engine, tmp_path: Path
) -> None:
    """A card's English name is the first one any of its rows gives: when only a reprint gives
    it, a re-import whose rules fields are unchanged still rewrites the card's English name
    (and its search row), and a re-import that gives none keeps the stored one."""
    from sqlalchemy import select

    from catalog.models import Card, CardSearch

    folder = write_catalogue(tmp_path, "keyforge", [{"code": "K1", "name": "一"}, {"code": "K2", "name": "二"}], {})
    header = ["set", "number", "name", "rarity", "type", "house", "amber", "power", "armor", "text", "name_en"]

    def import_with(first: str, later: str) -> tuple[str, str]:
        write_rows(
            folder / "cards" / "k1.csv",
            [header, ["K1", "1", "山岳拳王", "Rare", "生物", "布罗布纳", "0", "6", "1", "", first]],
        )
        write_rows(
            folder / "cards" / "k2.csv",
            [header, ["K2", "1", "山岳拳王", "Rare", "生物", "布罗布纳", "0", "6", "1", "", later]],
        )
        run_import(engine, folder)
        with engine.connect() as connection:
            name_en = connection.execute(select(Card.name_en)).scalar_one()
            keys = connection.execute(select(CardSearch.keys)).scalar_one()
        return name_en, keys

    assert import_with("", "Late")[0] == "Late"
    name_en, keys = import_with("", "Summit")
    assert name_en == "Summit" and "summit" in keys and "late" not in keys
    assert import_with("", "")[0] == "Summit"
    name_en, keys = import_with("Fist", "Other")
    assert name_en == "Fist" and "fist" in keys


def test_the_kept_card_values_are_the_stored_columns_with_the_same_hash() -> None:
    """A checked chunk keeps a card's values as a tuple (card_values): the same values and the
    same rules hash as the stored columns (card_columns) an earlier import wrote."""
    from catalog.games import get_game

    game = get_game("samsara")
    assert game is not None
    rows = [
        {"set": "X1", "number": "1", "name": "龙", "rarity": "R", "type": "战魂", "attribute": "光暗", "cost": "2光"},
        {"set": "X1", "number": "2", "name": "剑", "rarity": "C", "type": "魔法", "traits": "童话", "keywords": "防守"},
    ]
    for row in rows:
        parsed = game.parse_row(row).card
        columns = cardvalues.card_columns(parsed)
        assert cardvalues.card_values(parsed) == tuple(columns[key] for key in cardvalues.STORED_CARD)
        assert columns["attributes"] == "".join(parsed["attributes"])


@pytest.mark.parametrize("limit", [0, 5, 6, 100])
def test_the_spool_gives_the_chunks_back_in_order_and_keeps_at_most_its_bound(limit: int) -> None:
    """Chunks of plain values come back as they were added, in order; while the rows added are
    within the bound they stay in memory (no file), past it every chunk is in the file."""
    chunks = [([("龙", i, None, {"k": [i, "值"]})], [f"X1-{i:04}"], i) for i in range(4)]
    spool = ingest_spool.Spool(limit)
    try:
        for chunk in chunks:
            spool.add(chunk, 2)
            assert len(spool.kept) * 2 <= limit
        assert spool.spilled == (limit < 8)
        assert list(spool) == chunks
        assert not spool.kept
    finally:
        spool.close()

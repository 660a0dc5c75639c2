"""The importer (DESIGN §3): all or nothing, idempotent, every error located and explained."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.ingest import ImportFailed
from catalog.models import BanEntry, Card, CardKeyword, CardSet, CardTrait, Format, PackTemplate, Printing
from tests.kits.db import table_counts
from tests.kits.ingest import HEADER, MANIFEST, ROWS, run_import, write_folder


def failure(engine: Engine, *paths: Path) -> list[str]:
    """Import that must fail; returns the problems as text and checks nothing changed."""
    before = table_counts(engine)
    with pytest.raises(ImportFailed) as error:
        run_import(engine, *paths)
    assert table_counts(engine) == before
    return [str(problem) for problem in error.value.problems]


def test_small_catalogue_imports_with_structure(engine: Engine, tmp_path: Path) -> None:
    report = run_import(engine, write_folder(tmp_path))
    assert (report.sets.added, report.cards.added, report.printings.added, report.formats.added) == (2, 3, 4, 1)
    with Session(engine) as session:
        dragon = session.scalars(select(Card).where(Card.name == "火龙")).one()
        assert dragon.cost == {"火": 2, "无": 1}
        assert dragon.cost_total == 3
        assert dragon.attributes == "火"
        assert dragon.pinyin == "huolong" and dragon.initials == "hl"
        kinds = session.scalars(select(CardKeyword.label).where(CardKeyword.card_id == dragon.id)).all()
        assert sorted(kinds) == ["军团(4)", "飞翔"]
        assert session.scalars(select(CardTrait.trait).where(CardTrait.card_id == dragon.id)).all() == ["龙"]
        # the reprint in T2 is a second printing of the same card
        printings = session.scalars(select(Printing).where(Printing.card_id == dragon.id)).all()
        assert sorted(p.number for p in printings) == ["T1-001", "T2-001"]
        template = session.scalars(select(PackTemplate)).one()
        assert template.packs_per_box == 16 and template.slots[1]["rarity"] == {"C": 40, "R": 60}
        ban = session.scalars(select(BanEntry)).one()
        assert (ban.card_id, ban.limit) == (dragon.id, 1)


def test_reimport_changes_nothing(engine: Engine, tmp_path: Path) -> None:
    folder = write_folder(tmp_path)
    run_import(engine, folder)
    before = table_counts(engine)
    report = run_import(engine, folder)
    assert not report.changed
    assert report.cards.unchanged == 3 and report.printings.unchanged == 4 and report.sets.unchanged == 2
    assert table_counts(engine) == before


def test_erratum_updates_the_card(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, write_folder(tmp_path))
    rows = [r.replace("1水,1,2", "1水,2,2") for r in ROWS]
    report = run_import(engine, write_folder(tmp_path, rows))
    assert (report.cards.updated, report.cards.added) == (1, 0)
    with Session(engine) as session:
        assert session.scalars(select(Card.attack).where(Card.name == "水灵")).one() == 2


def test_renamed_printing_moves_and_orphan_card_goes(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, write_folder(tmp_path))
    rows = [r.replace("风之术", "疾风之术") for r in ROWS]
    report = run_import(engine, write_folder(tmp_path, rows))
    assert report.cards_removed == 1
    with Session(engine) as session:
        names = set(session.scalars(select(Card.name)))
    assert names == {"火龙", "水灵", "疾风之术"}


def _summaries(engine: Engine) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(stored, derived): each card's rarity mask and set count in card_search, and the same
    computed from its printings now."""
    from sqlalchemy import text

    with engine.connect() as connection:
        stored = {
            name: (mask, count)
            for name, mask, count in connection.execute(text("SELECT name, rarity_mask, set_count FROM card_search"))
        }
        derived = {
            name: (mask or 0, count)
            for name, mask, count in connection.execute(
                text(
                    "SELECT c.name, SUM(DISTINCT 1 << p.rarity_rank), COUNT(DISTINCT p.set_id) "
                    "FROM card c JOIN printing p ON p.card_id = c.id GROUP BY c.name"
                )
            )
        }
    return stored, derived


def test_printing_summaries_follow_reprints_renames_and_rarity_changes(engine: Engine, tmp_path: Path) -> None:
    """card_search's rarity mask and set count (what r: and is:reprint read) stay equal to the
    printings through every kind of re-import."""
    run_import(engine, write_folder(tmp_path))
    stored, derived = _summaries(engine)
    assert stored == derived
    assert stored["火龙"][1] == 2 and stored["水灵"][1] == 1  # reprinted in T2
    reprint = "T2,T2-002,水灵,C,战魂,,水,1水,1,2,妖精|元素,护盾(1),"
    steps = [
        [*ROWS, reprint],  # a reprint of an unchanged card
        [r.replace("T2,T2-001,火龙,R", "T2,T2-001,火龙,C") for r in ROWS],  # a rarity changes
        [*ROWS[:3], "T2,T2-001,水灵,R,战魂,,水,1水,1,2,妖精|元素,护盾(1),"],  # a printing moves to another card
        [r.replace("1水,1,2", "1水,2,2") for r in [*ROWS, reprint]],  # an erratum rewrites the search row
    ]
    for number, rows in enumerate(steps):
        run_import(engine, write_folder(tmp_path / str(number), rows))
        stored, derived = _summaries(engine)
        assert stored == derived, f"step {number}"


def test_bom_and_crlf_are_accepted(engine: Engine, tmp_path: Path) -> None:
    folder = write_folder(tmp_path)
    path = folder / "cards" / "cards.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    assert run_import(engine, folder).printings.added == 4


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("T1,T1-009,错稀有,XR,战魂,,火,1火,1,1,,,", "cards.csv:2: rarity: 未知的稀有度「XR」"),
        ("T1,T1-009,错类型,C,怪兽,,火,1火,1,1,,,", "cards.csv:2: type: 未知的类型「怪兽」"),
        ("T1,T1-009,错属性,C,战魂,,金,1火,1,1,,,", "cards.csv:2: attribute: 未知的属性/颜色「金」"),
        ("T1,T1-009,错费用,C,战魂,,火,火2,1,1,,,", "cards.csv:2: cost: 费用「火2」格式错误"),
        ("T1,T1-009,错关键字,C,战魂,,火,1火,1,1,,军团,", "cards.csv:2: keywords: 无法识别的关键字「军团」"),
        ("T9,T9-001,错系列,C,战魂,,火,1火,1,1,,,", "cards.csv:2: set: 未知的系列代码「T9」"),
        ("T1,,无编号,C,战魂,,火,1火,1,1,,,", "cards.csv:2: number: 编号为空"),
        ("T1,T1-009,多字段,C,战魂,,火,1火,1,1,,,,额外", "cards.csv:2: -: 这一行有 14 个字段"),
    ],
)
def test_bad_cells_are_reported_and_nothing_is_written(engine: Engine, tmp_path: Path, row: str, expected: str) -> None:
    run_import(engine, write_folder(tmp_path / "first"))
    problems = failure(engine, write_folder(tmp_path / "second", [row, *ROWS]))
    assert any(expected in p for p in problems), problems


def test_duplicate_number_names_the_first_line(engine: Engine, tmp_path: Path) -> None:
    rows = [*ROWS, "T1,T1-002,另一张,C,战魂,,水,1水,1,1,,,"]
    problems = failure(engine, write_folder(tmp_path, rows))
    assert len(problems) == 1
    assert "cards.csv:6: number: 编号 T1-002 在系列 T1 中重复" in problems[0]
    assert "cards.csv:3" in problems[0]


def test_reprint_contradicting_within_the_import(engine: Engine, tmp_path: Path) -> None:
    rows = [*ROWS[:3], "T2,T2-001,火龙,R,战魂,,火,2火1无,4,3,龙,飞翔|军团(4),进场时抽一张牌。"]
    problems = failure(engine, write_folder(tmp_path, rows))
    assert len(problems) == 1
    assert "cards.csv:5: attack: 同名卡「火龙」的规则字段与" in problems[0]
    assert "attack「3」≠「4」" in problems[0]


def test_reprint_contradicting_the_existing_card(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, write_folder(tmp_path / "a"))
    # A second catalogue folder reprints 火龙 in a new set T3 with other stats, while 火龙's
    # printings in T1/T2 are not part of this import: that is a contradiction, not an erratum.
    manifest = 'game = "samsara"\n[[sets]]\ncode = "T3"\nname = "测试三"\nseries = "G"\nkind = "collection"\n'
    folder = write_folder(
        tmp_path / "b", ["T3,T3-001,火龙,SR,战魂,,火,2火1无,5,5,龙,飞翔|军团(4),进场时抽一张牌。"], manifest=manifest
    )
    problems = failure(engine, folder)
    assert len(problems) == 1
    assert "重印卡「火龙」与数据库中已有的同名卡（T1 T1-001）规则字段矛盾" in problems[0]


def test_missing_and_unknown_columns(engine: Engine, tmp_path: Path) -> None:
    problems = failure(
        engine, write_folder(tmp_path, header=HEADER.replace("rarity,", "").replace("attack", "atack"), rows=[])
    )
    assert any("cards.csv:1: rarity: 缺少必需的列「rarity」" in p for p in problems)
    assert any("cards.csv:1: atack: 未知的列「atack」" in p for p in problems)


def test_non_utf8_file_is_refused_with_the_line(engine: Engine, tmp_path: Path) -> None:
    problems = failure(engine, write_folder(tmp_path, encoding="gbk"))
    assert len(problems) == 1
    assert "cards.csv:2: -: 文件不是 UTF-8 编码" in problems[0]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('game = "samsara"', 'game = "mtg"', "manifest.toml:1: game: 未知的游戏「mtg」"),
        ('series = "G"', 'series = "X"', "manifest.toml:12: series: 永恒之轮的系列类别应为 S、M、P 或 G"),
        ('kind = "collection"', 'kind = "box"', "manifest.toml:13: kind: 未知的系列种类「box」"),
        ('pack = "standard"', 'pack = "jumbo"', "manifest.toml:7: pack: 没有名为「jumbo」的卡包模板"),
        ('code = "T2"', 'code = "T1"', "manifest.toml:10: code: 系列代码 T1 重复"),
        ('banlist = { "火龙" = 1 }', 'banlist = { "冰龙" = 1 }', "banlist: 赛制 standard 的禁限卡表中的「冰龙」"),
        ('banlist = { "火龙" = 1 }', 'banlist = { "火龙" = 5 }', "banlist: 禁限卡表中「火龙」的数量应为 0"),
        ('legal_sets = ["*"]', 'legal_sets = ["T7"]', "legal_sets: 赛制 standard 的合法系列「T7」不存在"),
        ('name = "标准"', 'name = "标准"\nmain_max = "多"', "main_max: main_max 应为非负整数"),
        ('name = "标准"', 'name = "标准"\nrules = "vintage"', "rules: 未知的规则类型「vintage」"),
        (
            "rarity = { C = 40, R = 60 }",
            "rarity = { C = 40, SR = 60 }",
            "manifest.toml:2: pack: 系列 T1 的卡包模板「standard」需要稀有度 SR",
        ),
        ("rarity = { C = 40, R = 60 }", "rarity = { C = 40, QR = 60 }", "未知的稀有度「QR」"),
        ('[[sets]]\ncode = "T1"', '[[sets]\ncode = "T1"', "TOML 语法错误"),
    ],
)
def test_bad_manifest(engine: Engine, tmp_path: Path, old: str, new: str, expected: str) -> None:
    assert old in MANIFEST
    problems = failure(engine, write_folder(tmp_path, manifest=MANIFEST.replace(old, new, 1)))
    assert any(expected in p for p in problems), problems


def test_box_collation_must_fill_the_box(engine: Engine, tmp_path: Path) -> None:
    good = MANIFEST.replace(
        "rarity = { C = 40, R = 60 }", "rarity = { C = 40, R = 60 }\nbox_collation = { C = 6, R = 10 }"
    )
    run_import(engine, write_folder(tmp_path / "ok", manifest=good))
    with Session(engine) as session:
        template = session.scalars(select(PackTemplate)).one()
        assert template.slots[1]["box_collation"] == {"C": 6, "R": 10}
    bad = good.replace("R = 10 }", "R = 9 }")
    problems = failure(engine, write_folder(tmp_path / "bad", manifest=bad))
    assert any("box_collation 合计 15 张，应等于每盒包数 × 卡位张数 = 16" in p for p in problems)


def test_all_errors_are_reported_together(engine: Engine, tmp_path: Path) -> None:
    rows = ["T1,T1-009,甲,XR,战魂,,火,1火,1,1,,,", "T1,T1-010,乙,C,怪兽,,火,1火,1,1,,,", *ROWS]
    problems = failure(engine, write_folder(tmp_path, rows))
    assert [p.split(": ")[0] for p in problems] == [
        f"{tmp_path}/samsara/cards/cards.csv:2",
        f"{tmp_path}/samsara/cards/cards.csv:3",
    ]


def test_missing_path(engine: Engine, tmp_path: Path) -> None:
    problems = failure(engine, tmp_path / "nowhere")
    assert problems == [f"{tmp_path}/nowhere:0: -: 路径不存在"]


def test_multiline_quoted_field_keeps_line_numbers(engine: Engine, tmp_path: Path) -> None:
    rows = ['T1,T1-009,甲,C,战魂,,火,1火,1,1,,,"第一行\n第二行"', "T1,T1-010,乙,XR,战魂,,火,1火,1,1,,,"]
    problems = failure(engine, write_folder(tmp_path, rows))
    assert any("cards.csv:4: rarity" in p for p in problems), problems


def test_sample_catalogue_imports_idempotently(sample_catalogue: Engine) -> None:
    before = table_counts(sample_catalogue)
    from tests.conftest import SAMPLE

    report = run_import(sample_catalogue, SAMPLE)
    assert not report.changed
    assert table_counts(sample_catalogue) == before
    assert before["card_set"] >= 27 and before["format"] >= 6


def test_formats_and_params_are_stored(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        m8 = session.scalars(select(Format).where(Format.code == "m8")).one()
        assert m8.rules == "standard" and m8.params == {"extra_max": 15}
        assert "M8" in m8.legal_sets
        assert session.scalar(select(func.count()).select_from(BanEntry).where(BanEntry.format_id == m8.id)) == 3
        sets = session.scalars(select(CardSet.code).where(CardSet.pack_template_id.is_not(None))).all()
        assert {"M4", "M8", "P1", "G2"} <= set(sets)

"""``lunzang collection import|export|undo``."""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session

from catalog.collection import export_collection
from tests.kits.collection import committed_user, owned, printing_id
from tests.kits.db import table_counts
from webapp.db import get_engine

HEADER = "set,number,name,quantity,condition,language,finish,for_trade\n"


def _setup(app, make_user, tmp_path: Path, body: str, encoding: str = "utf-8") -> tuple[int, Path]:
    with app.app_context():
        user_id = committed_user(get_engine(), make_user, "Alice")
    path = tmp_path / "mine.csv"
    path.write_bytes(body.encode(encoding))
    return user_id, path


def test_import_dry_run_then_real_then_export_and_undo(sample_app, runner, make_user, tmp_path: Path) -> None:
    user_id, path = _setup(
        sample_app, make_user, tmp_path, "\ufeff" + HEADER + "M4,M4-001,,2,,,,1\nM4,M4-002,,1,LP,英文,闪,\n"
    )
    with sample_app.app_context():
        engine = get_engine()
        before = table_counts(engine)
    dry = runner.invoke(args=["collection", "import", "alice", str(path), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "试运行" in dry.output and "M4 M4-001 小红帽·森林歌者 NM/简中/普通：0 → 2" in dry.output
    with sample_app.app_context():
        assert table_counts(get_engine()) == before
    real = runner.invoke(args=["collection", "import", "ALICE", str(path), "--json"])
    assert real.exit_code == 0, real.output
    report = json.loads(real.output)
    assert report["cards_added"] == 3 and report["import_id"] == 1 and not report["dry_run"]
    exported = runner.invoke(args=["collection", "export", "alice"])
    assert exported.exit_code == 0
    with sample_app.app_context(), Session(get_engine()) as session:
        assert exported.output.splitlines() == export_collection(session=session, user_id=user_id).splitlines()
        assert exported.output.splitlines()[1] == "M4,M4-001,小红帽·森林歌者,2,NM,简中,普通,1"
        pid = printing_id(session, "M4", "M4-001")
        assert owned(session, user_id, pid) == (2, 1)
    deckbox = runner.invoke(args=["collection", "export", "alice", "--preset", "deckbox"])
    assert deckbox.output.startswith("Count,Tradelist Count,Name,Edition,Card Number,Condition,Language,Foil")
    undo = runner.invoke(args=["collection", "undo", "alice", "1"])
    assert undo.exit_code == 0 and "已撤销导入 #1" in undo.output
    again = runner.invoke(args=["collection", "undo", "alice", "1"])
    assert again.exit_code == 2 and "已经撤销" in again.output
    with sample_app.app_context(), Session(get_engine()) as session:
        assert owned(session, user_id, pid) == (0, 0)


def test_import_errors_are_listed_with_file_line_column(sample_app, runner, make_user, tmp_path: Path) -> None:
    _user, path = _setup(sample_app, make_user, tmp_path, HEADER + "M4,M4-999,,1,,,,\nM4,M4-001,,1,shiny,,,\n", "gbk")
    with sample_app.app_context():
        before = table_counts(get_engine())
    result = runner.invoke(args=["collection", "import", "alice", str(path), "--mode", "replace"])
    assert result.exit_code == 2
    assert f"{path}:2: number: 系列 M4 中没有编号 M4-999" in result.output
    assert f"{path}:3: condition: 未知的品相「shiny」" in result.output
    as_json = runner.invoke(args=["collection", "import", "alice", str(path), "--json"])
    assert as_json.exit_code == 2
    details = json.loads(as_json.output)["error"]["details"]
    assert [(d["line"], d["column"]) for d in details] == [(2, "number"), (3, "condition")]
    with sample_app.app_context():
        assert table_counts(get_engine()) == before


def test_unknown_user_and_binary_file(sample_app, runner, make_user, tmp_path: Path) -> None:
    _user, path = _setup(sample_app, make_user, tmp_path, HEADER)
    result = runner.invoke(args=["collection", "export", "nobody"])
    assert result.exit_code == 2 and "nobody" in result.output
    path.write_bytes(b"\x00\x01binary")
    binary = runner.invoke(args=["collection", "import", "alice", str(path)])
    assert binary.exit_code == 2 and "二进制" in binary.output
    missing = runner.invoke(args=["collection", "import", "alice", str(tmp_path / "none.csv")])
    assert missing.exit_code == 2 and "无法读取" in missing.output


def test_a_tool_file_lists_its_ignored_columns_and_map_names_an_unknown_header(
    sample_app, runner, make_user, tmp_path: Path
) -> None:
    """the --json report lists the ignored columns; --map names columns."""
    manabox = (
        "Binder Name,Binder Type,Name,Set code,Set name,Collector number,Foil,Rarity,Quantity,ManaBox ID,"
        "Scryfall ID,Purchase price,Misprint,Altered,Condition,Language,Purchase price currency\n"
        "Main,binder,Summit Fist Champion,SMP,x,1,normal,rare,2,1,a,,false,false,near_mint,zh_CN,USD\n"
    )
    user_id, path = _setup(sample_app, make_user, tmp_path, manabox)
    result = runner.invoke(args=["collection", "import", "alice", str(path), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["preset"] == "manabox" and "Scryfall ID" in report["ignored_columns"]
    text = runner.invoke(args=["collection", "import", "alice", str(path), "--dry-run"])
    assert "ManaBox" in text.output and "未使用的列（已忽略）" in text.output
    path.write_text("Karte,Stück,Notiz\n山岳拳王,3,x\n", encoding="utf-8")
    refused = runner.invoke(args=["collection", "import", "alice", str(path), "--json"])
    assert refused.exit_code == 2
    error = json.loads(refused.output)["error"]
    assert error["code"] == "unrecognised_header" and error["header"] == ["Karte", "Stück", "Notiz"]
    assert error["sample"] == [["山岳拳王", "3", "x"]]
    bad = runner.invoke(args=["collection", "import", "alice", str(path), "--map", "Karte=colour"])
    assert bad.exit_code != 0 and "未知的字段" in bad.output and "Traceback" not in bad.output
    mapped = runner.invoke(
        args=["collection", "import", "alice", str(path), "--map", "Karte=name,Stück=quantity,Notiz=ignore"]
    )
    assert mapped.exit_code == 0, mapped.output
    with sample_app.app_context(), Session(get_engine()) as session:
        assert owned(session, user_id, printing_id(session, "SMP", "SMP-001")) == (3, 0)

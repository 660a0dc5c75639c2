"""The ``lunzang`` command line, run through Flask's CLI runner and as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy.engine import Engine

from tests.conftest import ROOT, SAMPLE
from tests.kits.db import table_counts
from tests.kits.ingest import write_folder


def test_init_db_with_sample_imports_once(runner, engine: Engine) -> None:
    result = runner.invoke(args=["init-db", "--with-sample"])
    assert result.exit_code == 0, result.output
    assert "导入完成" in result.output
    counts = table_counts(engine)
    assert counts["printing"] > 700
    again = runner.invoke(args=["init-db", "--with-sample"])
    assert again.exit_code == 0 and "不导入样例数据" in again.output
    assert table_counts(engine) == counts


def test_import_summary_and_dry_run(runner, engine: Engine) -> None:
    dry = runner.invoke(args=["import", "--dry-run", str(SAMPLE / "longzhiyi")])
    assert dry.exit_code == 0, dry.output
    assert "试运行" in dry.output and "卡牌：新增 50" in dry.output
    assert table_counts(engine)["card"] == 0 and table_counts(engine)["printing_order"] == 0
    real = runner.invoke(args=["import", str(SAMPLE / "longzhiyi")])
    assert real.exit_code == 0 and "卡牌：新增 50" in real.output
    assert table_counts(engine)["card"] == 50
    # the collection page's orders of the new catalogue, stored after the import's transaction
    assert table_counts(engine)["printing_order"] == 2 and "收藏页的排序已备好" in real.output


def test_import_leaves_postgres_catalogue_pages_all_visible(runner, engine: Engine) -> None:
    """After committing, ``lunzang import`` vacuums the catalogue tables on PostgreSQL (search
    scans then skip each row's visibility test); on SQLite there is nothing to do."""
    from sqlalchemy import text

    result = runner.invoke(args=["import", str(SAMPLE / "longzhiyi")])
    assert result.exit_code == 0, result.output
    if engine.dialect.name != "postgresql":
        return
    with engine.connect() as connection:
        pages = connection.execute(
            text(
                "SELECT relname, relpages, relallvisible FROM pg_class WHERE relname IN"
                " ('card', 'printing', 'card_search', 'card_text') AND relnamespace = current_schema()::regnamespace"
            )
        ).all()
    assert len(pages) == 4 and all(visible == count > 0 for _name, count, visible in pages), pages


def test_import_errors_exit_1_and_write_nothing(runner, engine: Engine, tmp_path: Path) -> None:
    folder = write_folder(tmp_path, ["T1,T1-009,甲,XR,战魂,,火,1火,1,1,,,"])
    before = table_counts(engine)
    result = runner.invoke(args=["import", str(folder)])
    assert result.exit_code == 1
    assert f"{folder}/cards/cards.csv:2: rarity: 未知的稀有度「XR」" in result.output
    assert "数据库未作任何改动" in result.output
    assert table_counts(engine) == before


def _lunzang(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
        timeout=120,
    )


def test_bad_database_url_is_one_clear_line(tmp_path: Path) -> None:
    result = _lunzang("init-db", env={"DATABASE_URL": "nosuchdb://x"})
    assert result.returncode == 2
    assert result.stderr.strip().startswith("错误：无法识别的数据库地址 DATABASE_URL")
    assert "Traceback" not in result.stderr
    missing = _lunzang("init-db", env={"DATABASE_URL": f"sqlite:///{tmp_path}/no/such/dir/x.db"})
    assert missing.returncode == 2 and "数据库所在目录不存在" in missing.stderr
    refused = _lunzang("init-db", env={"DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/x"})
    assert refused.returncode == 2 and "无法连接数据库" in refused.stderr
    assert "Traceback" not in missing.stderr + refused.stderr


def test_synth_writes_an_importable_catalogue(runner, engine: Engine, tmp_path: Path) -> None:
    result = runner.invoke(args=["demo", "synth", "--printings", "1200", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    runner.invoke(args=["demo", "synth", "--printings", "1200", "--out", str(tmp_path / "b")])
    first = sorted((tmp_path / "a" / "samsara-synth" / "cards").iterdir())
    second = sorted((tmp_path / "b" / "samsara-synth" / "cards").iterdir())
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]  # deterministic
    imported = runner.invoke(args=["import", str(tmp_path / "a" / "samsara-synth")])
    assert imported.exit_code == 0, imported.output
    assert "印刷：新增 1200" in imported.output
    counts = table_counts(engine)
    assert counts["printing"] == 1200 and counts["card"] < 1200  # some rows are reprints
    assert runner.invoke(args=["demo", "synth", "--printings", "0", "--out", str(tmp_path)]).exit_code == 2


def test_a_command_before_init_db_says_to_run_it(tmp_path: Path) -> None:
    """``lunzang search`` (or any command) on a database that has no tables yet: one line that
    says what to do and exit status 2, not a traceback."""
    url = f"sqlite:///{tmp_path}/empty.db"
    for args in (("search", "孙悟空"), ("deck", "check", "-"), ("collection", "export", "x")):
        result = _lunzang(*args, env={"DATABASE_URL": url})
        assert result.returncode == 2, (args, result.stderr)
        assert "先运行 lunzang init-db" in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr

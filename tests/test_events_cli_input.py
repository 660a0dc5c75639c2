"""``lunzang event …`` refuses huge numbers and unusable text with one clear
line and exit status 2 — no traceback (PostgreSQL refused them with a SQLAlchemy one) — and
changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kits.db import table_counts
from webapp.db import get_engine

HUGE = "9" * 20


@pytest.fixture
def paired(sample_app: Any, runner: Any) -> str:
    """An event of four walk-ins, round 1 paired."""
    made = runner.invoke(args=["event", "create", "--name", "月赛", "--game", "samsara", "--format", "standard",
                               "--date", "2026-11-28", "--store", "卡牌竞技场", "--deck-policy", "flag"])  # fmt: skip
    assert made.exit_code == 0, made.output
    event = made.output.strip()
    for name in ("P1", "P2", "P3", "P4"):
        assert runner.invoke(args=["event", "register", event, name]).exit_code == 0
    assert runner.invoke(args=["event", "pair", event, "--seed", "1"]).exit_code == 0
    return event


def _refused(sample_app: Any, runner: Any, args: list[str], *words: str) -> str:
    before = table_counts(get_engine(sample_app))
    result = runner.invoke(args=args)
    assert result.exit_code == 2, (args, result.exit_code, result.output, result.exception)
    assert not (result.exception and not isinstance(result.exception, SystemExit)), repr(result.exception)
    for word in words:
        assert word in result.output, (word, result.output)
    assert table_counts(get_engine(sample_app)) == before
    return str(result.output)


@pytest.mark.parametrize(
    "args",
    [
        ["report", "{e}", "--round", HUGE, "--table", "1", "--result", "2-0-0"],
        ["report", "{e}", "--round", "1", "--table", HUGE, "--result", "2-0-0"],
        ["report", "{e}", "--round", str(2**31), "--table", "1", "--result", "2-0-0"],
        ["report", "{e}", "--round", "1", "--table", "1", "--result", f"{HUGE}-0-0"],
        ["report", "{e}", "--round", "1_0", "--table", "1", "--result", "2-0-0"],
        ["report", "{e}", "--round", "²", "--table", "1", "--result", "2-0-0"],
        ["standings", HUGE, "--json"],
        ["standings", "{e}", "--round", HUGE, "--json"],
        ["drop", HUGE, "P1"],
        ["finish", str(2**31)],
        ["register", HUGE, "P9"],
        ["pair", str(2**40)],
        ["export", HUGE, "--out", "x.csv"],
    ],
)
def test_huge_numbers_on_the_command_line_exit_2(sample_app: Any, runner: Any, paired: str, args: list[str]) -> None:
    _refused(sample_app, runner, ["event", *[a.replace("{e}", paired) for a in args]])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (f"table,player_a,player_b,wins_a,wins_b,draws\n{HUGE},P1,P2,2,0,0\n", ["table", "2"]),
        (f"table,player_a,player_b,wins_a,wins_b,draws\n1,P1,P2,{HUGE},0,0\n", ["wins_a", "2"]),
        ("table,player_a,player_b,wins_a,wins_b,draws\n１,P1,P2,2,0,0\n", ["table"]),
        ("table,player_a,player_b,wins_a,wins_b,draws\n1,P1\x00,P2,2,0,0\n", ["2"]),
        ("table,player_a,player_b,wins_a,wins_b,draws\n1,P1," + "x" * 200_000 + ",2,0,0\n", ["2"]),
    ],
)
def test_a_report_csv_with_huge_numbers_or_nul_exits_2(
    sample_app: Any, runner: Any, paired: str, tmp_path: Path, body: str, words: list[str]
) -> None:
    sheet = tmp_path / "r.csv"
    sheet.write_text(body, encoding="utf-8")
    _refused(sample_app, runner, ["event", "report", paired, "--round", "1", "--file", str(sheet)], *words)


@pytest.mark.parametrize(
    "body",
    [
        "table,player_a,player_b\n1,P1\x00,P2\n2,P3,P4\n",
        f"table,player_a,player_b\n{HUGE},P1,P2\n2,P3,P4\n",
        "table,player_a,player_b\n²,P1,P2\n2,P3,P4\n",
    ],
)
def test_a_pairings_csv_with_nul_or_huge_numbers_exits_2(
    sample_app: Any, runner: Any, tmp_path: Path, body: str
) -> None:
    made = runner.invoke(args=["event", "create", "--name", "月赛", "--game", "samsara", "--format", "standard",
                               "--date", "2026-11-28"])  # fmt: skip
    event = made.output.strip()
    for name in ("P1", "P2", "P3", "P4"):
        assert runner.invoke(args=["event", "register", event, name]).exit_code == 0
    sheet = tmp_path / "p.csv"
    sheet.write_text(body, encoding="utf-8")
    _refused(sample_app, runner, ["event", "pair", event, "--from", str(sheet)], "2")


def test_a_deck_file_with_nul_exits_2(sample_app: Any, runner: Any, paired: str, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("主卡组:\n3 亚瑟王\x00\n", encoding="utf-8")
    made = runner.invoke(args=["event", "create", "--name", "月赛", "--game", "samsara", "--date", "2026-11-28"])
    _refused(sample_app, runner, ["event", "register", made.output.strip(), "P9", "--deck", str(deck)])


def test_a_csv_header_the_csv_module_cannot_read_exits_2(
    sample_app: Any, runner: Any, paired: str, tmp_path: Path
) -> None:
    sheet = tmp_path / "r.csv"
    sheet.write_text("table,player_a," + "x" * 200_000 + "\n1,P1,P2\n", encoding="utf-8")
    _refused(sample_app, runner, ["event", "report", paired, "--round", "1", "--file", str(sheet)], "第 1 行")

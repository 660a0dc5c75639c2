"""Command-line start-up (``make bench``): whole-process wall time of ``lunzang --help``,
``lunzang search 孙悟空`` and ``lunzang deck check`` on the sample catalogue, median of
``BENCH_CLI_RUNS`` runs after two warm-up runs, next to the floor (a Python that imports Flask,
SQLAlchemy, SQLModel and click, which every command needs) and ``python -c pass``.

Targets on a quiet 2-core machine: ``--help`` ≤ 0.5 s, ``search`` and ``deck check`` ≤ 0.7 s
(the floor was 0.36 s). The ratio to the floor is printed too: it holds better than seconds
on a loaded machine. Bytecode is written and reused (``PYTHONDONTWRITEBYTECODE`` is dropped
for these runs), as in an installed ``lunzang``. Prints figures; asserts only that every
command succeeded. Which modules a command loads is checked in tests/test_startup.py.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy.engine import Engine

from tests.conftest import ROOT
from tests.kits.deck import legal_samsara_list

RUNS = int(os.environ.get("BENCH_CLI_RUNS", "10"))
WARMUP = 2
FLOOR = "import flask, sqlalchemy, sqlmodel, click"
# The floor's last ~0.3 s here (session 9) is the interpreter collecting the libraries' objects
# as it exits; a lunzang command freezes the objects of its start (webapp/cli_index.py
# gc_paused) and skips that. The same imports with the collector paused and frozen, as a
# command makes them, are printed beside it: what a command really adds to its libraries.
FLOOR_FROZEN = "import gc; gc.disable(); import flask, sqlalchemy, sqlmodel, click; gc.freeze(); gc.enable()"
LUNZANG = [sys.executable, "-m", "webapp"]
# Another checkout to time in the same run (before/after): its folder, e.g. ``git archive main``
# unpacked somewhere. Its commands run with that folder first on the path, this venv's packages.
COMPARE = os.environ.get("BENCH_CLI_COMPARE", "")


def _time_all(commands: dict[str, tuple[list[str], dict[str, str], Path]]) -> dict[str, list[tuple[float, float]]]:
    """(wall seconds, CPU seconds of the child) of each run. The commands take turns, run after
    run, so a change of the machine's load weighs on all of them alike."""
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for run in range(WARMUP + RUNS):
        for label, (command, env, cwd) in commands.items():
            before = os.times()
            started = time.perf_counter()
            done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, timeout=120, check=False)
            wall = time.perf_counter() - started
            after = os.times()
            assert done.returncode == 0, f"{label}: {done.stderr.decode()}"
            cpu = after.children_user + after.children_system - before.children_user - before.children_system
            if run >= WARMUP:
                samples[label].append((wall, cpu))
    return samples


def test_cli_start_up(database_url: str, sample_catalogue: Engine, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(legal_samsara_list(sample_catalogue), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["DATABASE_URL"] = database_url
    lunzang = {
        "lunzang --help": ["--help"],
        "lunzang search 孙悟空": ["search", "孙悟空"],
        "lunzang deck check": ["deck", "check", str(deck), "--game", "samsara"],
    }
    commands: dict[str, tuple[list[str], dict[str, str], Path]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], env, ROOT),
        "floor (flask, sqlalchemy, sqlmodel, click)": ([sys.executable, "-c", FLOOR], env, ROOT),
        "the same, collector paused and frozen": ([sys.executable, "-c", FLOOR_FROZEN], env, ROOT),
    }
    for label, args in lunzang.items():
        commands[label] = ([*LUNZANG, *args], env, ROOT)
        if COMPARE:
            other = Path(COMPARE).resolve()
            commands[f"{label} [{other.name}]"] = ([*LUNZANG, *args], {**env, "PYTHONPATH": str(other)}, other)
    load = os.getloadavg()
    samples = _time_all(commands)
    load_after = os.getloadavg()
    figures = {
        label: (statistics.median(w for w, _c in runs), statistics.median(c for _w, c in runs))
        for label, runs in samples.items()
    }
    floor = figures["floor (flask, sqlalchemy, sqlmodel, click)"]
    print(
        f"\nCLI start-up, median of {RUNS} runs (load average {load[0]:.2f} before, {load_after[0]:.2f} after)"
        + (f"; [{Path(COMPARE).name}] = {COMPARE}" if COMPARE else "")
    )
    print(f"{'command':<46}{'wall s':>9}{'CPU s':>9}{'wall/floor':>12}{'CPU/floor':>11}")
    for label, (wall, cpu) in figures.items():
        print(f"{label:<46}{wall:9.3f}{cpu:9.3f}{wall / floor[0]:12.2f}{cpu / floor[1]:11.2f}")

"""Booster engine speed: ``make bench`` prints the figures; nothing here is timed-asserted.

- packs per second of the vectorised engine against a plain-Python loop, one pack at a time,
  filling the same packs (7 distinct commons + 1 weighted card), measured in the same run;
- ``complete_set`` with 10,000 trials on a 100-printing set (target ≤ 2 s);
- memory of a chunked run: the peak does not grow with the number of packs
  (``LUNZANG_BENCH_PACKS=100000000`` runs the full 10⁸).
"""

from __future__ import annotations

import os
import random
import time
import tracemalloc

from catalog import boosters
from catalog.boosters.engine import count_printings

SIZES = {"C": 50, "R": 25, "PR": 12, "UR": 8, "SR": 5}  # 100 printings
WEIGHTS = {"C": 40, "R": 35, "PR": 15, "UR": 7, "SR": 3}


def hundred_printing_model() -> boosters.PackModel:
    printings, number = [], 0
    for rarity, count in SIZES.items():
        for _ in range(count):
            number += 1
            printings.append(boosters.PackPrinting(number, f"B-{number:03d}", f"卡{number}", rarity))
    return boosters.build_model(
        game="samsara",
        set_code="B",
        template="standard",
        packs_per_box=16,
        slots=[{"count": 7, "rarity": {"C": 1}}, {"count": 1, "rarity": WEIGHTS}],
        printings=printings,
        rarity_order=tuple(SIZES),
    )


def plain_python_packs(model: boosters.PackModel, packs: int, seed: int) -> list[int]:
    """The same packs, one at a time in pure Python: the baseline."""
    rng = random.Random(seed)
    offsets = model.offsets()
    sizes = {r: len(p) for r, p in model.pools.items()}
    rarities, weights = list(WEIGHTS), list(WEIGHTS.values())
    totals = [0] * len(model.printings)
    for _ in range(packs):
        for index in rng.sample(range(sizes["C"]), 7):
            totals[offsets["C"] + index] += 1
        rarity = rng.choices(rarities, weights)[0]
        totals[offsets[rarity] + rng.randrange(sizes[rarity])] += 1
    return totals


def test_engine_packs_per_second_against_a_plain_loop() -> None:
    model = hundred_printing_model()
    count_printings(model, boosters.make_rng(0), packs=1 << 16)  # warm up
    packs = 1 << 23
    started = time.perf_counter()
    totals = count_printings(model, boosters.make_rng(1), packs=packs)
    engine_seconds = time.perf_counter() - started
    assert totals.sum() == packs * 8
    plain = 100_000
    started = time.perf_counter()
    baseline = plain_python_packs(model, plain, seed=1)
    plain_seconds = time.perf_counter() - started
    assert sum(baseline) == plain * 8
    engine_rate, plain_rate = packs / engine_seconds, plain / plain_seconds
    print(
        f"\nengine: {engine_rate:,.0f} packs/s ({packs:,} packs in {engine_seconds:.2f} s); "
        f"plain Python: {plain_rate:,.0f} packs/s; speed-up ×{engine_rate / plain_rate:.0f} "
        "(targets: ≥ 5,000,000 packs/s and ≥ ×50)"
    )


def test_complete_10000_trials_on_100_printings() -> None:
    model = hundred_printing_model()
    started = time.perf_counter()
    result = boosters.complete_set(model, trials=10_000, seed=1)
    seconds = time.perf_counter() - started
    print(
        f"\ncomplete --trials 10000, 100 printings: {seconds:.2f} s (target ≤ 2 s); "
        f"{result.packs_simulated:,} packs, {result.packs_simulated / seconds:,.0f} packs/s; "
        f"complete mean {result.complete.mean:.1f} boxes (p99 {result.complete.p99}), "
        f"playset mean {result.playset.mean:.1f}; exact mean: {result.complete.exact_mean}"
    )


def test_memory_stays_bounded() -> None:
    model = hundred_printing_model()
    peaks = []
    for packs in (1 << 20, int(os.environ.get("LUNZANG_BENCH_PACKS", 1 << 24))):
        tracemalloc.start()
        started = time.perf_counter()
        count_printings(model, boosters.make_rng(2), packs=packs)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        peaks.append(peak)
        print(f"\n{packs:,} packs: peak {peak / 2**20:.1f} MiB traced, {seconds:.1f} s")
    assert peaks[1] < 2 * peaks[0] + (8 << 20)


def test_cli_complete_10000_trials_on_a_100_printing_set(runner, engine, tmp_path) -> None:
    """The command itself (``lunzang packs complete``), on an imported 100-printing set."""
    from catalog.db import transaction
    from catalog.ingest import import_catalogue

    folder = tmp_path / "samsara"
    (folder / "cards").mkdir(parents=True)
    (folder / "manifest.toml").write_text(
        'game = "samsara"\n[[sets]]\ncode = "B1"\nname = "百张"\nseries = "M"\nkind = "booster"\npack = "standard"\n'
        "[packs.standard]\npacks_per_box = 16\n[[packs.standard.slots]]\ncount = 7\nrarity = { C = 1 }\n"
        "[[packs.standard.slots]]\ncount = 1\nrarity = { C = 40, R = 35, PR = 15, UR = 7, SR = 3 }\n",
        encoding="utf-8",
    )
    rows = ["set,number,name,rarity,type,text"]
    rarities = [r for r, n in SIZES.items() for _ in range(n)]
    rows += [f"B1,B1-{i:03d},百张卡{i},{r},魔法," for i, r in enumerate(rarities, start=1)]
    (folder / "cards" / "b1.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with transaction(engine) as session:
        import_catalogue(session=session, paths=[folder])
    started = time.perf_counter()
    result = runner.invoke(args=["packs", "complete", "--set", "B1", "--trials", "10000", "--seed", "1", "--json"])
    seconds = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    print(f"\nlunzang packs complete --set B1 --trials 10000 (100 printings): {seconds:.2f} s (target ≤ 2 s)")

"""Event speed (``make bench BENCH_ARGS="-k events"``), pure Python, no database.

- Pairing one Swiss round of 512 players after 5 played rounds (target ≤ 1 s): the
  5 rounds are played first (seeded, random results with draws); then round 6 is paired 5 times
  with different seeds, median and worst printed.
- Standings of 2,000 players × 10 rounds (target ≤ 200 ms): records, OMW/GW/OGW and the sort,
  over 10,000 results; median and worst of 5 runs.

Figures are printed, never asserted (the machine is shared: 2 cores for several agents).
"""

from __future__ import annotations

import random
import statistics
import time

from catalog.events.pairing import Candidate, PairingRequest, swiss
from catalog.events.standings import Entrant, Result, rank


def _candidates(entrants: list[Entrant], results: list[Result], number: int) -> list[Candidate]:
    opponents: dict[int, set[int]] = {e.id: set() for e in entrants}
    byes = {r.a for r in results if r.b is None}
    for r in results:
        if r.b is not None:
            opponents[r.a].add(r.b)
            opponents[r.b].add(r.a)
    return [
        Candidate(s.record.entrant.id, s.record.points, s.rank, frozenset(opponents[s.record.entrant.id]),
                  s.record.entrant.id in byes)
        for s in rank(entrants, results, up_to=number - 1)
    ]  # fmt: skip


def _play(entrants: list[Entrant], rounds: int, seed: int) -> list[Result]:
    rng = random.Random(seed)
    results: list[Result] = []
    for number in range(1, rounds + 1):
        for p in swiss(PairingRequest(number, seed + number, _candidates(entrants, results, number))):
            if p.b is None:
                results.append(Result(number, p.a, None))
            else:
                wins = rng.choice([(2, 0, 0), (2, 1, 0), (0, 2, 0), (1, 2, 0), (1, 1, 1)])
                results.append(Result(number, p.a, p.b, *wins))
    return results


def test_pairing_512_players_after_5_rounds() -> None:
    entrants = [Entrant(i, f"p{i:04d}") for i in range(512)]
    results = _play(entrants, 5, seed=1)
    candidates = _candidates(entrants, results, 6)
    timings = []
    for seed in range(5):
        started = time.perf_counter()
        pairings = swiss(PairingRequest(6, 1000 + seed, candidates))
        timings.append(time.perf_counter() - started)
        assert len(pairings) == 256
    print(
        f"\npair round 6 of 512 players (after 5 rounds): median {statistics.median(timings) * 1000:.0f} ms, "
        f"worst {max(timings) * 1000:.0f} ms (target ≤ 1000 ms; shared 2-core machine)"
    )


def test_standings_2000_players_10_rounds() -> None:
    rng = random.Random(2)
    entrants = [Entrant(i, f"p{i:04d}") for i in range(2000)]
    results = []
    for number in range(1, 11):  # random pairings: the standings do not care how they were made
        order = list(range(2000))
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=True):
            results.append(Result(number, a, b, *rng.choice([(2, 0, 0), (2, 1, 0), (1, 2, 0), (1, 1, 1)])))
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        rows = rank(entrants, results, up_to=10)
        timings.append(time.perf_counter() - started)
        assert len(rows) == 2000
    print(
        f"\nstandings of 2,000 players × 10 rounds ({len(results)} results): median "
        f"{statistics.median(timings) * 1000:.0f} ms, worst {max(timings) * 1000:.0f} ms "
        f"(target ≤ 200 ms; shared 2-core machine)"
    )

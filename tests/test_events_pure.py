"""Events, pure logic: MTR Appendix E rounds, standings with MTR tiebreakers against hand-computed
tables, and Swiss pairing over many random events (fixed seeds) checked against brute force."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from catalog.events.pairing import Candidate, PairingError, PairingRequest, swiss
from catalog.events.rounds import recommended_rounds, recommended_top_cut
from catalog.events.seasons import SeasonRow, season_order
from catalog.events.standings import TIEBREAKERS, Entrant, Result, percent, rank
from tests.kits.event import FLOAT_TIE


@pytest.mark.parametrize(
    ("players", "rounds", "cut"),
    [
        (0, 0, 0),
        (1, 0, 0),
        (2, 1, 0),
        (4, 2, 0),
        (5, 3, 0),
        (8, 3, 0),
        (9, 5, 4),
        (16, 5, 4),
        (17, 5, 8),
        (32, 5, 8),
        (33, 6, 8),
        (64, 6, 8),
        (65, 7, 8),
        (128, 7, 8),
        (129, 8, 8),
        (226, 8, 8),
        (227, 9, 8),
        (409, 9, 8),
        (410, 10, 8),
        (2000, 10, 8),
    ],
)
def test_rounds_follow_mtr_appendix_e(players: int, rounds: int, cut: int) -> None:
    assert recommended_rounds(players) == rounds
    assert recommended_top_cut(players) == cut


A, B, C, D, E, L = 1, 2, 3, 4, 5, 6
FIVE = [Entrant(A, "A"), Entrant(B, "B"), Entrant(C, "C"), Entrant(D, "D"), Entrant(E, "E")]
TWO_ROUNDS = [
    Result(1, A, B, 2, 0, 0),
    Result(1, C, D, 2, 1, 0),
    Result(1, E, None),  # bye: a 2–0 win, not an opponent
    Result(2, A, C, 1, 1, 1),  # a drawn match with a drawn game
    Result(2, E, B, 2, 1, 0),
    Result(2, D, None),
]

# Hand-computed (see the comments): points, OMW, GW, OGW after round 2.
# MW: A 4/6, B 0/6 → floored 1/3, C 4/6, D 3/6, E 6/6.
# GW: A (3 won, 1 drawn of 5 games) 10/15; B 3/15; C 10/18; D 9/15 (bye 2–0 counts); E 12/15.
HAND = {
    E: (1, 6, F(1, 3), F(4, 5), F(1, 3)),  # only opponent B (MW floored 1/3; GW 1/5 floored 1/3)
    C: (2, 4, F(7, 12), F(5, 9), F(19, 30)),  # opponents D (1/2) and A (2/3)
    A: (3, 4, F(1, 2), F(2, 3), F(4, 9)),  # opponents B (1/3) and C (2/3): below C on OMW
    D: (4, 3, F(2, 3), F(3, 5), F(5, 9)),  # the bye is no opponent: only C
    B: (5, 0, F(5, 6), F(1, 5), F(11, 15)),
}


def _by_id(standings):
    return {s.record.entrant.id: s for s in standings}


@pytest.mark.parametrize("player", sorted(HAND))
def test_mtr_tiebreakers_match_the_hand_computed_table(player: int) -> None:
    row = _by_id(rank(FIVE, TWO_ROUNDS, up_to=2))[player]
    place, points, omw, gw, ogw = HAND[player]
    assert (row.rank, row.record.points) == (place, points)
    assert (row.record.omw, row.record.gw, row.record.ogw) == (omw, gw, ogw)  # exact, not approximately


@pytest.mark.parametrize(
    ("player", "played", "won", "drawn", "lost", "byes"),
    [(A, 2, 1, 1, 0, 0), (B, 2, 0, 0, 2, 0), (D, 2, 1, 0, 1, 1), (E, 2, 2, 0, 0, 1)],
)
def test_records_count_byes_as_wins(player: int, played: int, won: int, drawn: int, lost: int, byes: int) -> None:
    record = _by_id(rank(FIVE, TWO_ROUNDS, up_to=2))[player].record
    assert (record.played, record.won, record.drawn, record.lost, record.byes) == (played, won, drawn, lost, byes)


def test_standings_after_round_one_ignore_round_two() -> None:
    rows = rank(FIVE, TWO_ROUNDS, up_to=1)
    assert [(s.record.entrant.name, s.record.points) for s in rows][:3] == [("A", 3), ("E", 3), ("C", 3)]
    # A (opp B 1/3) and E (no opponent: the floor) tie on OMW 1/3; GW A 6/6 = E 6/6; OGW B 0 → 1/3 = floor: by name
    assert _by_id(rows)[C].record.omw == F(1, 3)  # D's MW 0 floored


def test_a_late_entrant_lost_the_rounds_missed() -> None:
    entrants = [*FIVE, Entrant(L, "L", first_round=2)]
    results = [*TWO_ROUNDS[:3], Result(2, L, B, 2, 0, 0)]
    record = _by_id(rank(entrants, results, up_to=2))[L].record
    assert (record.points, record.played, record.won, record.lost) == (3, 2, 1, 1)
    assert record.gw == F(6, 12)  # the missed round is a 0–2 loss
    assert record.opponents == [B]
    assert record.omw == F(1, 3)  # B: 0 points, floored


def test_disqualified_players_leave_the_standings_but_count_for_opponents() -> None:
    entrants = [e if e.id != B else Entrant(B, "B", disqualified=True) for e in FIVE]
    rows = rank(entrants, TWO_ROUNDS, up_to=2)
    assert B not in _by_id(rows)
    assert _by_id(rows)[A].record.omw == F(1, 2)


def test_the_champion_is_decided_exactly_not_by_float_noise() -> None:
    entrants = [Entrant(i, f"P{i}") for i in range(1, 9)]
    rows = rank(entrants, FLOAT_TIE, up_to=3)
    first, second = rows[0].record, rows[1].record
    assert (first.entrant.name, second.entrant.name) == ("P1", "P6")
    assert first.points == second.points and first.omw == second.omw  # the exact tie the floats broke
    assert first.gw > second.gw  # so GW decides (MTR 3.1)
    # The old float arithmetic disagreed on the OMW: the repro must still be one.
    mw = {r.entrant.id: max(1 / 3, r.points / (3 * r.played)) for r in (s.record for s in rows)}
    float_omw = [sum(mw[o] for o in r.opponents) / len(r.opponents) for r in (first, second)]
    assert float_omw[0] != float_omw[1]


@pytest.mark.parametrize(
    ("value", "places", "shown"),
    [(F(11, 27), 2, "40.74"), (F(1, 3), 2, "33.33"), (F(1, 2), 0, "50"), (F(1, 200), 2, "0.50"), (F(1), 1, "100.0"),
     (F(0), 2, "0.00"), (F(1, 80000), 2, "0.00"), (F(1, 20000), 2, "0.01")],
)  # fmt: skip
def test_percentages_round_half_up_for_display_only(value: F, places: int, shown: str) -> None:
    assert percent(value, places) == shown


def test_buchholz_is_a_registered_tiebreak_set() -> None:
    assert set(TIEBREAKERS) >= {"mtr", "buchholz"}
    rows = rank(FIVE, TWO_ROUNDS, up_to=2, tiebreakers="buchholz")
    by = _by_id(rows)
    assert by[A].record.buchholz == 0 + 4 and by[C].record.buchholz == 3 + 4
    assert [s.record.entrant.name for s in rows] == ["E", "C", "A", "D", "B"]


# ---------------------------------------------------------------------------- pairing


def _candidates(entrants: list[Entrant], results: list[Result], round_number: int) -> list[Candidate]:
    opponents: dict[int, set[int]] = {e.id: set() for e in entrants}
    byes = {r.a for r in results if r.b is None}
    for r in results:
        if r.b is not None:
            opponents[r.a].add(r.b)
            opponents[r.b].add(r.a)
    rows = rank(entrants, results, up_to=round_number - 1)
    return [
        Candidate(s.record.entrant.id, s.record.points, s.rank, frozenset(opponents[s.record.entrant.id]),
                  s.record.entrant.id in byes)
        for s in rows
        if (s.record.entrant.dropped_from is None or s.record.entrant.dropped_from > round_number)
        and s.record.entrant.first_round <= round_number
    ]  # fmt: skip


def _perfect_matchings(ids: list[int], allowed):
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for i, other in enumerate(rest):
        if allowed(first, other):
            for tail in _perfect_matchings(rest[:i] + rest[i + 1 :], allowed):
                yield [(first, other), *tail]


def _brute_force(players: list[Candidate]) -> tuple[int | None, int]:
    """The bye the rules require and the least sum of squared point differences (brute force)."""
    points = {p.id: p.points for p in players}
    by_id = {p.id: p for p in players}

    def allowed(a: int, b: int) -> bool:
        return b not in by_id[a].opponents

    def best(ids: list[int]) -> int | None:
        costs = [sum((points[a] - points[b]) ** 2 for a, b in m) for m in _perfect_matchings(ids, allowed)]
        return min(costs) if costs else None

    ids = [p.id for p in players]
    if len(ids) % 2 == 0:
        cost = best(ids)
        assert cost is not None
        return None, cost
    for p in sorted(players, key=lambda p: p.rank, reverse=True):
        if not p.had_bye:
            cost = best([i for i in ids if i != p.id])
            if cost is not None:
                return p.id, cost
    raise AssertionError("no legal pairing")


def _play(rng: random.Random, a: int, b: int | None, round_number: int) -> Result:
    if b is None:
        return Result(round_number, a, None)
    wins = rng.choice([(2, 0, 0), (2, 1, 0), (0, 2, 0), (1, 2, 0), (1, 1, 1), (1, 0, 1)])
    return Result(round_number, a, b, *wins)


@pytest.mark.parametrize("event_seed", range(40))
@pytest.mark.parametrize("players", [5, 7, 8])
def test_swiss_over_random_events(event_seed: int, players: int) -> None:
    """No rematch, byes only to players without one (the lowest-ranked possible), everyone
    active paired exactly once (not the dropped, not a late entrant before their round), and
    the least pairing down (= brute force) every round."""
    rng = random.Random(event_seed * 100 + players)
    entrants = [Entrant(i, f"p{i}") for i in range(1, players + 1)]
    if event_seed % 4 == 1:  # a late entrant joins in round 2 (round 1 counts as a loss)
        entrants.append(Entrant(players + 1, "late", first_round=2))
    results: list[Result] = []
    rounds = 4 if players > 5 else 3
    for number in range(1, rounds + 1):
        if number == 3 and event_seed % 3 == 0:  # someone drops before round 3
            entrants[0] = Entrant(1, "p1", dropped_from=3)
        candidates = _candidates(entrants, results, number)
        pairings = swiss(PairingRequest(number, event_seed, candidates))
        seated = [p.a for p in pairings] + [p.b for p in pairings if p.b is not None]
        assert sorted(seated) == sorted(c.id for c in candidates)
        late = next((c for c in candidates if c.id == players + 1), None)
        if event_seed % 4 == 1:
            assert (late is not None) == (number > 1)
            if number == 2:
                assert late is not None and late.points == 0 and not late.opponents  # round 1 was a loss
        by_id = {c.id: c for c in candidates}
        byes = [p.a for p in pairings if p.b is None]
        expected_bye, least = _brute_force(candidates) if number > 1 else (None, 0)
        if number > 1:
            assert byes == ([expected_bye] if expected_bye is not None else [])
            pairs_cost = sum((by_id[p.a].points - by_id[p.b].points) ** 2 for p in pairings if p.b is not None)
            assert pairs_cost == least
        for p in pairings:
            if p.b is None:
                assert not by_id[p.a].had_bye
            else:
                assert p.b not in by_id[p.a].opponents
        assert [p.table for p in pairings] == list(range(1, len(pairings) + 1))
        results += [_play(rng, p.a, p.b, number) for p in pairings]


@pytest.mark.parametrize("seed", [0, 1, 42, 2**63 - 1])
def test_round_one_is_reproducible_from_its_seed(seed: int) -> None:
    players = [Candidate(i) for i in range(1, 17)]
    first = swiss(PairingRequest(1, seed, players))
    assert first == swiss(PairingRequest(1, seed, players))
    assert first != swiss(PairingRequest(1, seed ^ 1, players))


def test_round_one_bye_goes_to_a_random_player_and_is_last() -> None:
    players = [Candidate(i) for i in range(1, 8)]
    byes = {swiss(PairingRequest(1, seed, players))[-1].a for seed in range(30)}
    assert len(byes) > 3  # not always the same player
    pairings = swiss(PairingRequest(1, 3, players))
    assert pairings[-1].b is None and pairings[-1].table == 4


def test_higher_score_groups_sit_at_the_first_tables() -> None:
    players = [Candidate(i, points=p, rank=i) for i, p in enumerate([6, 6, 3, 3, 3, 3, 0, 0], start=1)]
    pairings = swiss(PairingRequest(3, 5, players))
    points = {p.id: p.points for p in players}
    assert [(points[p.a], points[p.b]) for p in pairings if p.b] == [(6, 6), (3, 3), (3, 3), (0, 0)]


def test_no_pairing_without_rematch_is_refused() -> None:
    everyone = frozenset({1, 2, 3, 4})
    players = [Candidate(i, opponents=everyone - {i}) for i in range(1, 5)]
    with pytest.raises(PairingError):
        swiss(PairingRequest(4, 0, players))


def test_every_pair_of_four_players_is_met_once_in_three_rounds() -> None:
    entrants = [Entrant(i, f"p{i}") for i in range(1, 5)]
    results: list[Result] = []
    rng = random.Random(9)
    for number in (1, 2, 3):
        pairings = swiss(PairingRequest(number, number, _candidates(entrants, results, number)))
        results += [_play(rng, p.a, p.b, number) for p in pairings]
    met = {frozenset((r.a, r.b)) for r in results if r.b is not None}
    assert met == {frozenset(pair) for pair in itertools.combinations(range(1, 5), 2)}


@pytest.mark.parametrize("event_seed", [1, 2])
def test_a_large_event_uses_the_band_and_still_never_rematches(event_seed: int) -> None:
    """101 players (above the full-graph size): 7 rounds, no rematch, one bye a round, never twice."""
    rng = random.Random(event_seed)
    entrants = [Entrant(i, f"p{i:03d}") for i in range(1, 102)]
    results: list[Result] = []
    for number in range(1, 8):
        candidates = _candidates(entrants, results, number)
        pairings = swiss(PairingRequest(number, event_seed, candidates))
        by_id = {c.id: c for c in candidates}
        assert sum(1 for p in pairings if p.b is None) == 1
        assert all((p.b is None and not by_id[p.a].had_bye) or p.b not in by_id[p.a].opponents for p in pairings)
        mixed = sum(1 for p in pairings if p.b is not None and by_id[p.a].points != by_id[p.b].points)
        groups = {c.points for c in candidates}
        assert mixed <= len(groups)  # at most one pair-down between neighbouring score groups
        results += [_play(rng, p.a, p.b, number) for p in pairings]


def _season_row(player: str, *finishes: tuple[int, int]) -> SeasonRow:
    row = SeasonRow(0, player, player)
    for place, points in finishes:
        row.points += points
        row.events.append((None, place, points))  # type: ignore[arg-type]  # the chain reads places only
    return row


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        (("Z", (1, 9), (9, 3)), ("A", (2, 9), (3, 3)), "best finish"),
        (("Z", (1, 9), (1, 3), (12, 0)), ("A", (1, 9), (2, 3)), "events won"),
        (("Z", (5, 6), (8, 6)), ("A", (5, 6), (9, 6)), "top-eight finishes"),
        (("Z", (3, 9), (9, 3)), ("A", (3, 9), (10, 3), (20, 0)), "events played"),
    ],
)
def test_season_ties_follow_the_documented_chain_never_the_name(a: tuple, b: tuple, why: str) -> None:
    # "Z" sorts after "A" by name: only the chain can put it first.
    rows = season_order([_season_row(b[0], *b[1:]), _season_row(a[0], *a[1:])])
    assert [(r.player, r.rank) for r in rows] == [("Z", 1), ("A", 2)], why


def test_players_equal_on_the_whole_chain_share_the_rank() -> None:
    rows = season_order([_season_row("Z", (2, 6)), _season_row("A", (2, 6)), _season_row("M", (3, 3))])
    assert [(r.player, r.rank) for r in rows] == [("A", 1), ("Z", 1), ("M", 3)]


@pytest.mark.parametrize("seed", range(20))
def test_the_integer_sort_keys_order_exactly_as_the_fractions(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(2, 40)
    entrants = [Entrant(i, f"p{i}", first_round=rng.choice([1, 1, 1, 2])) for i in range(players)]
    results = []
    for number in range(1, rng.randint(1, 8) + 1):
        order = [e.id for e in entrants if e.first_round <= number]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            results.append(
                Result(number, a, b, *rng.choice([(2, 0, 0), (2, 1, 0), (1, 2, 0), (0, 2, 0), (1, 1, 1), (1, 0, 2)]))
            )
        if len(order) % 2:
            results.append(Result(number, order[-1], None))
    rows = rank(entrants, results, up_to=8)
    keys = [(r.record.points, r.record.omw, r.record.gw, r.record.ogw) for r in rows]
    assert keys == sorted(keys, reverse=True)  # best first, by the exact fractions
    for row in rows:
        assert isinstance(row.record.omw, F) and isinstance(row.record.ogw, F)

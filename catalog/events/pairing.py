"""Pairing systems: strategies in a registry, picked by the name stored on the event.

The built-in ``swiss`` (the seed: "每次比赛都必须采用瑞士轮积分赛"):

- round 1 is random, from a seed that is shown and stored, so the round can be reproduced
  (numpy's ``Generator(PCG64(seed))``, the same on every machine);
- later rounds pair players with equal match points, never a rematch, pairing down as little
  as possible. It is a maximum-weight matching (networkx's ``max_weight_matching`` with
  ``maxcardinality=True``: first as many tables as possible, then the least pairing down): the
  weight of a pair is ``C − (points difference)²``, so among full pairings the one with the
  smallest sum of squared differences wins. Players are ordered by points, randomly (from the
  round's seed) within a score group. Up to 64 players every pair not yet met is an edge, so
  the matching is exactly optimal; above that each player is joined to the next ``BAND``
  players of that order (not yet met), widened when no full pairing exists. Joining every
  pair of 512 players (130,000 edges) takes 20 s in pure Python; the band keeps one round
  of 512 under half a second. (Choice: a pair-down is then chosen among the neighbouring
  players of the next group, which is what "pairing down as little as possible" asks.)
- with an odd number of players, the bye goes to the lowest-ranked player who has not had
  one, among those for whom the rest can still be paired without a rematch (a bye is a 2–0
  match win, 3 points; see :mod:`catalog.events.standings`);
- dropped and disqualified players are not paired.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from catalog.errors import LunzangError, Message

BAND = 8
FULL_GRAPH_UP_TO = 64  # small events join every pair: the matching is then exactly optimal


class PairingError(LunzangError):
    """No pairing satisfies the rules (e.g. every remaining pairing would be a rematch)."""

    code = "pairing_impossible"
    status = 409


@dataclass(frozen=True)
class Candidate:
    """A player to be paired: current points and rank, whom they met, whether they had a bye."""

    id: int
    points: int = 0
    rank: int = 0  # 1 = best in the current standings
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False


@dataclass(frozen=True)
class Pairing:
    table: int
    a: int
    b: int | None  # None: a bye


@dataclass
class PairingRequest:
    round: int
    seed: int
    players: Sequence[Candidate]
    options: dict[str, object] = field(default_factory=dict)


PairingSystem = Callable[[PairingRequest], list[Pairing]]
PAIRING_SYSTEMS: dict[str, PairingSystem] = {}


def register_pairing_system(name: str, system: PairingSystem) -> None:
    PAIRING_SYSTEMS[name] = system


def _match(order: list[Candidate], band: int) -> set[tuple[int, int]] | None:
    """A full pairing of ``order`` (ids), or None when the band graph has none."""
    import networkx as nx  # ~0.3 s to import: only pairing a round pays it

    n = len(order)
    graph = nx.Graph()
    graph.add_nodes_from(p.id for p in order)
    top = max((p.points for p in order), default=0) - min((p.points for p in order), default=0)
    ceiling = top * top + 1
    for i, p in enumerate(order):
        for q in order[i + 1 : i + 1 + band]:
            if q.id in p.opponents:
                continue
            difference = p.points - q.points
            graph.add_edge(p.id, q.id, weight=ceiling - difference * difference)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != n:
        return None
    return {(a, b) for a, b in matching}


def _full_pairing(order: list[Candidate]) -> set[tuple[int, int]] | None:
    band = len(order) if len(order) <= FULL_GRAPH_UP_TO else BAND
    while True:
        matching = _match(order, band)
        if matching is not None or band >= len(order):
            return matching
        band *= 2


def swiss(request: PairingRequest) -> list[Pairing]:
    """Pair one Swiss round (see the module docstring)."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(request.seed))
    players = list(request.players)
    shuffle = {p.id: int(k) for p, k in zip(players, rng.permutation(len(players)), strict=True)}
    if request.round == 1:
        order = sorted(players, key=lambda p: shuffle[p.id])
    else:
        order = sorted(players, key=lambda p: (-p.points, shuffle[p.id]))
    bye: Candidate | None = None
    pairs: set[tuple[int, int]] | None
    if len(order) % 2:
        # Lowest-ranked first; in round 1 everyone is equal and the random order decides.
        by_rank = sorted(order, key=lambda p: (p.rank, shuffle[p.id])) if request.round > 1 else order
        pairs = None
        for candidate in reversed(by_rank):
            if candidate.had_bye:
                continue
            pairs = _full_pairing([p for p in order if p.id != candidate.id])
            if pairs is not None:
                bye = candidate
                break
        if bye is None:
            raise PairingError(
                Message(
                    "无法配对：每位还没轮空过的选手轮空后，其余选手都会重复对战；请手动导入本轮配对",
                    "no pairing: whoever gets the bye, the rest cannot avoid a rematch; import this round by hand",
                )
            )
    else:
        pairs = _full_pairing(order)
        if pairs is None:
            raise PairingError(
                Message(
                    "无法配对：任何配对都会出现重复对战；请手动导入本轮配对",
                    "no pairing without a rematch exists; import this round by hand",
                )
            )
    assert pairs is not None
    return number_tables(order, pairs, bye)


def number_tables(order: list[Candidate], pairs: set[tuple[int, int]], bye: Candidate | None) -> list[Pairing]:
    """Tables 1… from the top: by the pair's higher points, then its better-placed player.

    Within a table the player ranked higher in ``order`` sits as player A. The bye, if any,
    takes the number after the last table (so a CSV of the round lists it like a table).
    """
    position = {p.id: i for i, p in enumerate(order)}
    points = {p.id: p.points for p in order}
    seated = []
    for a, b in pairs:
        first, second = (a, b) if position[a] < position[b] else (b, a)
        seated.append((-max(points[a], points[b]), position[first], first, second))
    seated.sort()
    tables = [Pairing(i + 1, first, second) for i, (_p, _pos, first, second) in enumerate(seated)]
    if bye is not None:
        tables.append(Pairing(len(tables) + 1, bye.id, None))
    return tables


register_pairing_system("swiss", swiss)

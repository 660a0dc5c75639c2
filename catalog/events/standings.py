"""Standings: match points and tiebreakers, pure Python over plain results (no database).

Match points 3/1/0 per won/drawn/lost match. The MTR tiebreakers (Appendix C):

- a player's match-win % = match points / (3 × matches played);
- opponents' match-win % (OMW) = the mean of each opponent's match-win %, each floored at 1/3;
- game-win % (GW) = game points / (3 × games played), a game won 3, drawn 1;
- opponents' game-win % (OGW) = the mean of each opponent's GW, each floored at 1/3.

A bye is a 2–0 match win for the player's own figures (3 match points, 2 games won) and is not
an opponent. A round missed by a late entrant is a 0–2 match loss with no opponent (MTR:
"late entrants receive a match loss for each round missed"). Dropped players keep their
results: they still count as opponents of the players they met.

Every figure is exact (:class:`fractions.Fraction`) and compared exactly: two players whose OMW
is 11/27 are equal, so GW decides (MTR 3.1), never floating-point noise. Rounding is for display
only (:func:`percent`). The floors stay as they are: each opponent's MW and GW at exactly 1/3
(not MTR's printed 0.33, which moves published 50 % readings to 49 %), the player's own GW
unfloored.

Tiebreak sets are strategies in :data:`TIEBREAKERS` (the built-in ``mtr`` and ``buchholz`` use
the same registry an extension would); an event stores the name of its set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

THIRD = Fraction(1, 3)
ZERO = Fraction(0)
WIN, DRAW = 3, 1


@dataclass(frozen=True)
class Entrant:
    """A player as the standings see them."""

    id: int
    name: str
    first_round: int = 1  # late entry: rounds before it are losses
    dropped_from: int | None = None  # not paired from this round on
    disqualified: bool = False


@dataclass(frozen=True)
class Result:
    """One finished table of one round. ``b`` is None for a bye."""

    round: int
    a: int
    b: int | None
    wins_a: int = 2
    wins_b: int = 0
    draws: int = 0


@dataclass
class Record:
    """A player's figures up to some round, before ranking."""

    entrant: Entrant
    points: int = 0
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    byes: int = 0
    game_points: int = 0
    games: int = 0
    opponents: list[int] = field(default_factory=list)
    omw: Fraction = ZERO
    gw: Fraction = ZERO
    ogw: Fraction = ZERO
    buchholz: int = 0
    # The same three figures as integers over common denominators (one per figure for the whole
    # table): equal exactly when the fractions are, and cheap to sort by.
    omw_key: int = 0
    gw_key: int = 0
    ogw_key: int = 0

    @property
    def mw(self) -> Fraction:
        """Match-win % (unfloored; 0 before the first match), exact."""
        return Fraction(self.points, 3 * self.played) if self.played else ZERO

    def add_match(self, games_won: int, games_lost: int, draws: int, opponent: int | None) -> None:
        self.played += 1
        if games_won > games_lost:
            self.won += 1
            self.points += WIN
        elif games_won == games_lost:
            self.drawn += 1
            self.points += DRAW
        else:
            self.lost += 1
        self.game_points += WIN * games_won + DRAW * draws
        self.games += games_won + games_lost + draws
        if opponent is not None:
            self.opponents.append(opponent)


def records(entrants: Iterable[Entrant], results: Iterable[Result], *, up_to: int) -> dict[int, Record]:
    """Every entrant's record over the results of rounds 1…``up_to`` (tiebreakers filled in)."""
    table = {e.id: Record(e) for e in entrants}
    for result in results:
        if result.round > up_to:
            continue
        rec_a = table[result.a]
        if result.b is None:
            rec_a.add_match(2, 0, 0, None)  # a bye is a 2–0 win, and no opponent
            rec_a.byes += 1
            continue
        rec_a.add_match(result.wins_a, result.wins_b, result.draws, result.b)
        table[result.b].add_match(result.wins_b, result.wins_a, result.draws, result.a)
    for record in table.values():
        missed = min(record.entrant.first_round - 1, up_to)
        for _ in range(max(missed, 0)):
            record.add_match(0, 2, 0, None)  # a missed round (late entry) is a 0–2 loss
    # Exact and fast: every MW is points / (3 × matches) and every GW game points / (3 × games),
    # so over one common denominator they are integers; sums of integers, then one Fraction per
    # player (Fraction additions cost ~10× more at 2,000 players × 10 rounds).
    mw_den = 3 * lcm(*range(1, max((r.played for r in table.values()), default=0) + 1))
    gw_den = 3 * lcm(*range(1, max((r.games for r in table.values()), default=0) + 1))
    mw_floor, gw_floor = mw_den // 3, gw_den // 3  # 1/3 on each denominator
    mw = {
        pid: max(mw_floor, r.points * (mw_den // (3 * r.played))) if r.played else mw_floor for pid, r in table.items()
    }
    floored_gw = {
        pid: max(gw_floor, r.game_points * (gw_den // (3 * r.games))) if r.games else gw_floor
        for pid, r in table.items()
    }
    per = lcm(*range(1, max((len(r.opponents) for r in table.values()), default=0) + 1))
    for record in table.values():
        record.gw = Fraction(record.game_points, 3 * record.games) if record.games else ZERO
        record.gw_key = record.game_points * (gw_den // (3 * record.games)) if record.games else 0
        opponents = record.opponents
        # Choice (MTR silent): a player without opponents (only byes so far) gets the floor.
        if opponents:
            mw_sum, gw_sum = sum(mw[o] for o in opponents), sum(floored_gw[o] for o in opponents)
            record.omw = Fraction(mw_sum, mw_den * len(opponents))
            record.ogw = Fraction(gw_sum, gw_den * len(opponents))
            record.omw_key, record.ogw_key = mw_sum * (per // len(opponents)), gw_sum * (per // len(opponents))
        else:
            record.omw = record.ogw = THIRD
            record.omw_key, record.ogw_key = mw_floor * per, gw_floor * per
        record.buchholz = sum(table[o].points for o in opponents)
    return table


def percent(value: Fraction, places: int = 2) -> str:
    """A tiebreaker for display, as a percentage rounded half up (``Fraction(11, 27)`` → ``40.74``)."""
    scaled = value * 100 * 10**places
    whole = (scaled.numerator * 2 + scaled.denominator) // (2 * scaled.denominator)
    text = str(whole).rjust(places + 1, "0")
    return f"{text[:-places]}.{text[-places:]}" if places else text


SortKey = Callable[[Record], tuple[int | Fraction, ...]]


@dataclass(frozen=True)
class TiebreakSet:
    """How tied players are ordered: a key per record (larger is better), and its labels."""

    name: str
    label: str
    label_en: str
    key: SortKey
    columns: tuple[str, ...]


TIEBREAKERS: dict[str, TiebreakSet] = {}


def register_tiebreakers(tiebreak: TiebreakSet) -> None:
    TIEBREAKERS[tiebreak.name] = tiebreak


register_tiebreakers(
    TiebreakSet(
        "mtr",
        "MTR：对手胜率、局胜率、对手局胜率",
        "MTR: opponents' match-win %, game-win %, opponents' game-win %",
        lambda r: (r.points, r.omw_key, r.gw_key, r.ogw_key),  # = (points, OMW, GW, OGW), exactly
        ("omw", "gw", "ogw"),
    )
)
register_tiebreakers(
    TiebreakSet(
        "buchholz",
        "布赫霍尔茨：对手积分之和、局胜率",
        "Buchholz: sum of the opponents' points, then game-win %",
        lambda r: (r.points, r.buchholz, r.gw_key),
        ("buchholz", "gw"),
    )
)


@dataclass(frozen=True)
class Standing:
    rank: int
    record: Record


def rank(
    entrants: Sequence[Entrant], results: Iterable[Result], *, up_to: int, tiebreakers: str = "mtr"
) -> list[Standing]:
    """The standings after round ``up_to``: best first.

    Choice (MTR silent on the last resort): players equal on every tiebreaker are ordered by
    name, then by registration, so the order is stable and reproducible. Disqualified players
    are left out of the standings (their matches still count for their opponents).
    """
    tiebreak = TIEBREAKERS[tiebreakers]
    table = records(entrants, results, up_to=up_to)
    ordered = sorted(
        (r for r in table.values() if not r.entrant.disqualified),
        key=lambda r: (tuple(-v for v in tiebreak.key(r)), r.entrant.name, r.entrant.id),
    )
    return [Standing(i + 1, r) for i, r in enumerate(ordered)]

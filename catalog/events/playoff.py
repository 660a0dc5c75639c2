"""The optional top cut: single elimination of the top 4 or 8 after the Swiss rounds, seeded by
the Swiss standings (1–8, 4–5, 2–7, 3–6), then semi-finals and the final; third place by a
play-off between the semi-final losers, or by their Swiss rank.

Choices where the seed and the MTR are silent: a dropped or disqualified player does not make
the cut (the next in the standings does); a play-off match needs a winner (no draws); the
Swiss standings stay those after the last Swiss round; the final places are the final's winner,
its loser, third and fourth from the third-place match (or by Swiss rank), then the quarter-final
losers by Swiss rank, then everyone else by Swiss rank.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from catalog.errors import Message
from catalog.events.pairing import Pairing
from catalog.events.registration import EventError, last_round, planned_rounds
from catalog.events.results import matches, open_tables, playoff_rounds, standings, store_round
from catalog.models import Event, Match, Round

BRACKET = {8: ((1, 8), (4, 5), (2, 7), (3, 6)), 4: ((1, 4), (2, 3))}


def _winner(m: Match) -> int:
    return m.player_a_id if m.wins_a > m.wins_b else m.player_b_id  # type: ignore[return-value]  # a played match has both players (a bye is never in the top cut)


def _loser(m: Match) -> int:
    return m.player_b_id if m.wins_a > m.wins_b else m.player_a_id  # type: ignore[return-value]  # a played match has both players (a bye is never in the top cut)


def pair_playoff(*, session: Session, event: Event, now: datetime) -> tuple[Round, list[Match]]:
    """The next single-elimination round of the top cut."""
    if event.top_cut not in (4, 8):
        raise EventError(Message("这场赛事没有决赛圈", "this event has no top cut"))
    swiss = planned_rounds(session=session, event=event)
    last = last_round(session=session, event=event)
    if last < swiss:
        raise EventError(Message("瑞士轮还没有打完", "the Swiss rounds are not finished"))
    if open_tables(session, event, last):
        raise EventError(Message(f"第 {last} 轮还有桌没有结果", f"round {last} still has open tables"))
    played = playoff_rounds(session=session, event=event)
    if not played:
        seeds = [
            s.record.entrant.id
            for s in standings(session=session, event=event, up_to=swiss).rows
            if s.record.entrant.dropped_from is None
        ][: event.top_cut]
        if len(seeds) < event.top_cut:
            raise EventError(
                Message(f"进入决赛圈的选手不足 {event.top_cut} 人", f"fewer than {event.top_cut} players for the cut")
            )
        pairs = [Pairing(i + 1, seeds[a - 1], seeds[b - 1]) for i, (a, b) in enumerate(BRACKET[event.top_cut])]
        kind = f"top{event.top_cut}"
    else:
        previous = played[-1]
        if previous.kind in ("final", "third") or previous.kind == "top2":
            raise EventError(Message("决赛圈已经打完", "the top cut is over"))
        tables = [m for m in matches(session=session, event=event, round_number=previous.number)]
        winners = [_winner(m) for m in tables]
        pairs = [Pairing(i + 1, winners[2 * i], winners[2 * i + 1]) for i in range(len(winners) // 2)]
        kind = "top4" if previous.kind == "top8" else "final"
        if kind == "final" and event.third_place == "playoff":
            losers = [_loser(m) for m in tables]
            pairs.append(Pairing(2, losers[0], losers[1]))
    row = store_round(session, event, last + 1, pairs, seed=None, source="playoff", now=now, kind=kind)
    return row, matches(session=session, event=event, round_number=row.number)


def playoff_complete(*, session: Session, event: Event) -> bool:
    played = playoff_rounds(session=session, event=event)
    return bool(played) and played[-1].kind == "final"


def final_order(*, session: Session, event: Event, swiss_order: list[int]) -> list[int]:
    """Registration ids in final place order: the bracket first, then Swiss order."""
    played = playoff_rounds(session=session, event=event)
    if not played or played[-1].kind != "final":
        return swiss_order
    rank = {pid: i for i, pid in enumerate(swiss_order)}
    final_tables = matches(session=session, event=event, round_number=played[-1].number)
    order = [_winner(final_tables[0]), _loser(final_tables[0])]
    if len(final_tables) > 1:  # the third-place match
        order += [_winner(final_tables[1]), _loser(final_tables[1])]
    for round_row in reversed(played[:-1]):
        losers = [_loser(m) for m in matches(session=session, event=event, round_number=round_row.number)]
        order += sorted((p for p in losers if p not in order), key=lambda p: rank.get(p, 1 << 30))
    return order + [p for p in swiss_order if p not in order]

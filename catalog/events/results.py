"""Stored rounds and results of an event, and the standings computed from them (the layer both
the Swiss rounds (:mod:`catalog.events.running`) and the top cut (:mod:`catalog.events.playoff`)
build on)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.errors import Message
from catalog.events.pairing import Pairing
from catalog.events.registration import EventError, last_round, registrations
from catalog.events.standings import Entrant, Result, Standing, rank
from catalog.models import Event, Match, Registration, Round
from catalog.models.event_columns import MATCH, ROUND


def playoff_rounds(*, session: Session, event: Event) -> list[Round]:
    """The top cut's single-elimination rounds (every round that is not Swiss)."""
    return list(
        session.scalars(select(Round).where(ROUND.event_id == event.id, ROUND.kind != "swiss").order_by(ROUND.number))
    )


def entrant(registration: Registration) -> Entrant:
    assert registration.id is not None
    return Entrant(
        registration.id,
        registration.player_name,
        registration.first_round,
        registration.dropped_from,
        registration.disqualified,
    )


def matches(*, session: Session, event: Event, round_number: int | None = None) -> list[Match]:
    query = select(Match).where(MATCH.event_id == event.id)
    if round_number is not None:
        query = query.where(MATCH.round_number == round_number)
    return list(session.scalars(query.order_by(MATCH.round_number, MATCH.table_number)))


def results_of(found: Sequence[Match]) -> list[Result]:
    """The reported tables as pure results (a table without a result does not count yet)."""
    return [
        Result(m.round_number, m.player_a_id, m.player_b_id, m.wins_a, m.wins_b, m.draws) for m in found if m.reported
    ]


@dataclass(frozen=True)
class EventStandings:
    round: int
    rows: list[Standing]
    names: dict[int, str]


def standings(*, session: Session, event: Event, up_to: int | None = None) -> EventStandings:
    """Standings after round ``up_to`` (default: the last Swiss round completed — a round still
    being played is not "after round N",).

    A top cut's single-elimination rounds do not enter the standings (the Swiss standings stay
    those after the last Swiss round; :mod:`catalog.events.playoff` places the cut).
    """
    playoff = {r.number for r in playoff_rounds(session=session, event=event)}
    last = last_round(session=session, event=event) - len(playoff)
    if up_to is None:
        up_to = last - 1 if last and open_tables(session, event, last) else last
    if not 0 <= up_to <= last:
        raise EventError(Message(f"第 {up_to} 轮还没有配对", f"round {up_to} has not been paired"))
    regs = registrations(session=session, event=event)
    entrants = [entrant(r) for r in regs]
    found = [m for m in matches(session=session, event=event) if m.round_number not in playoff]
    rows = rank(entrants, results_of(found), up_to=up_to, tiebreakers=event.tiebreakers)
    return EventStandings(up_to, rows, {e.id: e.name for e in entrants})


def open_tables(session: Session, event: Event, round_number: int) -> list[Match]:
    return [m for m in matches(session=session, event=event, round_number=round_number) if not m.reported]


def store_round(
    session: Session,
    event: Event,
    number: int,
    pairings: list[Pairing],
    *,
    seed: int | None,
    source: str,
    now: datetime,
    kind: str = "swiss",
) -> Round:
    row = Round(event_id=event.id, number=number, kind=kind, seed=seed, source=source, started_at=now, created_at=now)  # type: ignore[arg-type]  # the rows were flushed, so their ids are set
    session.add(row)
    session.flush()
    for p in pairings:
        bye = p.b is None
        session.add(
            Match(
                event_id=event.id,  # type: ignore[arg-type]  # the rows were flushed, so their ids are set
                round_id=row.id,  # type: ignore[arg-type]  # the rows were flushed, so their ids are set
                round_number=number,
                table_number=p.table,
                player_a_id=p.a,
                player_b_id=p.b,
                wins_a=2 if bye else 0,  # a bye is a 2–0 win
                reported=bye,
                updated_at=now,
            )
        )
    event.state = "running"
    session.flush()
    return row

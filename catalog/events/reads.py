"""Read-only queries for the event pages and the API (no writes)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlmodel import Session

from catalog.events.registration import last_round, planned_rounds, registrations
from catalog.events.running import matches
from catalog.models import Event, Match, PairingChange, Registration, Round, Season
from catalog.models.event_columns import EVENT, REG, ROUND


@dataclass(frozen=True)
class TableView:
    table: int
    a: Registration
    b: Registration | None
    match: Match


@dataclass(frozen=True)
class RoundView:
    number: int
    round: Round | None
    tables: list[TableView]

    @property
    def by_name(self) -> list[tuple[Registration, int, Registration | None]]:
        """Every player with their table and opponent, alphabetically (for the wall)."""
        seats: list[tuple[Registration, int, Registration | None]] = []
        for t in self.tables:
            seats.append((t.a, t.table, t.b))
            if t.b is not None:
                seats.append((t.b, t.table, t.a))
        return sorted(seats, key=lambda s: s[0].player_key)

    def ends_at(self, minutes: int) -> datetime | None:
        if self.round is None or self.round.started_at is None:
            return None
        return self.round.started_at + timedelta(minutes=minutes)


def list_events(*, session: Session, limit: int = 200) -> list[Event]:
    return list(session.scalars(select(Event).order_by(EVENT.date.desc(), EVENT.id.desc()).limit(limit)))


def events_of_user(*, session: Session, user_id: int) -> list[tuple[Event, Registration | None]]:
    """Events the user plays in or organises, newest first, with their registration."""
    rows = session.execute(
        select(Event, Registration)
        .outerjoin(Registration, (REG.event_id == EVENT.id) & (REG.user_id == user_id))
        .where(or_(REG.user_id == user_id, EVENT.organizer_id == user_id))
        .order_by(EVENT.date.desc(), EVENT.id.desc())
        .limit(500)
    )
    return [(e, r) for e, r in rows]


def my_registration(*, session: Session, event: Event, user_id: int) -> Registration | None:
    return session.scalars(select(Registration).where(REG.event_id == event.id, REG.user_id == user_id)).first()


def round_view(*, session: Session, event: Event, number: int | None = None) -> RoundView | None:
    """A round's tables with the players (default: the last round); None before round 1."""
    number = last_round(session=session, event=event) if number is None else number
    if number < 1:
        return None
    regs = {r.id: r for r in registrations(session=session, event=event)}
    row = session.scalars(select(Round).where(ROUND.event_id == event.id, ROUND.number == number)).first()
    tables = [
        TableView(m.table_number, regs[m.player_a_id], regs.get(m.player_b_id) if m.player_b_id else None, m)
        for m in matches(session=session, event=event, round_number=number)
    ]
    return RoundView(number, row, tables)


def pairing_changes(*, session: Session, event: Event) -> list[PairingChange]:
    return list(
        session.scalars(select(PairingChange).where(PairingChange.event_id == event.id).order_by(PairingChange.id))  # type: ignore[arg-type]  # SQLModel types the column comparison as bool, SQLAlchemy takes it
    )


def season_of(*, session: Session, event: Event) -> Season | None:
    return session.get(Season, event.season_id) if event.season_id is not None else None


def list_seasons(*, session: Session) -> list[Season]:
    return list(session.scalars(select(Season).order_by(Season.code)))


def total_rounds(*, session: Session, event: Event) -> int:
    return planned_rounds(session=session, event=event)


def page_version(*, session: Session, event: Event) -> str:
    """A short string that changes whenever the public event page would: the state, the round
    paired, the results in (the page's script polls it and reloads; a GET, it writes nothing)."""
    last = last_round(session=session, event=event)
    reported = sum(1 for m in matches(session=session, event=event, round_number=last) if m.reported) if last else 0
    return f"{event.state}:{last}:{reported}:{int(event.chests_awarded)}"

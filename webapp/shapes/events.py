"""The events' shapes (DESIGN §12): an event, a round's pairings, the standings, a registration,
a result (read and sent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ConfigDict, Field
from pydantic.config import JsonDict
from sqlmodel import Session

from catalog.events import reads as views  # the events read models
from catalog.events import running
from catalog.events.registration import last_round, planned_rounds, registrations
from catalog.events.running import standings
from catalog.models import Event as EventRow
from catalog.models import Registration as RegistrationRow
from catalog.numbers import INT32
from webapp.shapes import Number, Shape, WholeNumber


class Event(Shape):
    """The public facts of an event (no decklists)."""

    id: int
    name: str
    game: str
    format: str | None = None
    date: str = Field(json_schema_extra={"format": "date"})
    store: str | None = None
    city: str | None = None
    region: str | None = None
    kind: str | None = Field(None, json_schema_extra={"enum": ["monthly", "bawang", "qualifier"]})
    state: str = Field(json_schema_extra={"enum": ["open", "closed", "running", "finished"]})
    round: int = Field(description="the last round paired (0 before round 1)")
    rounds: int = Field(description="planned Swiss rounds (fixed, or MTR Appendix E)")
    round_minutes: int | None = None
    players: int | None = None
    lists_published: bool | None = None

    @classmethod
    def of(cls, *, session: Session, event: EventRow) -> Event:
        assert event.id is not None
        return cls(
            id=event.id,
            name=event.name,
            game=event.game,
            format=event.format_code,
            date=event.date.isoformat(),
            store=event.store,
            city=event.city,
            region=event.region,
            kind=event.kind,
            state=event.state,
            round=last_round(session=session, event=event),
            rounds=planned_rounds(session=session, event=event),
            round_minutes=event.round_minutes,
            players=len(registrations(session=session, event=event)),
            lists_published=event.lists_published,
        )


class EventList(Shape):
    events: list[Event]


class Pairing(Shape):
    table: int
    player_a: str
    player_b: str | None = Field(description="null: a bye (2–0 win)")


class Pairings(Shape):
    """A round's pairings: ``{"event", "round", "pairings": [{"table", "player_a", "player_b"}]}``."""

    event: int
    round: int
    pairings: list[Pairing]

    @classmethod
    def of(cls, *, session: Session, event: EventRow, number: int | None = None) -> Pairings:
        assert event.id is not None
        current = views.round_view(session=session, event=event, number=number)
        return cls(
            event=event.id,
            round=current.number if current else 0,
            pairings=[
                Pairing(table=t.table, player_a=t.a.player_name, player_b=t.b.player_name if t.b else None)
                for t in (current.tables if current else [])
            ],
        )


class Standing(Shape):
    rank: int
    player: str
    points: int
    omw: Number
    gw: Number
    ogw: Number
    played: int
    won: int
    drawn: int
    lost: int
    byes: int


class Standings(Shape):
    """The standings of DESIGN §12 (the API and the CLI's ``--json``)."""

    event: int
    round: int
    standings: list[Standing] = Field(
        description="MTR tiebreakers, fractions 0–1: OMW/OGW floor each opponent at 1/3; byes are no opponents"
    )

    @classmethod
    def of(cls, *, session: Session, event: EventRow, up_to: int | None = None) -> Standings:
        assert event.id is not None
        table = standings(session=session, event=event, up_to=up_to)
        return cls(
            event=event.id,
            round=table.round,
            standings=[
                Standing(
                    rank=s.rank,
                    player=s.record.entrant.name,
                    points=s.record.points,
                    omw=round(float(s.record.omw), 6),
                    gw=round(float(s.record.gw), 6),
                    ogw=round(float(s.record.ogw), 6),
                    played=s.record.played,
                    won=s.record.won,
                    drawn=s.record.drawn,
                    lost=s.record.lost,
                    byes=s.record.byes,
                )
                for s in table.rows
            ],
        )


class Registration(Shape):
    id: int | None = None
    player: str | None = None
    legal: bool | None = None
    deck_hash: str | None = Field(None, description="SHA-256 of the canonical list")
    first_round: int | None = None
    dropped_from: int | None = None
    verdict: dict[str, Any] | None = Field(None, description="DESIGN §5 verdict in the event's format")
    deck: str | None = None

    @classmethod
    def of(cls, entry: RegistrationRow) -> Registration:
        return cls(
            id=entry.id,
            player=entry.player_name,
            legal=entry.legal,
            deck_hash=entry.deck_hash,
            first_round=entry.first_round,
            dropped_from=entry.dropped_from,
            verdict=entry.verdict,
            deck=entry.deck_text,
        )


class RegistrationRequest(Shape):
    deck: str | None = None
    player: str | None = Field(None, description="walk-in (organiser); null: none")


# The bounds are the document's; the server's checks are the domain's (catalog.numbers.parse_int,
# catalog.events.running), whose messages say what is wrong with a result.
_TABLE: JsonDict = {"minimum": 1, "maximum": INT32}
_GAMES: JsonDict = {"minimum": 0, "maximum": running.MAX_GAMES}


def _no_default(extra: JsonDict) -> Callable[[JsonDict], None]:
    def amend(schema: JsonDict) -> None:
        schema.pop("default", None)
        schema.update(extra)

    return amend


class ResultReport(Shape):
    model_config = ConfigDict(json_schema_extra={"description": f"1 to {running.MAX_GAMES} games in all"})

    round: WholeNumber = Field(json_schema_extra=_TABLE)
    table: WholeNumber = Field(json_schema_extra=_TABLE)
    wins_a: WholeNumber = Field(json_schema_extra=_GAMES)
    wins_b: WholeNumber = Field(json_schema_extra=_GAMES)
    # none, when left out (the document, as before, names no default)
    draws: WholeNumber = Field(0, json_schema_extra=_no_default(_GAMES))


class ResultAnswer(Shape):
    """``recorded`` (the organiser's result) or ``reported`` (a player's, waiting for the organiser)."""

    status: str = Field(json_schema_extra={"enum": ["recorded", "reported"]})
    report: int | None = Field(None, description="reported: the report's id")
    round: int
    table: int

"""Events in the API: read-only events, pairings and standings (public); registration
and result reporting with a bearer token.

A result posted by the event's organiser (or an admin) is recorded at once; one posted by a
player at that table is a report the organiser confirms. Errors change nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import jsonify, request

from catalog.decks.lists import DecklistError
from catalog.errors import LunzangError
from catalog.events import reads as views  # the events read models
from catalog.events import registration as reg
from catalog.events import running
from catalog.models import Event
from catalog.numbers import BadNumber, parse_int
from webapp.api import ApiError, bp, read_body
from webapp.api.auth import api_user, require_api_user
from webapp.api.openapi import Answer, operation, parameter, refusal
from webapp.db import get_session
from webapp.helpers import utcnow
from webapp.shapes import events as shapes

_ID = parameter("event_id", "path", {"type": "integer"})
_EVENT_IN_PATH = "$request.path.event_id"
_ROUND = parameter("round", "query", {"type": "integer", "minimum": 0})


def _event_links(event_id: str) -> dict[str, Any]:
    """OpenAPI links from an answer naming an event (runtime expression ``event_id``) to its
    pages and writes (schemathesis' stateful phase follows them)."""
    targets = ("getEvent", "eventPairings", "eventStandings", "registerForEvent", "reportResult")
    return {target[0].upper() + target[1:]: {"operationId": target, "parameters": {"event_id": event_id}}
            for target in targets}  # fmt: skip


@contextmanager
def event_errors() -> Iterator[None]:
    """Domain errors as API errors, the request's writes undone."""
    try:
        yield
    except DecklistError as error:
        details = [{"line": p.line, "message": p.message.zh, "message_en": p.message.en} for p in error.problems]
        raise ApiError(422, "unreadable_decklist", error.message.zh, error.message.en, details=details) from error
    except LunzangError as error:
        raise ApiError(error.status, error.code, error.message.zh, error.message.en) from error


def _event(event_id: int, *, lock: bool = False) -> Event:
    with event_errors():
        return reg.get_event(session=get_session(), event_id=event_id, lock=lock)


def _round_arg() -> int | None:
    raw = request.args.get("round")
    if raw is None:
        return None
    try:
        return parse_int(raw, field="round", high=9999)
    except BadNumber as error:
        raise ApiError(400, "bad_parameter", error.message.zh, error.message.en) from error


@operation(
    "get",
    "/events",
    summary="Events, newest first",
    operation_id="listEvents",
    answers={
        200: Answer(
            "{events: [Event]}",
            shapes.EventList,
            links=_event_links("$response.body#/events/0/id")
            | {f"{k}Second": v for k, v in _event_links("$response.body#/events/1/id").items()},
        )
    },
)
@bp.get("/events")
def api_events() -> Any:
    session = get_session()
    events = [shapes.Event.of(session=session, event=e) for e in views.list_events(session=session)]
    return jsonify(shapes.EventList(events=events).body())


@operation(
    "get",
    "/events/{event_id}",
    summary="One event",
    operation_id="getEvent",
    parameters=[_ID],
    answers={
        200: Answer("The event", shapes.Event, links=_event_links("$response.body#/id")),
        404: refusal("No such event"),
    },
)
@bp.get("/events/<int:event_id>")
def api_event(event_id: int) -> Any:
    return jsonify(shapes.Event.of(session=get_session(), event=_event(event_id)).body())


@operation(
    "get",
    "/events/{event_id}/pairings",
    summary="A round's pairings (default: the last round)",
    operation_id="eventPairings",
    parameters=[_ID, _ROUND],
    answers={
        200: Answer(
            "Pairings",
            shapes.Pairings,
            links={
                "ReportFirstTable": {
                    "operationId": "reportResult",
                    "parameters": {"event_id": "$response.body#/event"},
                    "requestBody": {"round": "$response.body#/round", "table": "$response.body#/pairings/0/table"},
                },
                "Standings": {"operationId": "eventStandings", "parameters": {"event_id": "$response.body#/event"}},
            },
        ),
        404: refusal("No such event or round"),
    },
)
@bp.get("/events/<int:event_id>/pairings")
def api_pairings(event_id: int) -> Any:
    event = _event(event_id)
    number = _round_arg()
    with event_errors():
        if number is not None and not 1 <= number <= reg.last_round(session=get_session(), event=event):
            raise reg.EventNotFound(reg.Message(f"第 {number} 轮还没有配对", f"round {number} is not paired"))
        return jsonify(shapes.Pairings.of(session=get_session(), event=event, number=number).body())


@operation(
    "get",
    "/events/{event_id}/standings",
    summary="Standings after a round (default: the last round)",
    operation_id="eventStandings",
    parameters=[_ID, _ROUND],
    answers={200: Answer("Standings", shapes.Standings), 400: refusal("Bad round")},
)
@bp.get("/events/<int:event_id>/standings")
def api_standings(event_id: int) -> Any:
    event = _event(event_id)
    with event_errors():
        return jsonify(shapes.Standings.of(session=get_session(), event=event, up_to=_round_arg()).body())


@operation(
    "post",
    "/events/{event_id}/registrations",
    summary="Register the token's user with a list, or change it before the deadline; organisers add walk-ins",
    operation_id="registerForEvent",
    security=[{"bearerAuth": []}],
    parameters=[_ID],
    body=shapes.RegistrationRequest,
    body_required=False,
    inline_body=True,
    answers={
        201: Answer("Registered", shapes.Registration, links=_event_links("$request.path.event_id")),
        200: Answer("The list was changed", shapes.Registration),
        401: refusal("No or a bad token"),
        403: refusal("Only the organiser adds walk-ins"),
        409: refusal("The lists are locked"),
        422: refusal("The decklist cannot be read"),
    },
)
@bp.post("/events/<int:event_id>/registrations")
@require_api_user
def api_register(event_id: int) -> Any:
    """Register the token's user (``{"deck": text}``), or change their list before the deadline;
    the organiser may enter a walk-in with ``{"player": name, "deck": text}``."""
    user = api_user()
    event = _event(event_id, lock=True)
    body = read_body(shapes.RegistrationRequest)
    deck = body.deck
    session = get_session()
    with event_errors():
        if body.player is not None:
            reg.require_manager(event, user)
            entry = reg.register_player(
                session=session, event=event, player_name=body.player, now=utcnow(), deck_text=deck or None
            )
            return jsonify(shapes.Registration.of(entry).body()), 201
        mine = views.my_registration(session=session, event=event, user_id=user.id)  # type: ignore[arg-type]  # a signed-in user row has an id
        if mine is not None:
            if not deck:
                raise ApiError(400, "bad_request", "已报名：要修改卡组请给出 deck", "already registered: send 'deck'")
            reg.set_deck(session=session, event=event, registration=mine, text=deck, now=utcnow())
            return jsonify(shapes.Registration.of(mine).body()), 200
        entry = reg.register_player(
            session=session, event=event, player_name=user.username, now=utcnow(), user_id=user.id,
            deck_text=deck or None,
        )  # fmt: skip
        return jsonify(shapes.Registration.of(entry).body()), 201


@operation(
    "post",
    "/events/{event_id}/results",
    summary="A table's result: recorded when the organiser sends it, a report to confirm when a player does",
    operation_id="reportResult",
    security=[{"bearerAuth": []}],
    parameters=[_ID],
    body=shapes.ResultReport,
    body_required=False,
    inline_body=True,
    answers={
        200: Answer(
            "Recorded (organiser)",
            shapes.ResultAnswer,
            links={
                "Standings": {"operationId": "eventStandings", "parameters": {"event_id": "$request.path.event_id"}}
            },
        ),
        202: Answer("Reported, waiting for the organiser", shapes.ResultAnswer),
        400: refusal("Impossible result, or not your table"),
        401: refusal("No or a bad token"),
        404: refusal("No such event, round or table"),
    },
)
@bp.post("/events/<int:event_id>/results")
@require_api_user
def api_result(event_id: int) -> Any:
    """``{"round", "table", "wins_a", "wins_b", "draws"}``: recorded (organiser) or reported (player)."""
    user = api_user()
    event = _event(event_id, lock=True)
    body = read_body(shapes.ResultReport)
    # bounded by their columns (2³¹−1): else 400 naming the key
    number, table = parse_int(body.round, field="round"), parse_int(body.table, field="table")
    wins_a, wins_b = parse_int(body.wins_a, field="wins_a"), parse_int(body.wins_b, field="wins_b")
    draws = parse_int(body.draws, field="draws")
    session = get_session()
    with event_errors():
        match = running.get_match(session=session, event=event, round_number=number, table=table)
        if reg.can_manage(event, user):
            running.record_result(
                session=session, event=event, match=match, wins_a=wins_a, wins_b=wins_b, draws=draws, now=utcnow()
            )
            return jsonify(shapes.ResultAnswer(status="recorded", round=number, table=table).body()), 200
        report = running.report_as_player(
            session=session, event=event, match=match, user_id=user.id, wins_a=wins_a, wins_b=wins_b,  # type: ignore[arg-type]  # a signed-in user row has an id
            draws=draws, now=utcnow(),
        )  # fmt: skip
        answer = shapes.ResultAnswer(status="reported", report=report.id, round=number, table=table)
        return jsonify(answer.body()), 202

"""Events in the API (issue 14 §9): read-only events, pairings and standings (public); registration
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
from catalog.models import Event, Registration
from catalog.numbers import BadNumber, parse_int
from webapp.api import ApiError, bp
from webapp.api.auth import api_user, require_api_user
from webapp.api.openapi import PATHS, SCHEMAS
from webapp.db import get_session
from webapp.helpers import utcnow


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


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "请求体应是 JSON 对象", "the body must be a JSON object")
    return body


def _int(body: dict[str, Any], key: str, default: int | None = None) -> int:
    """A JSON integer bounded by its column (2³¹−1): else 400 naming the key."""
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, "bad_request", f"{key} 应为整数", f"'{key}' must be a whole number")
    return parse_int(value, field=key)


def registration_data(entry: Registration, *, with_deck: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": entry.id,
        "player": entry.player_name,
        "legal": entry.legal,
        "deck_hash": entry.deck_hash,
        "first_round": entry.first_round,
        "dropped_from": entry.dropped_from,
    }
    if with_deck:
        data["verdict"] = entry.verdict
        data["deck"] = entry.deck_text
    return data


@bp.get("/events")
def api_events() -> Any:
    session = get_session()
    return jsonify({"events": [views.event_data(session=session, event=e) for e in views.list_events(session=session)]})


@bp.get("/events/<int:event_id>")
def api_event(event_id: int) -> Any:
    return jsonify(views.event_data(session=get_session(), event=_event(event_id)))


@bp.get("/events/<int:event_id>/pairings")
def api_pairings(event_id: int) -> Any:
    event = _event(event_id)
    number = _round_arg()
    with event_errors():
        if number is not None and not 1 <= number <= reg.last_round(session=get_session(), event=event):
            raise reg.EventNotFound(reg.Message(f"第 {number} 轮还没有配对", f"round {number} is not paired"))
        return jsonify(views.pairings_data(session=get_session(), event=event, number=number))


@bp.get("/events/<int:event_id>/standings")
def api_standings(event_id: int) -> Any:
    event = _event(event_id)
    with event_errors():
        return jsonify(views.standings_data(session=get_session(), event=event, up_to=_round_arg()))


@bp.post("/events/<int:event_id>/registrations")
@require_api_user
def api_register(event_id: int) -> Any:
    """Register the token's user (``{"deck": text}``), or change their list before the deadline;
    the organiser may enter a walk-in with ``{"player": name, "deck": text}``."""
    user = api_user()
    event = _event(event_id, lock=True)
    body = _body()
    deck = body.get("deck")
    if deck is not None and not isinstance(deck, str):
        raise ApiError(400, "bad_request", "deck 应为卡组文本", "'deck' must be decklist text")
    session = get_session()
    with event_errors():
        if body.get("player") is not None:
            reg.require_manager(event, user)
            entry = reg.register_player(
                session=session, event=event, player_name=str(body["player"]), now=utcnow(), deck_text=deck or None
            )
            return jsonify(registration_data(entry, with_deck=True)), 201
        mine = views.my_registration(session=session, event=event, user_id=user.id)  # type: ignore[arg-type]  # a signed-in user row has an id
        if mine is not None:
            if not deck:
                raise ApiError(400, "bad_request", "已报名：要修改卡组请给出 deck", "already registered: send 'deck'")
            reg.set_deck(session=session, event=event, registration=mine, text=deck, now=utcnow())
            return jsonify(registration_data(mine, with_deck=True)), 200
        entry = reg.register_player(
            session=session, event=event, player_name=user.username, now=utcnow(), user_id=user.id,
            deck_text=deck or None,
        )  # fmt: skip
        return jsonify(registration_data(entry, with_deck=True)), 201


@bp.post("/events/<int:event_id>/results")
@require_api_user
def api_result(event_id: int) -> Any:
    """``{"round", "table", "wins_a", "wins_b", "draws"}``: recorded (organiser) or reported (player)."""
    user = api_user()
    event = _event(event_id, lock=True)
    body = _body()
    number, table = _int(body, "round"), _int(body, "table")
    wins_a, wins_b, draws = _int(body, "wins_a"), _int(body, "wins_b"), _int(body, "draws", 0)
    session = get_session()
    with event_errors():
        match = running.get_match(session=session, event=event, round_number=number, table=table)
        if reg.can_manage(event, user):
            running.record_result(
                session=session, event=event, match=match, wins_a=wins_a, wins_b=wins_b, draws=draws, now=utcnow()
            )
            return jsonify({"status": "recorded", "round": number, "table": table}), 200
        report = running.report_as_player(
            session=session, event=event, match=match, user_id=user.id, wins_a=wins_a, wins_b=wins_b,  # type: ignore[arg-type]  # a signed-in user row has an id
            draws=draws, now=utcnow(),
        )  # fmt: skip
        return jsonify({"status": "reported", "report": report.id, "round": number, "table": table}), 202


_ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
_ROUND = {"name": "round", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0}}
_ID = {"name": "event_id", "in": "path", "required": True, "schema": {"type": "integer"}}


def _event_links(event_id: str) -> dict[str, Any]:
    """OpenAPI links from an answer naming an event (runtime expression ``event_id``) to its
    pages and writes (issue 28 §11: schemathesis' stateful phase follows them)."""
    targets = ("getEvent", "eventPairings", "eventStandings", "registerForEvent", "reportResult")
    return {target[0].upper() + target[1:]: {"operationId": target, "parameters": {"event_id": event_id}}
            for target in targets}  # fmt: skip


def _json(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


SCHEMAS["Event"] = {
    "type": "object",
    "required": ["id", "name", "game", "date", "state", "round", "rounds"],
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "game": {"type": "string"},
        "format": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "store": {"type": "string"},
        "city": {"type": "string"},
        "region": {"type": "string"},
        "kind": {"type": "string", "enum": ["monthly", "bawang", "qualifier"]},
        "state": {"type": "string", "enum": ["open", "closed", "running", "finished"]},
        "round": {"type": "integer", "description": "the last round paired (0 before round 1)"},
        "rounds": {"type": "integer", "description": "planned Swiss rounds (fixed, or MTR Appendix E)"},
        "round_minutes": {"type": "integer"},
        "players": {"type": "integer"},
        "lists_published": {"type": "boolean"},
    },
}
SCHEMAS["Pairings"] = {
    "type": "object",
    "required": ["event", "round", "pairings"],
    "properties": {
        "event": {"type": "integer"},
        "round": {"type": "integer"},
        "pairings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "table": {"type": "integer"},
                    "player_a": {"type": "string"},
                    "player_b": {"type": ["string", "null"], "description": "null: a bye (2–0 win)"},
                },
            },
        },
    },
}
SCHEMAS["Standings"] = {
    "type": "object",
    "required": ["event", "round", "standings"],
    "properties": {
        "event": {"type": "integer"},
        "round": {"type": "integer"},
        "standings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    key: {
                        "type": "number"
                        if key in ("omw", "gw", "ogw")
                        else ("string" if key == "player" else "integer")
                    }
                    for key in (
                        "rank",
                        "player",
                        "points",
                        "omw",
                        "gw",
                        "ogw",
                        "played",
                        "won",
                        "drawn",
                        "lost",
                        "byes",
                    )
                },
            },
            "description": "MTR tiebreakers, fractions 0–1: OMW/OGW floor each opponent at 1/3; byes are no opponents",
        },
    },
}
SCHEMAS["Registration"] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "player": {"type": "string"},
        "legal": {"type": ["boolean", "null"]},
        "deck_hash": {"type": "string", "description": "SHA-256 of the canonical list"},
        "first_round": {"type": "integer"},
        "dropped_from": {"type": ["integer", "null"]},
        "verdict": {"type": "object", "description": "DESIGN §5 verdict in the event's format"},
        "deck": {"type": "string"},
    },
}
PATHS["/events"] = {
    "get": {
        "summary": "Events, newest first",
        "operationId": "listEvents",
        "responses": {
            "200": {
                "description": "{events: [Event]}",
                "links": _event_links("$response.body#/events/0/id")
                | {f"{k}Second": v for k, v in _event_links("$response.body#/events/1/id").items()},
            }
        },
    }
}
PATHS["/events/{event_id}"] = {
    "get": {
        "summary": "One event",
        "operationId": "getEvent",
        "parameters": [_ID],
        "responses": {
            "200": {"description": "The event", **_json("Event"), "links": _event_links("$response.body#/id")},
            "404": {"description": "No such event", **_ERROR},
        },
    }
}
PATHS["/events/{event_id}/pairings"] = {
    "get": {
        "summary": "A round's pairings (default: the last round)",
        "operationId": "eventPairings",
        "parameters": [_ID, _ROUND],
        "responses": {
            "200": {
                "description": "Pairings",
                **_json("Pairings"),
                "links": {
                    "ReportFirstTable": {
                        "operationId": "reportResult",
                        "parameters": {"event_id": "$response.body#/event"},
                        "requestBody": {"round": "$response.body#/round", "table": "$response.body#/pairings/0/table"},
                    },
                    "Standings": {"operationId": "eventStandings", "parameters": {"event_id": "$response.body#/event"}},
                },
            },
            "404": {"description": "No such event or round", **_ERROR},
        },
    }
}
PATHS["/events/{event_id}/standings"] = {
    "get": {
        "summary": "Standings after a round (default: the last round)",
        "operationId": "eventStandings",
        "parameters": [_ID, _ROUND],
        "responses": {
            "200": {"description": "Standings", **_json("Standings")},
            "400": {"description": "Bad round", **_ERROR},
        },
    }
}
PATHS["/events/{event_id}/registrations"] = {
    "post": {
        "summary": "Register the token's user with a list, or change it before the deadline; organisers add walk-ins",
        "operationId": "registerForEvent",
        "security": [{"bearerAuth": []}],
        "parameters": [_ID],
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "deck": {"type": ["string", "null"]},
                            "player": {"type": ["string", "null"], "description": "walk-in (organiser); null: none"},
                        },
                    }
                }
            }
        },
        "responses": {
            "201": {
                "description": "Registered",
                **_json("Registration"),
                "links": _event_links("$request.path.event_id"),
            },
            "200": {"description": "The list was changed", **_json("Registration")},
            "401": {"description": "No or a bad token", **_ERROR},
            "403": {"description": "Only the organiser adds walk-ins", **_ERROR},
            "409": {"description": "The lists are locked", **_ERROR},
            "422": {"description": "The decklist cannot be read", **_ERROR},
        },
    }
}
PATHS["/events/{event_id}/results"] = {
    "post": {
        "summary": "A table's result: recorded when the organiser sends it, a report to confirm when a player does",
        "operationId": "reportResult",
        "security": [{"bearerAuth": []}],
        "parameters": [_ID],
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["round", "table", "wins_a", "wins_b"],
                        "properties": {
                            **{k: {"type": "integer", "minimum": 1, "maximum": 2**31 - 1} for k in ("round", "table")},
                            **{
                                k: {"type": "integer", "minimum": 0, "maximum": running.MAX_GAMES}
                                for k in ("wins_a", "wins_b", "draws")
                            },
                        },
                        "description": f"1 to {running.MAX_GAMES} games in all",
                    }
                }
            }
        },
        "responses": {
            "200": {
                "description": "Recorded (organiser)",
                "links": {
                    "Standings": {"operationId": "eventStandings", "parameters": {"event_id": "$request.path.event_id"}}
                },
            },
            "202": {"description": "Reported, waiting for the organiser"},
            "400": {"description": "Impossible result, or not your table", **_ERROR},
            "401": {"description": "No or a bad token", **_ERROR},
            "404": {"description": "No such event, round or table", **_ERROR},
        },
    }
}

"""Trades through the API (DESIGN §11): propose, list, read, act, matches.

Every route acts as the calling user (:func:`api_user`): a token of user A can never act for B,
and a trade of others answers 404 (admins may read any). Writes need a bearer token. A refused
action rolls the request's transaction back before the JSON answer: nothing is changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import jsonify, request

from catalog.accounts import UnknownUser, find_user
from catalog.collection.owned_decks import DeckUnavailable
from catalog.errors import LunzangError
from catalog.trading import (
    TradeConflict,
    TradeNotFound,
    Unavailable,
    accept,
    cancel,
    counter,
    decline,
    dispute,
    mark_received,
    mark_sent,
    propose,
)
from catalog.trading.lines import resolve_lines
from catalog.trading.matching import find_matches
from catalog.trading.reads import STATUS_FILTERS, TradeView, describe_lines, list_trades, trade_view
from webapp.api import ApiError, bp, read_body
from webapp.api.auth import api_user, require_api_user
from webapp.api.openapi import Answer, operation, parameter, refusal, schema_of
from webapp.db import get_session
from webapp.helpers import trade_settings, utcnow
from webapp.shapes import trading as shapes

_AUTH: list[dict[str, list[str]]] = [{"bearerAuth": []}]
_ID = [parameter("trade_id", "path", {"type": "integer"})]
_CONFLICT = refusal("Unavailable lines (error.lines), a stale version or a closed trade")
schema_of(shapes.TradeLineIn, mode="validation")  # the offers' lines (read by resolve_lines)


def _trade_links(trade: str) -> dict[str, Any]:
    """OpenAPI links from an answer holding a trade at JSON pointer ``trade`` to what can be done
    with it next (a client, or schemathesis' stateful phase, follows them)."""
    links: dict[str, Any] = {
        "GetTrade": {"operationId": "getTrade", "parameters": {"trade_id": f"$response.body#{trade}/id"}}
    }
    for name, versioned in _VERSIONED.items():
        link: dict[str, Any] = {"operationId": f"{name}Trade", "parameters": {"trade_id": f"$response.body#{trade}/id"}}
        if versioned:
            link["requestBody"] = {"version": f"$response.body#{trade}/version"}
        links[f"{name.capitalize()}Trade"] = link
    return links


_VERSIONED = {
    "counter": True,
    "accept": True,
    "decline": False,
    "cancel": False,
    "sent": False,
    "received": False,
    "dispute": False,
}


def _action(name: str, summary: str, body: type[shapes.Shape], *, versioned: bool = False) -> Any:
    """The declaration of ``POST /trades/{trade_id}/<name>``: counter/accept need ``version`` (so a
    body), the others take an optional ``{message}`` (sent/received read nothing)."""
    return operation(
        "post",
        f"/trades/{{trade_id}}/{name}",
        summary=summary,
        operation_id=f"{name}Trade",
        security=_AUTH,
        parameters=_ID,
        body=body,
        body_required=versioned,
        inline_body=True,
        answers={
            200: Answer("The trade after the action", shapes.Trade, links=_trade_links("")),
            400: refusal("Bad input"),
            404: refusal("No such trade (or not yours)"),
            409: _CONFLICT,
        },
    )


@contextmanager
def trade_errors() -> Iterator[None]:
    """Domain errors as JSON: 404 unknown trade/user, 409 availability/state/version, else 400."""
    try:
        yield
    except Unavailable as error:
        raise ApiError(409, error.code, error.message.zh, error.message.en, lines=error.lines) from error
    except (TradeNotFound, UnknownUser) as error:
        raise ApiError(404, "not_found", error.message.zh, error.message.en) from error
    except TradeConflict as error:
        raise ApiError(409, error.code, error.message.zh, error.message.en) from error
    except DeckUnavailable as error:
        raise ApiError(409, error.code, error.message.zh, error.message.en) from error
    except LunzangError as error:
        raise ApiError(400, error.code, error.message.zh, error.message.en) from error


def _view_json(trade_id: int, status: int = 200) -> Any:
    user = api_user()
    assert user.id is not None
    view = trade_view(session=get_session(), trade_id=trade_id, viewer_id=user.id, is_admin=False, now=utcnow())
    return jsonify(shapes.Trade.of(view).body()), status


@operation(
    "post",
    "/trades",
    summary="Propose a trade: the proposer's copies are held at once",
    operation_id="proposeTrade",
    security=_AUTH,
    body=shapes.TradeOffer,
    answers={
        201: Answer("The new trade (version 1)", shapes.Trade, links=_trade_links("")),
        400: refusal("Bad input (yourself, quantities, unknown card)"),
        404: refusal("Unknown user"),
        409: _CONFLICT,
    },
)
@bp.post("/trades")
@require_api_user
def create_trade() -> Any:
    user = api_user()
    assert user.id is not None
    body = read_body(shapes.TradeOffer, empty=True)
    session = get_session()
    with trade_errors():
        recipient = find_user(session=session, username=body.to)
        assert recipient.id is not None
        trade = propose(
            session=session,
            proposer_id=user.id,
            recipient_id=recipient.id,
            give=resolve_lines(session, body.give, side="give"),
            get=resolve_lines(session, body.get, side="get"),
            mode=body.mode or "local",
            message=body.message or "",
            now=utcnow(),
            settings=trade_settings(),
            give_decks=body.give_decks or [],
            get_decks=body.get_decks or [],
        )
    assert trade.id is not None
    return _view_json(trade.id, 201)


@operation(
    "get",
    "/trades",
    summary="My trades, newest change first",
    operation_id="listTrades",
    security=_AUTH,
    parameters=[
        # empty (a form's "all") is no filter, as when the parameter is left out
        parameter(
            "status",
            "query",
            {"type": "string", "enum": [*STATUS_FILTERS, ""]},
            description="empty or absent: every status",
        )
    ],
    answers={
        200: Answer("My trades (without their timelines)", shapes.TradeList, links=_trade_links("/trades/0")),
        401: refusal("No token"),
    },
)
@bp.get("/trades")
@require_api_user
def my_trades() -> Any:
    user = api_user()
    assert user.id is not None
    status = request.args.get("status") or None
    if status is not None and status not in STATUS_FILTERS:
        raise ApiError(
            400,
            "bad_parameter",
            f"未知的状态「{status}」，可用：{'、'.join(STATUS_FILTERS)}",
            f"unknown status '{status}'; known: {', '.join(STATUS_FILTERS)}",
        )
    views = list_trades(session=get_session(), user_id=user.id, status=status, now=utcnow())
    return jsonify(shapes.TradeList(trades=[shapes.Trade.of(v, events=False) for v in views]).body())


@operation(
    "get",
    "/trades/{trade_id}",
    summary="One trade with both sides and its timeline (404 unless a party or an admin)",
    operation_id="getTrade",
    security=_AUTH,
    parameters=_ID,
    answers={
        200: Answer("The trade", shapes.Trade, links=_trade_links("")),
        404: refusal("No such trade"),
    },
)
@bp.get("/trades/<int:trade_id>")
@require_api_user
def one_trade(trade_id: int) -> Any:
    user = api_user()
    assert user.id is not None
    with trade_errors():
        view: TradeView = trade_view(
            session=get_session(), trade_id=trade_id, viewer_id=user.id, is_admin=user.role == "admin", now=utcnow()
        )
    return jsonify(shapes.Trade.of(view).body())


@_action(
    "counter",
    "A new version: {version, give, get, message} (give = the caller's copies)",
    shapes.CounterOffer,
    versioned=True,
)
@bp.post("/trades/<int:trade_id>/counter")
@require_api_user
def counter_trade(trade_id: int) -> Any:
    user = api_user()
    assert user.id is not None
    body = read_body(shapes.CounterOffer, empty=True)
    session = get_session()
    with trade_errors():
        counter(
            session=session,
            trade_id=trade_id,
            user_id=user.id,
            version=body.version,
            give=resolve_lines(session, body.give, side="give"),
            get=resolve_lines(session, body.get, side="get"),
            message=body.message or "",
            now=utcnow(),
            settings=trade_settings(),
            give_decks=body.give_decks or [],
            get_decks=body.get_decks or [],
        )
    return _view_json(trade_id)


@_action("accept", "Accept {version}; a local trade settles at once (idempotent)", shapes.Acceptance, versioned=True)
@bp.post("/trades/<int:trade_id>/accept")
@require_api_user
def accept_trade(trade_id: int) -> Any:
    user = api_user()
    assert user.id is not None
    body = read_body(shapes.Acceptance, empty=True)
    with trade_errors():
        accept(session=get_session(), trade_id=trade_id, user_id=user.id, version=body.version, now=utcnow())
    return _view_json(trade_id)


def _simple(action: Any, trade_id: int, *, message: bool) -> Any:
    user = api_user()
    assert user.id is not None
    if message:
        extra = {"message": read_body(shapes.ActionNote, empty=True).message or ""}
    else:
        read_body(shapes.NoFields, empty=True)  # not read, but it must be a JSON object (or nothing)
        extra = {}
    with trade_errors():
        action(session=get_session(), trade_id=trade_id, user_id=user.id, now=utcnow(), **extra)
    return _view_json(trade_id)


@_action("decline", "Decline the other party's version", shapes.ActionNote)
@bp.post("/trades/<int:trade_id>/decline")
@require_api_user
def decline_trade(trade_id: int) -> Any:
    return _simple(decline, trade_id, message=True)


@_action("cancel", "Withdraw an offer; after acceptance both parties must cancel", shapes.ActionNote)
@bp.post("/trades/<int:trade_id>/cancel")
@require_api_user
def cancel_trade(trade_id: int) -> Any:
    return _simple(cancel, trade_id, message=True)


@_action("dispute", "Dispute an accepted or completed trade {message}", shapes.ActionNote)
@bp.post("/trades/<int:trade_id>/dispute")
@require_api_user
def dispute_trade(trade_id: int) -> Any:
    return _simple(dispute, trade_id, message=True)


@_action("sent", "Mail: I posted my cards", shapes.NoFields)
@bp.post("/trades/<int:trade_id>/sent")
@require_api_user
def sent_trade(trade_id: int) -> Any:
    return _simple(mark_sent, trade_id, message=False)


@_action("received", "Mail: I received the other side's cards (they move now; idempotent)", shapes.NoFields)
@bp.post("/trades/<int:trade_id>/received")
@require_api_user
def received_trade(trade_id: int) -> Any:
    return _simple(mark_received, trade_id, message=False)


@operation(
    "get",
    "/trades/matches",
    summary="Trade partners among public lists, ranked by two-sided coverage",
    security=_AUTH,
    answers={200: Answer("{matches: [{user, they_give, i_give, they_give_count, i_give_count}]}", shapes.TradeMatches)},
)
@bp.get("/trades/matches")
@require_api_user
def trade_matches() -> Any:
    user = api_user()
    assert user.id is not None
    session = get_session()
    matches = [
        shapes.TradeMatch.of(
            m, they_give=describe_lines(session, m.they_give), i_give=describe_lines(session, m.i_give)
        )
        for m in find_matches(session=session, user_id=user.id, now=utcnow())
    ]
    return jsonify(shapes.TradeMatches(matches=matches).body())

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
from catalog.numbers import INT32
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
from catalog.trading.reads import STATUS_FILTERS, TradeView, list_trades, trade_view
from webapp.api import ApiError, bp
from webapp.api.auth import api_user, require_api_user
from webapp.api.openapi import PATHS, SCHEMAS
from webapp.db import get_session
from webapp.helpers import trade_settings, utcnow


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


def _deck_ids(body: dict[str, Any], key: str) -> list[int]:
    """Optional whole decks (issue 30): a list of owned deck ids."""
    value = body.get(key) or []
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= INT32 for v in value
    ):
        raise ApiError(400, "bad_request", f"{key} 应是卡组编号的列表", f"'{key}' must be a list of owned deck ids")
    return list(value)


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if body is None and not request.get_data():
        return {}
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "请求体应是 JSON 对象", "the body must be a JSON object")
    return body


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ApiError(400, "bad_request", f"{key} 应是字符串", f"'{key}' must be a string")
    return value


def _version(body: dict[str, Any]) -> int:
    version = body.get("version")
    if isinstance(version, float) and version.is_integer() and 1 <= version <= 2**31 - 1:
        version = int(version)  # JSON Schema counts 3.0 as an integer (the document says integer)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ApiError(
            400,
            "bad_request",
            "缺少 version：请带上你看到的报价版本号（GET 交易得到）",
            "'version' is required: the offer version you saw (from GET /trades/<id>)",
        )
    return version


def _view_json(trade_id: int, status: int = 200) -> Any:
    user = api_user()
    assert user.id is not None
    view = trade_view(session=get_session(), trade_id=trade_id, viewer_id=user.id, is_admin=False, now=utcnow())
    return jsonify(view.to_json()), status


@bp.post("/trades")
@require_api_user
def create_trade() -> Any:
    user = api_user()
    assert user.id is not None
    body = _body()
    to = body.get("to")
    if not isinstance(to, str) or not to.strip():
        raise ApiError(400, "bad_request", "缺少 to（对方的用户名）", "'to' (the other user's name) is required")
    session = get_session()
    with trade_errors():
        recipient = find_user(session=session, username=to.strip())
        assert recipient.id is not None
        trade = propose(
            session=session,
            proposer_id=user.id,
            recipient_id=recipient.id,
            give=resolve_lines(session, body.get("give"), side="give"),
            get=resolve_lines(session, body.get("get"), side="get"),
            mode=_text(body, "mode") or "local",
            message=_text(body, "message"),
            now=utcnow(),
            settings=trade_settings(),
            give_decks=_deck_ids(body, "give_decks"),
            get_decks=_deck_ids(body, "get_decks"),
        )
    assert trade.id is not None
    return _view_json(trade.id, 201)


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
    return jsonify({"trades": [v.to_json(events=False) for v in views]})


@bp.get("/trades/<int:trade_id>")
@require_api_user
def one_trade(trade_id: int) -> Any:
    user = api_user()
    assert user.id is not None
    with trade_errors():
        view: TradeView = trade_view(
            session=get_session(), trade_id=trade_id, viewer_id=user.id, is_admin=user.role == "admin", now=utcnow()
        )
    return jsonify(view.to_json())


@bp.post("/trades/<int:trade_id>/counter")
@require_api_user
def counter_trade(trade_id: int) -> Any:
    user = api_user()
    assert user.id is not None
    body = _body()
    session = get_session()
    with trade_errors():
        counter(
            session=session,
            trade_id=trade_id,
            user_id=user.id,
            version=_version(body),
            give=resolve_lines(session, body.get("give"), side="give"),
            get=resolve_lines(session, body.get("get"), side="get"),
            message=_text(body, "message"),
            now=utcnow(),
            settings=trade_settings(),
            give_decks=_deck_ids(body, "give_decks"),
            get_decks=_deck_ids(body, "get_decks"),
        )
    return _view_json(trade_id)


@bp.post("/trades/<int:trade_id>/accept")
@require_api_user
def accept_trade(trade_id: int) -> Any:
    user = api_user()
    assert user.id is not None
    body = _body()
    with trade_errors():
        accept(session=get_session(), trade_id=trade_id, user_id=user.id, version=_version(body), now=utcnow())
    return _view_json(trade_id)


def _simple(action: Any, trade_id: int, *, message: bool) -> Any:
    user = api_user()
    assert user.id is not None
    body = _body()
    extra = {"message": _text(body, "message")} if message else {}
    with trade_errors():
        action(session=get_session(), trade_id=trade_id, user_id=user.id, now=utcnow(), **extra)
    return _view_json(trade_id)


@bp.post("/trades/<int:trade_id>/decline")
@require_api_user
def decline_trade(trade_id: int) -> Any:
    return _simple(decline, trade_id, message=True)


@bp.post("/trades/<int:trade_id>/cancel")
@require_api_user
def cancel_trade(trade_id: int) -> Any:
    return _simple(cancel, trade_id, message=True)


@bp.post("/trades/<int:trade_id>/dispute")
@require_api_user
def dispute_trade(trade_id: int) -> Any:
    return _simple(dispute, trade_id, message=True)


@bp.post("/trades/<int:trade_id>/sent")
@require_api_user
def sent_trade(trade_id: int) -> Any:
    return _simple(mark_sent, trade_id, message=False)


@bp.post("/trades/<int:trade_id>/received")
@require_api_user
def received_trade(trade_id: int) -> Any:
    return _simple(mark_received, trade_id, message=False)


@bp.get("/trades/matches")
@require_api_user
def trade_matches() -> Any:
    from catalog.trading.reads import describe_lines

    user = api_user()
    assert user.id is not None
    session = get_session()
    matches = find_matches(session=session, user_id=user.id, now=utcnow())
    return jsonify(
        {
            "matches": [
                {
                    "user": m.username,
                    "they_give": describe_lines(session, m.they_give),
                    "i_give": describe_lines(session, m.i_give),
                    "they_give_count": m.they_give_count,
                    "i_give_count": m.i_give_count,
                }
                for m in matches
            ]
        }
    )


# ---------------------------------------------------------------------------- OpenAPI

_ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
_TRADE = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Trade"}}}}
SCHEMAS["TradeLineIn"] = {
    "type": "object",
    "required": ["set", "number", "quantity"],
    "properties": {
        "set": {"type": "string", "description": "系列代号，如 M4"},
        "number": {"type": "string", "description": "收藏编号，如 M4-001"},
        "condition": {"type": "string", "description": "品相，默认 NM"},
        "language": {"type": "string", "description": "语言，默认 简中"},
        "finish": {"type": "string", "description": "工艺，默认 普通"},
        "game": {"type": "string"},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 999},
    },
}
SCHEMAS["TradeLine"] = {
    "type": "object",
    "properties": {
        k: {"type": "integer" if k == "quantity" else "string"}
        for k in ("set", "number", "name", "game", "rarity", "condition", "language", "finish", "quantity")
    },
}
_SIDE = {
    "type": "object",
    "properties": {
        "user": {"type": "string"},
        "gives": {"type": "array", "items": {"$ref": "#/components/schemas/TradeLine"}},
        "sent_at": {"type": ["string", "null"]},
        "received_at": {"type": ["string", "null"], "description": "mail: when these cards moved"},
    },
}
SCHEMAS["Trade"] = {
    "type": "object",
    "required": ["id", "status", "version"],
    "properties": {
        "id": {"type": "integer"},
        "status": {"type": "string", "enum": list(STATUS_FILTERS)},
        "version": {"type": "integer", "description": "send it back with counter/accept (409 when stale)"},
        "mode": {"type": "string", "enum": ["local", "mail"]},
        "proposer": {"type": "string"},
        "recipient": {"type": "string"},
        "author": {"type": "string", "description": "who wrote the current version (the other party accepts it)"},
        "message": {"type": "string"},
        "needs_attention": {"type": "boolean"},
        "cancel_requested_by": {"type": ["string", "null"]},
        "expires_at": {"type": "string"},
        "proposer_side": _SIDE,
        "recipient_side": _SIDE,
        "events": {"type": "array", "items": {"type": "object"}},
    },
}
SCHEMAS["TradeOffer"] = {
    "type": "object",
    "required": ["to"],
    "properties": {
        "to": {"type": "string", "description": "对方用户名"},
        # null is read as "not given" (an empty side, local, no message), as the server does
        "give": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/TradeLineIn"}},
        "get": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/TradeLineIn"}},
        "mode": {"type": ["string", "null"], "enum": ["local", "mail", None], "default": "local"},
        "message": {"type": ["string", "null"], "maxLength": 1000},
        "give_decks": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": INT32},
            "description": "自己整副交出的卡组编号",
        },
        "get_decks": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": INT32},
            "description": "对方整副交出的卡组编号",
        },
    },
}
_ID = [{"name": "trade_id", "in": "path", "required": True, "schema": {"type": "integer"}}]


_ACTIONS = {
    "counter": ("A new version: {version, give, get, message} (give = the caller's copies)", True),
    "accept": ("Accept {version}; a local trade settles at once (idempotent)", True),
    "decline": ("Decline the other party's version", False),
    "cancel": ("Withdraw an offer; after acceptance both parties must cancel", False),
    "sent": ("Mail: I posted my cards", False),
    "received": ("Mail: I received the other side's cards (they move now; idempotent)", False),
    "dispute": ("Dispute an accepted or completed trade {message}", False),
}


def _trade_links(trade: str) -> dict[str, Any]:
    """OpenAPI links from an answer holding a trade at JSON pointer ``trade`` to what can be done
    with it next (issue 28 §11: a client, or schemathesis' stateful phase, follows them)."""
    links: dict[str, Any] = {
        "GetTrade": {"operationId": "getTrade", "parameters": {"trade_id": f"$response.body#{trade}/id"}}
    }
    for name, (_summary, versioned) in _ACTIONS.items():
        link: dict[str, Any] = {"operationId": f"{name}Trade", "parameters": {"trade_id": f"$response.body#{trade}/id"}}
        if versioned:
            link["requestBody"] = {"version": f"$response.body#{trade}/version"}
        links[f"{name.capitalize()}Trade"] = link
    return links


_AUTH: list[dict[str, list[str]]] = [{"bearerAuth": []}]
_CONFLICT = {"description": "Unavailable lines (error.lines), a stale version or a closed trade", **_ERROR}
PATHS["/trades"] = {
    "post": {
        "summary": "Propose a trade: the proposer's copies are held at once",
        "security": _AUTH,
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TradeOffer"}}},
        },
        "operationId": "proposeTrade",
        "responses": {
            "201": {"description": "The new trade (version 1)", **_TRADE, "links": _trade_links("")},
            "400": {"description": "Bad input (yourself, quantities, unknown card)", **_ERROR},
            "404": {"description": "Unknown user", **_ERROR},
            "409": _CONFLICT,
        },
    },
    "get": {
        "summary": "My trades, newest change first",
        "operationId": "listTrades",
        "security": _AUTH,
        "parameters": [
            {
                "name": "status",
                "in": "query",
                # empty (a form's "all") is no filter, as when the parameter is left out
                "schema": {"type": "string", "enum": [*STATUS_FILTERS, ""]},
                "description": "empty or absent: every status",
            }
        ],
        "responses": {
            "200": {
                "description": "My trades (without their timelines)",
                "links": _trade_links("/trades/0"),
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["trades"],
                            "properties": {
                                "trades": {"type": "array", "items": {"$ref": "#/components/schemas/Trade"}}
                            },
                        }
                    }
                },
            },
            "401": {"description": "No token", **_ERROR},
        },
    },
}
PATHS["/trades/{trade_id}"] = {
    "get": {
        "summary": "One trade with both sides and its timeline (404 unless a party or an admin)",
        "operationId": "getTrade",
        "security": _AUTH,
        "parameters": _ID,
        "responses": {
            "200": {"description": "The trade", **_TRADE, "links": _trade_links("")},
            "404": {"description": "No such trade", **_ERROR},
        },
    }
}


def _action_body(name: str, versioned: bool) -> dict[str, Any]:
    """The body an action reads: counter/accept need ``version`` (so a body), the others take an
    optional ``{message}`` (sent/received read nothing)."""
    properties: dict[str, Any] = {}
    if versioned:
        properties["version"] = {"type": "integer", "minimum": 1, "description": "the version you saw"}
    if name == "counter":
        properties |= {
            "give": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/TradeLineIn"}},
            "get": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/TradeLineIn"}},
            "give_decks": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": INT32}},
            "get_decks": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": INT32}},
        }
    if name in ("counter", "decline", "cancel", "dispute"):
        properties["message"] = {"type": ["string", "null"], "maxLength": 1000}  # null: no message
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if versioned:
        schema["required"] = ["version"]
    return {"required": versioned, "content": {"application/json": {"schema": schema}}}


for _name, (_summary, _versioned) in _ACTIONS.items():
    PATHS[f"/trades/{{trade_id}}/{_name}"] = {
        "post": {
            "summary": _summary,
            "operationId": f"{_name}Trade",
            "security": _AUTH,
            "parameters": _ID,
            "requestBody": _action_body(_name, _versioned),
            "responses": {
                "200": {"description": "The trade after the action", **_TRADE, "links": _trade_links("")},
                "400": {"description": "Bad input", **_ERROR},
                "404": {"description": "No such trade (or not yours)", **_ERROR},
                "409": _CONFLICT,
            },
        }
    }
PATHS["/trades/matches"] = {
    "get": {
        "summary": "Trade partners among public lists, ranked by two-sided coverage",
        "security": _AUTH,
        "responses": {"200": {"description": "{matches: [{user, they_give, i_give, they_give_count, i_give_count}]}"}},
    }
}

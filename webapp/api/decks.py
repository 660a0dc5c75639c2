"""``POST /api/v1/decks/check``: a decklist (text or JSON) in, the DESIGN §5 verdict out."""

from __future__ import annotations

import json
from typing import Any

from flask import jsonify, request

from catalog.decks.check import check_decklist
from catalog.decks.lists import DecklistError, write_json
from webapp.api import ApiError, bp
from webapp.api.openapi import PATHS, SCHEMAS
from webapp.db import get_session


def _decklist_text(body: Any) -> tuple[str, str | None, str | None]:
    """(decklist text, game, format) from the request: JSON envelope, JSON deck, or plain text."""
    game = request.args.get("game") or None
    format_code = request.args.get("format") or None
    if request.is_json:
        if not isinstance(body, dict):
            raise ApiError(400, "unreadable_decklist", "请求体应是 JSON 对象", "the body must be a JSON object")
        game = body.get("game") if isinstance(body.get("game"), str) else game
        format_code = body.get("format") if isinstance(body.get("format"), str) else format_code
        decklist = body.get("decklist")
        if decklist is None and any(k in body for k in ("main", "extra", "side")):
            decklist = body  # the body is itself a DESIGN §4 JSON deck
        if isinstance(decklist, dict):
            return json.dumps(decklist, ensure_ascii=False), game, format_code
        if not isinstance(decklist, str):
            raise ApiError(
                400,
                "unreadable_decklist",
                "缺少 decklist：卡组文本或 JSON 卡组",
                "'decklist' is missing: the decklist text or a JSON deck",
            )
        return decklist, game, format_code
    raw = request.get_data(cache=False)
    try:
        return raw.decode("utf-8-sig"), game, format_code
    except UnicodeDecodeError as error:
        raise ApiError(400, "unreadable_decklist", "卡组不是 UTF-8 文本", "the decklist is not UTF-8 text") from error


# A decklist is at most 100,000 characters (catalog.decks.lists.MAX_TEXT_CHARS, ≤ 4 bytes each in
# UTF-8, plus a JSON envelope): bodies above this answer 413 before they are read.
DECK_BODY_LIMIT = 512 * 1024


@bp.post("/decks/check")
def check_deck() -> Any:
    request.max_content_length = DECK_BODY_LIMIT
    body = request.get_json(silent=True) if request.is_json else None
    if request.is_json and body is None:
        raise ApiError(400, "unreadable_decklist", "请求体不是合法的 JSON", "the body is not valid JSON")
    text, game, format_code = _decklist_text(body)
    try:
        result = check_decklist(session=get_session(), text=text, game=game, format_code=format_code)
    except DecklistError as error:
        problems = [{"line": p.line, "message": p.message.zh, "message_en": p.message.en} for p in error.problems]
        raise ApiError(400, error.code, error.message.zh, error.message.en, problems=problems) from error
    answer = result.verdict.to_json()
    answer["deck"] = write_json(result.deck)
    return jsonify(answer)


SCHEMAS["Violation"] = {
    "type": "object",
    "required": ["code", "severity", "message", "cards"],
    "properties": {
        "code": {"type": "string", "description": "DESIGN §5 code, e.g. main_too_small, too_many_copies"},
        "severity": {"type": "string", "enum": ["error", "warning"]},
        "message": {"type": "string", "description": "中文说明"},
        "message_en": {"type": "string"},
        "cards": {"type": "array", "items": {"type": "string"}},
        "counts": {"type": "object", "description": "the numbers behind the message (copies, limit, size …)"},
        "lines": {"type": "array", "items": {"type": "integer"}, "description": "decklist lines concerned"},
        "suggestions": {"type": "array", "items": {"type": "string"}, "description": "unknown_card: nearest names"},
    },
}
SCHEMAS["Verdict"] = {
    "type": "object",
    "required": ["legal", "game", "format", "counts", "violations"],
    "properties": {
        "legal": {"type": "boolean"},
        "game": {"type": "string"},
        "format": {"type": "string"},
        "counts": {
            "type": "object",
            "properties": {s: {"type": "integer"} for s in ("main", "extra", "side")},
        },
        "violations": {"type": "array", "items": {"$ref": "#/components/schemas/Violation"}},
        "deck": {"type": "object", "description": "the resolved deck as DESIGN §4 JSON (canonical names)"},
    },
}
_DECK_LINE = {
    "type": "object",
    "required": ["card", "count"],
    "properties": {"card": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
}
_DECK_SECTIONS = {s: {"type": "array", "items": _DECK_LINE} for s in ("main", "extra", "side")}
# What _decklist_text reads from a JSON body: an envelope with `decklist` (text or a JSON deck), or
# a DESIGN §4 JSON deck itself (one of main / extra / side present); anything else is 400.
SCHEMAS["DeckCheckRequest"] = {
    "type": "object",
    "properties": {
        "decklist": {"type": ["string", "object"], "description": "卡组文本或 JSON 卡组"},
        "game": {"type": "string"},
        "format": {"type": "string"},
        **_DECK_SECTIONS,
    },
    "anyOf": [{"required": ["decklist"]}, {"required": ["main"]}, {"required": ["extra"]}, {"required": ["side"]}],
}
PATHS["/decks/check"] = {
    "post": {
        "summary": "Check a deck's legality (DESIGN §5): every problem at once",
        "description": (
            "Send the decklist as text (`text/plain`, with `?game=…&format=…`), as a JSON deck "
            '(`{"game", "format", "main": [{"card", "count"}], …}`), or as '
            '`{"decklist": "<text or JSON deck>", "game": …, "format": …}`.'
        ),
        "parameters": [
            {"name": "game", "in": "query", "schema": {"type": "string"}},
            {"name": "format", "in": "query", "schema": {"type": "string"}},
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/DeckCheckRequest"}},
                "text/plain": {"schema": {"type": "string"}},
            },
        },
        "responses": {
            "200": {
                "description": "The verdict",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Verdict"}}},
            },
            "400": {
                "description": "Unreadable decklist (with numbered problems), unknown game or format",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            },
        },
    }
}

"""``POST /api/v1/decks/check``: a decklist (text or JSON) in, the DESIGN §5 verdict out."""

from __future__ import annotations

import json
from typing import Any

from flask import jsonify, request

from catalog.decks.check import check_decklist
from catalog.decks.lists import DecklistError
from webapp.api import ApiError, bp
from webapp.api.openapi import Answer, operation, parameter, refusal, schema_of
from webapp.db import get_session
from webapp.shapes.decks import DeckCheckRequest, DeckLine, Verdict

schema_of(DeckLine, mode="validation")  # the lines of DeckCheckRequest's sections


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


@operation(
    "post",
    "/decks/check",
    summary="Check a deck's legality (DESIGN §5): every problem at once",
    description=(
        "Send the decklist as text (`text/plain`, with `?game=…&format=…`), as a JSON deck "
        '(`{"game", "format", "main": [{"card", "count"}], …}`), or as '
        '`{"decklist": "<text or JSON deck>", "game": …, "format": …}`.'
    ),
    parameters=[parameter("game", "query", {"type": "string"}), parameter("format", "query", {"type": "string"})],
    request_body={
        "required": True,
        "content": {
            "application/json": {"schema": schema_of(DeckCheckRequest, mode="validation")},
            "text/plain": {"schema": {"type": "string"}},
        },
    },
    answers={
        200: Answer("The verdict", Verdict),
        400: refusal("Unreadable decklist (with numbered problems), unknown game or format"),
    },
)
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
    return jsonify(Verdict.of(result).body())

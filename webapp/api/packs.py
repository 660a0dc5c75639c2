"""``POST /api/v1/packs/open`` and ``GET /api/v1/packs/odds`` (DESIGN §7 JSON)."""

from __future__ import annotations

from typing import Any

from flask import jsonify, request

from catalog import boosters
from catalog.collection.openings import OpeningAlreadyAdded, add_opening_once, opening_ref
from catalog.games import DEFAULT_GAME
from webapp.api import ApiError, bp, read_body
from webapp.api.auth import api_user
from webapp.api.openapi import Answer, operation, parameter, refusal
from webapp.db import get_session
from webapp.helpers import utcnow
from webapp.shapes.catalogue import AddedToCollection, PackOdds, PackOpening, PackOpenRequest


@operation(
    "post",
    "/packs/open",
    summary="开补充包：同一种子与目录总是开出同样的卡 (open packs or boxes)",
    security=[{}, {"bearerAuth": []}],
    body=PackOpenRequest,
    answers={
        200: Answer("The opening (DESIGN §7)", PackOpening),
        400: refusal("Unknown set or game, no pack template, bad count or seed"),
        401: refusal("add_to_collection without a valid bearer token"),
        409: refusal("add_to_collection: this set and seed are already in the collection"),
    },
)
@bp.post("/packs/open")
def open_packs() -> Any:
    body = read_body(PackOpenRequest)
    opening = boosters.open_packs(
        session=get_session(),
        set_code=body.set,
        game=body.game or DEFAULT_GAME,
        packs=boosters.parse_int(body.packs, what_zh="包数", what_en="packs"),
        boxes=boosters.parse_int(body.boxes, what_zh="盒数", what_en="boxes"),
        seed=boosters.parse_int(body.seed, what_zh="种子", what_en="the seed", error=boosters.BadSeed),
    )
    answer = PackOpening.of(opening)
    if body.add_to_collection:
        # A write: the caller's bearer token (api_user refuses a session cookie on a POST).
        user = api_user()
        assert user.id is not None
        try:
            changes = add_opening_once(session=get_session(), user_id=user.id, opening=opening, now=utcnow())
        except OpeningAlreadyAdded as error:
            raise ApiError(409, error.code, error.message.zh, error.message.en) from error
        answer.collection = AddedToCollection(added=sum(c.delta for c in changes), ref=opening_ref(opening))
    return jsonify(answer.body())


@operation(
    "get",
    "/packs/odds",
    summary="精确概率（闭式计算）：每包、每盒、每张卡 (exact odds)",
    parameters=[
        parameter("set", "query", {"type": "string"}, required=True),
        parameter("game", "query", {"type": "string", "default": DEFAULT_GAME}),
        parameter("boxes", "query", {"type": "integer", "default": 3, "minimum": 1}),
    ],
    answers={
        200: Answer("Exact odds (DESIGN §7)", PackOdds),
        400: refusal("Unknown set or game, no pack template"),
    },
)
@bp.get("/packs/odds")
def pack_odds() -> Any:
    set_code = request.args.get("set", "")
    if not set_code:
        raise ApiError(400, "bad_request", "缺少 set（系列代号）", "'set' (the set code) is missing")
    n_boxes = boosters.parse_int(request.args.get("boxes"), what_zh="盒数", what_en="boxes") or 3
    boosters.model.check_counts(packs=None, boxes=n_boxes)
    model = boosters.load_pack_model(
        session=get_session(), set_code=set_code, game=request.args.get("game") or DEFAULT_GAME
    )
    return jsonify(PackOdds.of(boosters.pack_odds(model, n_boxes=n_boxes)).body())

"""``POST /api/v1/packs/open`` and ``GET /api/v1/packs/odds`` (DESIGN §7 JSON)."""

from __future__ import annotations

from typing import Any

from flask import jsonify, request

from catalog import boosters
from catalog.collection.openings import OpeningAlreadyAdded, add_opening_once, opening_ref
from catalog.games import DEFAULT_GAME
from webapp.api import ApiError, bp
from webapp.api.auth import api_user
from webapp.api.openapi import PATHS, SCHEMAS
from webapp.db import get_session
from webapp.helpers import utcnow


def _text(body: dict[str, Any], key: str, default: str | None = None) -> str | None:
    value = body.get(key, default)
    if value is None or isinstance(value, str):
        return value
    raise ApiError(400, "bad_request", f"{key} 应是字符串", f"'{key}' must be a string")


@bp.post("/packs/open")
def open_packs() -> Any:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "请求体应是 JSON 对象", "the body must be a JSON object")
    set_code = _text(body, "set")
    if not set_code:
        raise ApiError(400, "bad_request", "缺少 set（系列代号）", "'set' (the set code) is missing")
    opening = boosters.open_packs(
        session=get_session(),
        set_code=set_code,
        game=_text(body, "game", DEFAULT_GAME) or DEFAULT_GAME,
        packs=boosters.parse_int(body.get("packs"), what_zh="包数", what_en="packs"),
        boxes=boosters.parse_int(body.get("boxes"), what_zh="盒数", what_en="boxes"),
        seed=boosters.parse_int(body.get("seed"), what_zh="种子", what_en="the seed", error=boosters.BadSeed),
    )
    answer = opening.to_json()
    add = body.get("add_to_collection", False)
    if not isinstance(add, bool):
        raise ApiError(
            400, "bad_request", "add_to_collection 应是 true 或 false", "'add_to_collection' must be a boolean"
        )
    if add:
        # A write: the caller's bearer token (api_user refuses a session cookie on a POST).
        user = api_user()
        assert user.id is not None
        try:
            changes = add_opening_once(session=get_session(), user_id=user.id, opening=opening, now=utcnow())
        except OpeningAlreadyAdded as error:
            raise ApiError(409, error.code, error.message.zh, error.message.en) from error
        answer["collection"] = {"added": sum(c.delta for c in changes), "ref": opening_ref(opening)}
    return jsonify(answer)


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
    return jsonify(boosters.pack_odds(model, n_boxes=n_boxes).to_json())


_CARD_PROPERTIES = {"number": {"type": "string"}, "name": {"type": "string"}, "rarity": {"type": "string"}}
_CARD = {"type": "object", "required": ["number", "name", "rarity"], "properties": _CARD_PROPERTIES}
_RARITY_ODDS = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "required": ["expected", "p_at_least_one"],
        "properties": {"expected": {"type": "number"}, "p_at_least_one": {"type": "number"}},
    },
}
SCHEMAS["PackOpenRequest"] = {
    "type": "object",
    "required": ["set"],
    "properties": {
        "set": {"type": "string", "description": "系列代号，如 M4"},
        "game": {"type": "string", "default": DEFAULT_GAME},
        # null: not given (3 boxes when neither is), as the server reads it
        "packs": {"type": ["integer", "null"], "minimum": 1, "maximum": boosters.MAX_PACKS},
        "boxes": {"type": ["integer", "null"], "minimum": 1, "maximum": boosters.MAX_BOXES},
        "seed": {
            "type": ["integer", "null"],  # null: a random seed, as when it is left out
            "minimum": 0,
            "maximum": boosters.MAX_SEED,
            "description": "同一种子总是开出同样的卡；省略则随机选一个并在结果中返回",
        },
        "add_to_collection": {
            "type": "boolean",
            "default": False,
            "description": "把开出的卡加入调用者的收藏（需要 API 令牌）；同一系列同一种子只加入一次，再次请求得到 409",
        },
    },
    "description": "Give exactly one of packs and boxes.",
    # exactly one of the two (the server answers 400 bad_count to both or neither)
    "oneOf": [
        {"required": ["packs"], "not": {"required": ["boxes"]}},
        {"required": ["boxes"], "not": {"required": ["packs"]}},
    ],
}
SCHEMAS["PackOpening"] = {
    "type": "object",
    "required": ["set", "seed", "boxes"],
    "properties": {
        "set": {"type": "string"},
        "game": {"type": "string"},
        "template": {"type": "string"},
        "seed": {"type": "integer"},
        "boxes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "packs": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"cards": {"type": "array", "items": _CARD}}},
                    }
                },
            },
        },
    },
}
SCHEMAS["PackOdds"] = {
    "type": "object",
    "required": ["set", "per_pack", "per_box"],
    "properties": {
        "set": {"type": "string"},
        "game": {"type": "string"},
        "packs_per_box": {"type": "integer"},
        "cards_per_pack": {"type": "integer"},
        "n_boxes": {"type": "integer"},
        "per_pack": _RARITY_ODDS,
        "per_box": _RARITY_ODDS,
        "per_boxes": _RARITY_ODDS,
        "printings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    **_CARD_PROPERTIES,
                    "p_pack": {"type": "number"},
                    "p_box": {"type": "number"},
                    "p_boxes": {"type": "number"},
                    "expected_per_pack": {"type": "number"},
                    "expected_per_box": {"type": "number"},
                },
            },
        },
    },
}
_ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
PATHS["/packs/open"] = {
    "post": {
        "security": [{}, {"bearerAuth": []}],
        "summary": "开补充包：同一种子与目录总是开出同样的卡 (open packs or boxes)",
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PackOpenRequest"}}},
        },
        "responses": {
            "200": {
                "description": "The opening (DESIGN §7)",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PackOpening"}}},
            },
            "400": {"description": "Unknown set or game, no pack template, bad count or seed", **_ERROR},
            "401": {"description": "add_to_collection without a valid bearer token", **_ERROR},
            "409": {"description": "add_to_collection: this set and seed are already in the collection", **_ERROR},
        },
    }
}
PATHS["/packs/odds"] = {
    "get": {
        "summary": "精确概率（闭式计算）：每包、每盒、每张卡 (exact odds)",
        "parameters": [
            {"name": "set", "in": "query", "required": True, "schema": {"type": "string"}},
            {"name": "game", "in": "query", "schema": {"type": "string", "default": DEFAULT_GAME}},
            {"name": "boxes", "in": "query", "schema": {"type": "integer", "default": 3, "minimum": 1}},
        ],
        "responses": {
            "200": {
                "description": "Exact odds (DESIGN §7)",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PackOdds"}}},
            },
            "400": {"description": "Unknown set or game, no pack template", **_ERROR},
        },
    }
}

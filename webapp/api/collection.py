"""The caller's collection (issue 6 §7): list, change one item, import, export, the ledger.

Every route acts on the calling user's own collection only (:func:`api_user`): there is no
user in any URL, so one token can never reach another user's cards. Reads accept the
signed-in session too; writes need a bearer token. A domain error rolls the request's
transaction back before the JSON answer, so a refused change leaves nothing behind.
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from catalog.collection import (
    change_item,
    export_collection,
    import_collection,
)
from catalog.collection.csvio import MAX_BYTES, parse_mapping
from catalog.collection.imports import MODES
from catalog.collection.items import MAX_DELTA
from catalog.collection.listing import filter_key_of
from catalog.collection.reads import MAX_PER_PAGE, collection_page, history
from catalog.search import QueryError, printing_ids_matching
from webapp.api import ApiError, bp
from webapp.api.auth import api_user, require_api_user
from webapp.api.cards import _int_arg, query_error_body
from webapp.db import get_session
from webapp.helpers import utcnow

PER_PAGE = 100


def _bad(message: str, message_en: str) -> ApiError:
    return ApiError(400, "bad_request", message, message_en)


def _optional_text(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _bad(f"{key} 应是字符串", f"'{key}' must be a string")


def _flag(name: str) -> bool:
    raw = request.args.get(name, "0").strip().lower()
    if raw in ("1", "true", "yes"):
        return True
    if raw in ("0", "false", "no", ""):
        return False
    raise ApiError(400, "bad_parameter", f"参数 {name} 应为 0 或 1", f"{name} must be 0 or 1")


@bp.get("/collection")
@require_api_user
def collection_items() -> Any:
    user = api_user()
    session = get_session()
    page = _int_arg("page", 1, 1, 100_000)
    per_page = _int_arg("per_page", PER_PAGE, 1, MAX_PER_PAGE)
    text = request.args.get("q", "")
    game = request.args.get("game") or None
    printing_ids = filter_key = None
    if text.strip():
        try:
            printing_ids = printing_ids_matching(session=session, text=text, user_id=user.id, game=game)
        except QueryError as error:
            raise ApiError(400, error.code, error.message.zh, error.message.en, **query_error_body(error)) from error
        filter_key = filter_key_of(text, game)
    assert user.id is not None
    result = collection_page(
        session=session,
        user_id=user.id,
        game=game,
        page=page,
        per_page=per_page,
        printing_ids=printing_ids,
        filter_key=filter_key,
    )
    items = [
        {
            "game": row.game,
            "set": row.set,
            "number": row.number,
            "name": row.name,
            "rarity": row.rarity,
            "condition": row.grade.condition,
            "language": row.grade.language,
            "finish": row.grade.finish,
            "quantity": row.quantity,
            "for_trade": row.for_trade,
            "note": row.note,
        }
        for row in result.items
    ]
    return jsonify(
        {
            "items": items,
            "total": result.total,
            "page": result.page,
            "per_page": result.per_page,
            "has_more": result.page * result.per_page < result.total,
        }
    )


@bp.post("/collection/items")
@require_api_user
def change_collection_item() -> Any:
    user = api_user()
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise _bad("请求体应是 JSON 对象", "the body must be a JSON object")
    set_code, number = _optional_text(body, "set"), _optional_text(body, "number")
    if not set_code or not number:
        raise _bad("缺少 set（系列代号）或 number（收藏编号）", "'set' and 'number' are required")
    delta = body.get("delta")
    if isinstance(delta, float) and delta.is_integer() and abs(delta) <= MAX_DELTA:
        delta = int(delta)  # JSON Schema counts -187.0 as an integer (the document says integer)
    if isinstance(delta, bool) or not isinstance(delta, int):
        raise _bad(
            f"delta 必须是 -{MAX_DELTA} 到 {MAX_DELTA} 之间的整数", f"delta must be a whole number within ±{MAX_DELTA}"
        )
    assert user.id is not None
    result = change_item(
        session=get_session(),
        user_id=user.id,
        set_code=set_code,
        number=number,
        delta=delta,
        condition=_optional_text(body, "condition"),
        language=_optional_text(body, "language"),
        finish=_optional_text(body, "finish"),
        game=_optional_text(body, "game"),
        now=utcnow(),
    )
    return jsonify({**result.to_json(), "rarity": result.printing.rarity})


def _upload() -> tuple[bytes, str]:
    """The CSV: a multipart ``file`` field, else the raw body (at most 10 MB + 1 byte is kept:
    enough for the domain's size check to refuse it clearly)."""
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("file")
        if upload is None:
            raise _bad("缺少文件字段 file", "the multipart body has no 'file' field")
        return upload.stream.read(MAX_BYTES + 1), upload.filename or ""
    return request.get_data()[: MAX_BYTES + 1], request.args.get("filename", "")


@bp.post("/collection/import")
@require_api_user
def import_collection_csv() -> Any:
    user = api_user()
    mode = request.args.get("mode", "add")
    if mode not in MODES:
        raise ApiError(
            400, "bad_parameter", f"未知的导入方式「{mode}」，可用：add、replace", "mode must be add or replace"
        )
    dry_run = _flag("dry_run")
    mapping_text = request.args.get("map", "")
    mapping = parse_mapping(mapping_text) if mapping_text.strip() else None
    data, filename = _upload()
    assert user.id is not None
    report = import_collection(
        session=get_session(),
        user_id=user.id,
        data=data,
        filename=filename,
        mode=mode,
        dry_run=dry_run,
        now=utcnow(),
        mapping=mapping,
        sheet=request.args.get("sheet", "").strip()[:100] or None,
    )
    return jsonify(report.to_json())


@bp.get("/collection/export")
@require_api_user
def export_collection_csv() -> Any:
    user = api_user()
    preset = request.args.get("preset", "lunzang")
    assert user.id is not None
    text = export_collection(session=get_session(), user_id=user.id, preset=preset)
    filename = f"lunzang-collection-{preset}.csv"
    return Response(
        text,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/collection/ledger")
@require_api_user
def collection_ledger() -> Any:
    user = api_user()
    page = _int_arg("page", 1, 1, 100_000)
    per_page = _int_arg("per_page", PER_PAGE, 1, MAX_PER_PAGE)
    assert user.id is not None
    rows = history(session=get_session(), user_id=user.id, limit=per_page + 1, offset=(page - 1) * per_page)
    return jsonify(
        {
            "entries": [row.to_json() for row in rows[:per_page]],
            "page": page,
            "per_page": per_page,
            "has_more": len(rows) > per_page,
        }
    )

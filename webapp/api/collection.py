"""The caller's collection: list, change one item, import, export, the ledger.

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
from catalog.collection.csvio import MAX_BYTES, PRESETS, parse_mapping
from catalog.collection.imports import MODES
from catalog.collection.listing import filter_key_of
from catalog.collection.reads import MAX_PER_PAGE, collection_page, history
from catalog.search import QueryError, printing_ids_matching
from webapp.api import ApiError, bp, read_body
from webapp.api.auth import api_user, require_api_user
from webapp.api.cards import _int_arg, query_error_body
from webapp.api.openapi import Answer, operation, parameter, refusal, schema_of
from webapp.db import get_session
from webapp.helpers import utcnow
from webapp.shapes.collection import (
    CollectionChange,
    CollectionItem,
    CollectionPage,
    CsvProblem,
    ImportReport,
    Ledger,
    LedgerEntry,
)

PER_PAGE = 100
_FLAGS = ("0", "1", "true", "false", "yes", "no")
_SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]
_AUTH = refusal("没有令牌或令牌无效 / no token, or an unknown or revoked one")
_PAGING = [
    parameter("page", "query", {"type": "integer", "minimum": 1, "maximum": 100_000, "default": 1}),
    parameter("per_page", "query", {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": PER_PAGE}),
]


def _bad(message: str, message_en: str) -> ApiError:
    return ApiError(400, "bad_request", message, message_en)


def _flag(name: str) -> bool:
    raw = request.args.get(name, "0").strip().lower()
    if raw in ("1", "true", "yes"):
        return True
    if raw in ("0", "false", "no", ""):
        return False
    raise ApiError(400, "bad_parameter", f"参数 {name} 应为 0 或 1", f"{name} must be 0 or 1")


@operation(
    "get",
    "/collection",
    summary="我的收藏（数量为 0 的不列出）/ the caller's collection items",
    security=_SECURITY,
    parameters=[
        parameter("q", "query", {"type": "string"}, description="搜索语言筛选，如 a:火 r>=UR (DESIGN §6)"),
        parameter("game", "query", {"type": "string"}),
        *_PAGING,
    ],
    answers={200: Answer("Items and their total", CollectionPage), 400: refusal("Bad query or paging"), 401: _AUTH},
)
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
        CollectionItem(
            game=row.game,
            set=row.set,
            number=row.number,
            name=row.name,
            rarity=row.rarity,
            condition=row.grade.condition,
            language=row.grade.language,
            finish=row.grade.finish,
            quantity=row.quantity,
            for_trade=row.for_trade,
            note=row.note,
        )
        for row in result.items
    ]
    answer = CollectionPage(
        items=items,
        total=result.total,
        page=result.page,
        per_page=result.per_page,
        has_more=result.page * result.per_page < result.total,
    )
    return jsonify(answer.body())


@operation(
    "post",
    "/collection/items",
    summary="增减一项的数量 / add (or remove, delta < 0) copies of one printing",
    security=_SECURITY,
    body=CollectionChange,
    answers={
        200: Answer("The item after the change", CollectionItem),
        400: refusal("Bad JSON, delta or grade"),
        401: _AUTH,
        404: refusal("No such printing"),
        409: refusal("The quantity would go below 0: nothing changed"),
    },
)
@bp.post("/collection/items")
@require_api_user
def change_collection_item() -> Any:
    user = api_user()
    body = read_body(CollectionChange)
    assert user.id is not None
    result = change_item(
        session=get_session(),
        user_id=user.id,
        set_code=body.set,
        number=body.number,
        delta=body.delta,
        condition=body.condition,
        language=body.language,
        finish=body.finish,
        game=body.game,
        now=utcnow(),
    )
    return jsonify(CollectionItem.changed(result).body())


def _upload() -> tuple[bytes, str]:
    """The CSV: a multipart ``file`` field, else the raw body (at most 10 MB + 1 byte is kept:
    enough for the domain's size check to refuse it clearly)."""
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("file")
        if upload is None:
            raise _bad("缺少文件字段 file", "the multipart body has no 'file' field")
        return upload.stream.read(MAX_BYTES + 1), upload.filename or ""
    return request.get_data()[: MAX_BYTES + 1], request.args.get("filename", "")


# The 422 of a file with problems: the Error shape with every problem in ``details``.
_PROBLEMS = {
    "allOf": [
        {"$ref": "#/components/schemas/Error"},
        {
            "type": "object",
            "properties": {
                "error": {
                    "type": "object",
                    "properties": {"details": {"type": "array", "items": {"$ref": "#/components/schemas/CsvProblem"}}},
                }
            },
        },
    ]
}


@operation(
    "post",
    "/collection/import",
    summary="导入收藏 CSV（全部成功或全部不写）/ import a collection CSV, all or nothing",
    security=_SECURITY,
    parameters=[
        parameter("mode", "query", {"type": "string", "enum": list(MODES), "default": "add"}),
        parameter(
            "dry_run", "query", {"type": "string", "enum": ["0", "1", "true", "false", "yes", "no"], "default": "0"}
        ),
        parameter("filename", "query", {"type": "string"}, description="kept with the import"),
        parameter(
            "map",
            "query",
            {"type": "string"},
            description="columns a preset does not know: 'Card Number=number,Qty=quantity,Notes=ignore' "
            "(fields: set, set_name, number, name, quantity, for_trade, condition, language, finish, game, "
            "binder); a header no preset knows answers 422 unrecognised_header with the header and first rows",
        ),
        parameter("sheet", "query", {"type": "string"}, description="XLSX: the sheet's name"),
    ],
    request_body={
        "required": True,
        "description": f"CSV (UTF-8, GBK or UTF-16; comma, semicolon or tab) or XLSX, at most "
        f"{MAX_BYTES // 1048576} MB: the raw body, or a multipart field 'file'; the tool (Deckbox, ManaBox, "
        "Moxfield, Archidekt, TCGplayer, Dragon Shield, ours) is recognised from the header",
        "content": {
            "text/csv": {"schema": {"type": "string"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {"file": {"type": "string", "contentMediaType": "text/csv"}},
                }
            },
        },
    },
    answers={
        200: Answer("What the import did (or would do: dry_run=1)", ImportReport),
        400: refusal("Bad mode or dry_run"),
        401: _AUTH,
        413: refusal("The request is larger than the server accepts"),
        422: Answer("The file has problems: every one listed, nothing written", schema=_PROBLEMS),
    },
)
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
    return jsonify(ImportReport.of(report).body())


@operation(
    "get",
    "/collection/export",
    summary="导出收藏 CSV / the collection as CSV (import it with mode=replace: nothing changes)",
    security=_SECURITY,
    parameters=[parameter("preset", "query", {"type": "string", "enum": list(PRESETS), "default": "lunzang"})],
    answers={
        200: Answer("CSV attachment", schema={"type": "string"}, media_type="text/csv"),
        400: refusal("Unknown preset"),
        401: _AUTH,
    },
)
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


@operation(
    "get",
    "/collection/ledger",
    summary="收藏流水（新的在前）/ the caller's ledger, newest first",
    security=_SECURITY,
    parameters=_PAGING,
    answers={200: Answer("Ledger entries", Ledger), 401: _AUTH},
)
@bp.get("/collection/ledger")
@require_api_user
def collection_ledger() -> Any:
    user = api_user()
    page = _int_arg("page", 1, 1, 100_000)
    per_page = _int_arg("per_page", PER_PAGE, 1, MAX_PER_PAGE)
    assert user.id is not None
    rows = history(session=get_session(), user_id=user.id, limit=per_page + 1, offset=(page - 1) * per_page)
    answer = Ledger(
        entries=[LedgerEntry.of(row) for row in rows[:per_page]],
        page=page,
        per_page=per_page,
        has_more=len(rows) > per_page,
    )
    return jsonify(answer.body())


# the shapes the document names that no operation answers directly
schema_of(CsvProblem, mode="serialization")

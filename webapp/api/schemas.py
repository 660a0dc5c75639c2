"""OpenAPI shapes of the collection API (``webapp/api/collection.py``): its schemas and paths,
added to the one document (:mod:`webapp.api.openapi`) when the API package is imported. Kept
apart so the route module reads as routes."""

from __future__ import annotations

from typing import Any

from catalog.collection.csvio import MAX_BYTES, PRESETS
from catalog.collection.imports import MODES
from catalog.collection.items import MAX_DELTA
from catalog.collection.reads import MAX_PER_PAGE
from webapp.api.collection import PER_PAGE
from webapp.api.openapi import PATHS, SCHEMAS

_GRADES = {
    "condition": {"type": "string", "description": "品相 NM / LP / MP / HP / DMG（别名也可），默认 NM"},
    "language": {"type": "string", "description": "语言 简中 / 繁中 / EN / 日，默认 简中"},
    "finish": {"type": "string", "description": "工艺 普通 / 闪，默认 普通"},
}
SCHEMAS["CollectionItem"] = {
    "type": "object",
    "required": ["set", "number", "name", "rarity", "condition", "language", "finish", "quantity", "for_trade"],
    "properties": {
        "game": {"type": "string"},
        "set": {"type": "string"},
        "number": {"type": "string"},
        "name": {"type": "string"},
        "rarity": {"type": "string"},
        **_GRADES,
        "quantity": {"type": "integer", "minimum": 0},
        "for_trade": {"type": "integer", "minimum": 0},
        "note": {"type": "string"},
        "delta": {"type": "integer", "description": "POST only: the change just made"},
    },
}
SCHEMAS["CollectionChange"] = {
    "type": "object",
    "required": ["set", "number", "delta"],
    "properties": {
        "set": {"type": "string", "description": "系列代号，如 M4"},
        "number": {"type": "string", "description": "收藏编号，如 M4-001"},
        "delta": {"type": "integer", "minimum": -MAX_DELTA, "maximum": MAX_DELTA},
        "game": {"type": ["string", "null"], "description": "a set code used by several games needs it"},
        # null is read as "not given" (the default grade), as the server does
        **{key: dict(value, type=["string", "null"]) for key, value in _GRADES.items()},
    },
}
SCHEMAS["CsvProblem"] = {
    "type": "object",
    "required": ["line", "column", "message"],
    "properties": {
        "line": {"type": "integer", "description": "1 = the header row"},
        "column": {"type": "string", "description": "the column as written"},
        "message": {"type": "string"},
        "message_en": {"type": "string"},
    },
}
SCHEMAS["LedgerEntry"] = {
    "type": "object",
    "required": ["set", "number", "condition", "language", "finish", "delta", "reason", "at"],
    "properties": {
        "id": {"type": "integer"},
        "set": {"type": "string"},
        "number": {"type": "string"},
        "name": {"type": "string"},
        "condition": {"type": "string"},
        "language": {"type": "string"},
        "finish": {"type": "string"},
        "delta": {"type": "integer"},
        "trade_delta": {"type": "integer"},
        "reason": {"type": "string", "enum": ["manual", "import", "undo", "pack", "trade"]},
        "ref": {"type": "string", "description": "import #N, 'M4 seed 42', trade id …"},
        "import_id": {"type": ["integer", "null"]},
        "at": {"type": "string", "format": "date-time"},
    },
}


def _json(ref: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}


_ERROR = {"content": _json("Error")}
_SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]
_AUTH = {"401": {"description": "没有令牌或令牌无效 / no token, or an unknown or revoked one", **_ERROR}}
_PAGING = [
    {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100_000, "default": 1}},
    {
        "name": "per_page",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": PER_PAGE},
    },
]
PATHS["/collection"] = {
    "get": {
        "summary": "我的收藏（数量为 0 的不列出）/ the caller's collection items",
        "security": _SECURITY,
        "parameters": [
            {
                "name": "q",
                "in": "query",
                "schema": {"type": "string"},
                "description": "搜索语言筛选，如 a:火 r>=UR (DESIGN §6)",
            },
            {"name": "game", "in": "query", "schema": {"type": "string"}},
            *_PAGING,
        ],
        "responses": {
            "200": {
                "description": "Items and their total",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["items", "total"],
                            "properties": {
                                "items": {"type": "array", "items": {"$ref": "#/components/schemas/CollectionItem"}},
                                "total": {"type": "integer"},
                                "page": {"type": "integer"},
                                "per_page": {"type": "integer"},
                                "has_more": {"type": "boolean"},
                            },
                        }
                    }
                },
            },
            "400": {"description": "Bad query or paging", **_ERROR},
            **_AUTH,
        },
    }
}
PATHS["/collection/items"] = {
    "post": {
        "summary": "增减一项的数量 / add (or remove, delta < 0) copies of one printing",
        "security": _SECURITY,
        "requestBody": {"required": True, "content": _json("CollectionChange")},
        "responses": {
            "200": {"description": "The item after the change", "content": _json("CollectionItem")},
            "400": {"description": "Bad JSON, delta or grade", **_ERROR},
            **_AUTH,
            "404": {"description": "No such printing", **_ERROR},
            "409": {"description": "The quantity would go below 0: nothing changed", **_ERROR},
        },
    }
}
PATHS["/collection/import"] = {
    "post": {
        "summary": "导入收藏 CSV（全部成功或全部不写）/ import a collection CSV, all or nothing",
        "security": _SECURITY,
        "parameters": [
            {"name": "mode", "in": "query", "schema": {"type": "string", "enum": list(MODES), "default": "add"}},
            {
                "name": "dry_run",
                "in": "query",
                "schema": {"type": "string", "enum": ["0", "1", "true", "false", "yes", "no"], "default": "0"},
            },
            {"name": "filename", "in": "query", "schema": {"type": "string"}, "description": "kept with the import"},
            {
                "name": "map",
                "in": "query",
                "schema": {"type": "string"},
                "description": "columns a preset does not know: 'Card Number=number,Qty=quantity,Notes=ignore' "
                "(fields: set, set_name, number, name, quantity, for_trade, condition, language, finish, game, "
                "binder); a header no preset knows answers 422 unrecognised_header with the header and first rows",
            },
            {"name": "sheet", "in": "query", "schema": {"type": "string"}, "description": "XLSX: the sheet's name"},
        ],
        "requestBody": {
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
        "responses": {
            "200": {"description": "What the import did (or would do: dry_run=1)"},
            "400": {"description": "Bad mode or dry_run", **_ERROR},
            **_AUTH,
            "413": {"description": "The request is larger than the server accepts", **_ERROR},
            "422": {
                "description": "The file has problems: every one listed, nothing written",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "error": {
                                    "type": "object",
                                    "properties": {
                                        "code": {"type": "string"},
                                        "message": {"type": "string"},
                                        "message_en": {"type": "string"},
                                        "details": {
                                            "type": "array",
                                            "items": {"$ref": "#/components/schemas/CsvProblem"},
                                        },
                                    },
                                }
                            },
                        }
                    }
                },
            },
        },
    }
}
PATHS["/collection/export"] = {
    "get": {
        "summary": "导出收藏 CSV / the collection as CSV (import it with mode=replace: nothing changes)",
        "security": _SECURITY,
        "parameters": [
            {"name": "preset", "in": "query", "schema": {"type": "string", "enum": list(PRESETS), "default": "lunzang"}}
        ],
        "responses": {
            "200": {"description": "CSV attachment", "content": {"text/csv": {"schema": {"type": "string"}}}},
            "400": {"description": "Unknown preset", **_ERROR},
            **_AUTH,
        },
    }
}
PATHS["/collection/ledger"] = {
    "get": {
        "summary": "收藏流水（新的在前）/ the caller's ledger, newest first",
        "security": _SECURITY,
        "parameters": _PAGING,
        "responses": {
            "200": {
                "description": "Ledger entries",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["entries"],
                            "properties": {
                                "entries": {"type": "array", "items": {"$ref": "#/components/schemas/LedgerEntry"}},
                                "page": {"type": "integer"},
                                "per_page": {"type": "integer"},
                                "has_more": {"type": "boolean"},
                            },
                        }
                    }
                },
            },
            **_AUTH,
        },
    }
}

"""The OpenAPI 3.1 document served at /api/v1/openapi.json.

Area modules add their operations to ``PATHS`` (and shared shapes to ``SCHEMAS``) when they
are imported, so the document lists exactly the routes that exist; a test checks that every
API route is documented.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify

from webapp.api import bp

PATHS: dict[str, dict[str, Any]] = {}
SECURITY_SCHEMES: dict[str, Any] = {}
SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string"},
                    "message": {"type": "string", "description": "中文说明"},
                    "message_en": {"type": "string", "description": "the same in English"},
                },
            }
        },
    }
}


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "轮藏 Lunzang API",
            "version": "1",
            "description": "中文集换式卡牌数据库：卡牌、系列、补充包与构筑检查。Errors come as the Error schema.",
        },
        "servers": [{"url": "/api/v1"}],
        "paths": dict(sorted(PATHS.items())),
        "components": {"schemas": SCHEMAS, "securitySchemes": SECURITY_SCHEMES},
    }


@bp.get("/openapi.json")
def openapi_json() -> Any:
    return jsonify(document())


PATHS["/openapi.json"] = {
    "get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1 JSON"}}}
}

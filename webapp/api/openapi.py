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


ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
# Answers any operation can give, whatever its module documents (issue 16: schemathesis found the
# document disagreeing with the server): the validation layer's 400 (webapp.validation), a busy
# or unreachable database's 503 (webapp.errors); with a body, 413; with security, 401; with a
# path parameter, 404.
COMMON_RESPONSES = {
    "400": "Invalid input (unusable characters, numbers out of range, malformed body)",
    "503": "The database is busy or unreachable: try again after Retry-After seconds",
}


def _complete(operation: dict[str, Any], path: str) -> dict[str, Any]:
    """``operation`` with the answers every operation can give, and non-empty required strings."""
    responses = dict(operation.get("responses", {}))
    extra = dict(COMMON_RESPONSES)
    if "requestBody" in operation:
        extra["413"] = "The body is too large"
    if operation.get("security"):
        extra["401"] = "No token, or an unknown or revoked one"
    if "{" in path:
        extra["404"] = "No such object (or not yours)"
    for status, description in extra.items():
        responses.setdefault(status, {"description": description, "content": ERROR_CONTENT})
    completed = dict(operation, responses=responses)
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body and "schema" in body:
        content = dict(operation["requestBody"]["content"])
        content["application/json"] = dict(body, schema=_non_empty_required(body["schema"]))
        completed["requestBody"] = dict(operation["requestBody"], content=content)
    parameters = []
    for parameter in operation.get("parameters", []):
        schema = parameter.get("schema", {})
        if parameter.get("required") and schema.get("type") == "string" and "enum" not in schema:
            parameter = dict(parameter, schema={"minLength": 1, **schema})
        parameters.append(parameter)
    if parameters:
        completed["parameters"] = parameters
    return completed


def _non_empty_required(schema: Any) -> Any:
    """An object schema whose required string properties must not be empty (the server refuses ``""``)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return schema
    properties = dict(schema.get("properties", {}))
    for name in schema.get("required", []):
        prop = properties.get(name)
        if isinstance(prop, dict) and prop.get("type") == "string" and "enum" not in prop:
            properties[name] = {"minLength": 1, **prop}
    return dict(schema, properties=properties)


def document() -> dict[str, Any]:
    paths = {
        path: {method: _complete(op, path) if isinstance(op, dict) else op for method, op in item.items()}
        for path, item in sorted(PATHS.items())
    }
    schemas = dict(SCHEMAS)
    for item in paths.values():  # shapes sent in request bodies: required strings non-empty too
        for operation in item.values():
            content = operation.get("requestBody", {}).get("content", {}) if isinstance(operation, dict) else {}
            ref = content.get("application/json", {}).get("schema", {}).get("$ref", "")
            name = ref.removeprefix("#/components/schemas/")
            if ref and name in schemas:
                schemas[name] = _non_empty_required(schemas[name])
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "轮藏 Lunzang API",
            "version": "1",
            "description": "中文集换式卡牌数据库：卡牌、系列、补充包与构筑检查。Errors come as the Error schema.",
        },
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": SECURITY_SCHEMES},
    }


@bp.get("/openapi.json")
def openapi_json() -> Any:
    return jsonify(document())


PATHS["/openapi.json"] = {
    "get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1 JSON"}}}
}

"""The OpenAPI 3.1 document served at /api/v1/openapi.json.

Each view declares its operation next to it with :func:`operation` (method, path, summary, the
request shape, the answer shapes per status, parameters); the schemas come from the pydantic
shapes of :mod:`webapp.shapes`, so the document says what the code reads and answers. The
declarations run when the area modules are imported, so the document lists exactly the routes
that exist; a test checks that every API route is documented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from flask import jsonify
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from webapp.api import bp
from webapp.shapes.errors import Error

PATHS: dict[str, dict[str, Any]] = {}
SECURITY_SCHEMES: dict[str, Any] = {}
SCHEMAS: dict[str, Any] = {}
REF = "#/components/schemas/{model}"


class _Schema(GenerateJsonSchema):
    """pydantic's JSON Schema without a generated title on every property (noise in the document)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _with_refs(schema: Any) -> Any:
    """``schema`` with :func:`webapp.shapes.component` markers written as ``$ref``."""
    if isinstance(schema, dict):
        if set(schema) == {"x-component"}:
            return {"$ref": REF.format(model=schema["x-component"])}
        return {key: _with_refs(value) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_with_refs(value) for value in schema]
    return schema


def _generate(shape: type[BaseModel], mode: Literal["validation", "serialization"]) -> dict[str, Any]:
    """``shape``'s JSON Schema, its nested shapes added to the components."""
    schema: dict[str, Any] = _with_refs(shape.model_json_schema(ref_template=REF, schema_generator=_Schema, mode=mode))
    SCHEMAS.update(schema.pop("$defs", {}))
    return schema


def schema_of(shape: type[BaseModel], *, mode: Literal["validation", "serialization"]) -> dict[str, Any]:
    """``shape``'s JSON Schema as a component (its nested shapes too); answers the ``$ref``."""
    schema = _generate(shape, mode)
    SCHEMAS[shape.__name__] = schema
    return {"$ref": REF.format(model=shape.__name__)}


def inline_schema_of(shape: type[BaseModel]) -> dict[str, Any]:
    """``shape``'s request schema written out in the operation (nested shapes as components)."""
    schema = _generate(shape, "validation")
    schema.pop("title", None)
    return schema


@dataclass(frozen=True)
class Answer:
    """One documented answer: its description, the shape of its JSON body (or a raw schema, or
    none), and the OpenAPI links a client may follow from it."""

    description: str
    shape: type[BaseModel] | None = None
    schema: dict[str, Any] | None = None
    media_type: str = "application/json"
    links: dict[str, Any] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"description": self.description}
        if self.links:
            answer["links"] = self.links
        schema = schema_of(self.shape, mode="serialization") if self.shape is not None else self.schema
        if schema is not None:
            answer["content"] = {self.media_type: {"schema": schema}}
        return answer


def refusal(description: str) -> Answer:
    """An error answer (the Error shape)."""
    return Answer(description, Error)


def parameter(
    name: str,
    where: Literal["query", "path"],
    schema: dict[str, Any],
    *,
    required: bool = False,
    description: str | None = None,
) -> dict[str, Any]:
    """An OpenAPI parameter (a path parameter is always required)."""
    declared: dict[str, Any] = {"name": name, "in": where}
    if required or where == "path":
        declared["required"] = True
    declared["schema"] = schema
    if description:
        declared["description"] = description
    return declared


View = TypeVar("View", bound=Callable[..., Any])


def operation(
    method: str,
    path: str,
    *,
    summary: str,
    answers: Mapping[int, Answer],
    description: str | None = None,
    operation_id: str | None = None,
    security: list[dict[str, list[str]]] | None = None,
    parameters: Sequence[dict[str, Any]] = (),
    body: type[BaseModel] | None = None,
    body_required: bool = True,
    inline_body: bool = False,
    request_body: dict[str, Any] | None = None,
) -> Callable[[View], View]:
    """Declare the view below as the OpenAPI operation ``method path`` (path as OpenAPI writes
    it: ``/trades/{trade_id}``). ``body`` is the request's shape (``inline_body``: written out
    in the operation rather than as a component); ``request_body`` a raw one (a CSV upload)."""
    declared: dict[str, Any] = {"summary": summary}
    if description:
        declared["description"] = description
    if operation_id:
        declared["operationId"] = operation_id
    if security is not None:
        declared["security"] = security
    if parameters:
        declared["parameters"] = list(parameters)
    if body is not None:
        schema = inline_schema_of(body) if inline_body else schema_of(body, mode="validation")
        declared["requestBody"] = {"content": {"application/json": {"schema": schema}}}
        if body_required:  # OpenAPI's default is false
            declared["requestBody"] = {"required": True, **declared["requestBody"]}
    elif request_body is not None:
        declared["requestBody"] = request_body
    declared["responses"] = {str(status): answer.document() for status, answer in answers.items()}
    PATHS.setdefault(path, {})[method.lower()] = declared

    def register(view: View) -> View:
        return view

    return register


ERROR_CONTENT = {"application/json": {"schema": schema_of(Error, mode="serialization")}}
# Answers any operation can give, whatever its module documents (schemathesis found the
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


@operation("get", "/openapi.json", summary="This document", answers={200: Answer("OpenAPI 3.1 JSON")})
@bp.get("/openapi.json")
def openapi_json() -> Any:
    return jsonify(document())

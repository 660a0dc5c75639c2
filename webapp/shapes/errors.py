"""The error answer every API operation may give (DESIGN §8)."""

from __future__ import annotations

from pydantic import ConfigDict, Field, ValidationError

from webapp.shapes import Shape


class ErrorDetail(Shape):
    """What went wrong: a machine code and a message in both languages (plus what an operation
    adds: a query's ``position``, a trade's unavailable ``lines``, a CSV's ``details`` …)."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str = Field(description="中文说明")
    message_en: str = Field("", description="the same in English")


class Error(Shape):
    error: ErrorDetail


def field_name(location: tuple[int | str, ...]) -> str:
    """A field's place in the body as a client writes it: ``give[0].quantity``."""
    name = ""
    for part in location:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "body"


def validation_messages(error: ValidationError) -> tuple[str, str]:
    """The first problem of a request body, in Chinese and English, naming the field."""
    problem = error.errors()[0]
    name, kind, context = field_name(problem["loc"]), problem["type"], problem.get("ctx", {})
    if kind == "missing":
        return f"缺少 {name}", f"'{name}' is required"
    if kind in ("string_type", "string_unicode"):
        return f"{name} 应是字符串", f"'{name}' must be a string"
    if kind.startswith(("int_", "float_")):
        return f"{name} 应为整数", f"'{name}' must be a whole number"
    if kind.startswith("bool_"):
        return f"{name} 应是 true 或 false", f"'{name}' must be a boolean"
    if kind in ("list_type", "iterable_type", "tuple_type"):
        return f"{name} 应是列表", f"'{name}' must be a list"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"{name} 应是 JSON 对象", f"'{name}' must be a JSON object"
    if kind == "string_too_short":
        return f"{name} 不能为空", f"'{name}' must not be empty"
    if kind == "string_too_long":
        limit = context.get("max_length")
        return f"{name} 最多 {limit} 个字符", f"'{name}' must be at most {limit} characters"
    if kind in ("greater_than_equal", "greater_than"):
        limit = context.get("ge", context.get("gt"))
        return f"{name} 不能小于 {limit}", f"'{name}' must be at least {limit}"
    if kind in ("less_than_equal", "less_than"):
        limit = context.get("le", context.get("lt"))
        return f"{name} 不能大于 {limit}", f"'{name}' must be at most {limit}"
    if kind in ("literal_error", "enum"):
        expected = context.get("expected", "")
        return f"{name} 应是 {expected} 之一", f"'{name}' must be one of {expected}"
    return f"{name} 无效", f"'{name}' is not valid"

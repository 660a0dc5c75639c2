"""One validation layer for the text and numbers of every request.

Before any view runs, every query and form value (and every string and number of a JSON
body) is checked once, so no route can fail on them with a 500:

- text: no NUL byte (PostgreSQL refuses it in text), no lone surrogate (cannot be stored as
  UTF-8);
- numbers: a value made of digits must be ASCII digits (``"²".isdigit()`` is true, ``int("²")``
  fails); a value named ``id`` or ``*_id``, and an ``<int:…>`` in a path, at most 2³¹−1
  (PostgreSQL's integer; a larger id names nothing: 404); other numbers are bounded by the
  fields' own rules (page ≤ 100,000, quantities, seeds < 2⁶³);
- JSON: at most :data:`MAX_JSON_DEPTH` levels (the parser would recurse 100,000 deep); ``id``
  and ``*_id`` integers at most 2³¹−1 (other numbers: each field's own range).

A refused request gets 400 with a message naming the field (JSON under ``/api/``); a path value
with NUL or a lone surrogate names nothing: 404 saying why, for every route.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import BadRequest
from werkzeug.routing import IntegerConverter

MAX_ID = 2**31 - 1
MAX_DIGITS = 19  # an id longer than this is not even worth converting (2⁶³−1 has 19 digits)
MAX_JSON_DEPTH = 32

# What no storage takes: NUL (PostgreSQL text) and lone surrogates (not UTF-8). Other control
# characters are left to the fields' own rules (they break nothing on their way through).
_BAD_TEXT = re.compile(r"[\x00\ud800-\udfff]")
_ID_KEY = re.compile(r"(^|_)id$")
# Free text is searched or shown, never turned into a number: "9²" is a fine search.
FREE_TEXT = {"q", "list", "decklist", "name", "note", "comment", "text", "title"}


class IdConverter(IntegerConverter):
    """``<int:…>`` with a ceiling: a path id above PostgreSQL's integer matches no route (404)."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


class InvalidInput(Exception):
    def __init__(self, field: str, zh: str, en: str) -> None:
        super().__init__(en)
        self.field, self.zh, self.en = field, zh, en


def check_value(field: str, value: str) -> None:
    """Refuse (:class:`InvalidInput`) a text or number no route can use."""
    if _BAD_TEXT.search(value):
        raise InvalidInput(
            field, f"「{field}」含有不可用的字符（控制字符或不成对的代理码）", f"'{field}' holds an unusable character"
        )
    if field in FREE_TEXT:
        return
    digits = value.strip()
    digits = digits[1:] if digits[:1] in ("+", "-") else digits
    if not digits or not (digits.isdigit() or digits.isdecimal()):  # ² is a digit, not a decimal
        return
    if not (digits.isascii() and digits.isdecimal()):
        raise InvalidInput(field, f"「{field}」应使用 0–9 的数字", f"'{field}' must use the digits 0-9")
    if _ID_KEY.search(field) and (len(digits.lstrip("0")) > MAX_DIGITS or int(digits) > MAX_ID):
        raise InvalidInput(field, f"「{field}」不是有效的编号", f"'{field}' is not a valid id")


def check_json(data: Any) -> None:
    """Walk a parsed JSON body (iteratively: no recursion on hostile depth)."""
    stack: list[tuple[str, Any, int]] = [("body", data, 0)]
    while stack:
        field, value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise InvalidInput(field, "JSON 嵌套太深", "the JSON is nested too deep")
        if isinstance(value, dict):
            for key, item in value.items():
                if _BAD_TEXT.search(str(key)):
                    raise InvalidInput("body", "JSON 的键含有不可用的字符", "a JSON key holds an unusable character")
                stack.append((str(key), item, depth + 1))
        elif isinstance(value, list):
            stack.extend((field, item, depth + 1) for item in value)
        elif isinstance(value, str):
            check_value(field, value)
        elif isinstance(value, int) and not isinstance(value, bool) and _ID_KEY.search(field) and abs(value) > MAX_ID:
            raise InvalidInput(field, f"「{field}」的数字太大", f"'{field}' is too large a number")


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _json_depth_ok(raw: bytes) -> bool:
    """A cheap bound before parsing (vectorised: a 20 MB body takes milliseconds): strings
    removed, the running count of open brackets never exceeds :data:`MAX_JSON_DEPTH`."""
    import numpy as np

    bare = np.frombuffer(_JSON_STRING.sub(b"", raw), dtype=np.uint8)
    steps = (bare == 0x5B).astype(np.int32) + (bare == 0x7B) - (bare == 0x5D) - (bare == 0x7D)
    return not len(steps) or int(np.cumsum(steps).max()) <= MAX_JSON_DEPTH


def validate_request() -> None:
    for key, value in request.args.items(multi=True):
        check_value(key, value)
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        if request.mimetype != "multipart/form-data":
            # Cached first: a view may read a raw body sent with a form type (curl --data-binary).
            request.get_data(cache=True, parse_form_data=False)
        for key, value in request.form.items(multi=True):
            check_value(key, value)
    if request.is_json:
        raw = request.get_data(cache=True)
        if not _json_depth_ok(raw):
            raise InvalidInput("body", "JSON 嵌套太深", "the JSON is nested too deep")
        try:
            data = request.get_json(silent=False)
        except (BadRequest, RecursionError, ValueError):
            return  # the view answers malformed JSON itself (each has its message)
        check_json(data)


def unusable_path_value() -> str | None:
    """The name of a path value no storage takes (NUL, a lone surrogate), else None.

    Checked here, once, before any view: a string or path converter takes any character, and a
    view that looks the value up (a user, a card, a store) would hand it to PostgreSQL.
    """
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str) and _BAD_TEXT.search(value):
            return name
    return None


def init_app(app: Flask) -> None:
    """Install the path converter and the check; call before the blueprints are registered."""
    app.url_map.converters["int"] = IdConverter

    @app.before_request
    def refuse_unusable_input() -> Any:
        if unusable_path_value() is not None:  # names nothing: 404, with why
            zh, en = "路径中含有不可用的字符（控制字符或不成对的代理码）", "the path holds an unusable character"
            if request.path.startswith("/api/"):
                from webapp.refusal import error_body

                return jsonify(error_body("not_found", zh, en)), 404
            message = _("路径中含有不可用的字符（控制字符或不成对的代理码）")
            return render_template("error.html", title=_("页面不存在"), message=message), 404
        try:
            validate_request()
        except InvalidInput as error:
            if request.path.startswith("/api/"):
                from webapp.refusal import error_body

                return jsonify(error_body("invalid_input", error.zh, error.en, field=error.field)), 400
            return render_template("error.html", title=_("无法处理的输入"), message=error.zh), 400
        return None

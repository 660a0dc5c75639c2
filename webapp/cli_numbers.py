"""Command-line integers through the one strict parser: its own small module, so
the commands that start fastest (``lunzang search``) import no more than click and it."""

from __future__ import annotations

from typing import Any

import click

from catalog.numbers import INT32, BadNumber, parse_int


class StrictInt(click.ParamType):
    """A command-line integer through :func:`catalog.numbers.parse_int`: ASCII digits, bounded
    by the column it is stored in (``click.INT`` takes ``1_0`` and ``１`` and any size), refused
    with click's usage error: one line, exit status 2."""

    name = "integer"

    def __init__(self, low: int = 0, high: int = INT32) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        field = (param.opts[0] if param is not None and param.opts else None) or (param.name if param else "") or "n"
        try:
            return parse_int(value, field=field, low=self.low, high=self.high)
        except BadNumber as error:
            self.fail(f"{error.message.zh} / {error.message.en}", param, ctx)


ID = StrictInt()  # a row id or a count stored in an integer column

"""What every ``lunzang`` command module shares."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from catalog.errors import LunzangError
from catalog.ingest import ImportFailed
from catalog.numbers import INT32, BadNumber, parse_int


def friendly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Domain errors become one clear line on stderr and exit status 2, never a traceback."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ImportFailed:
            raise
        except LunzangError as error:
            click.echo(f"错误：{error.message.zh}", err=True)
            sys.exit(2)

    return wrapper


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

"""What every ``lunzang`` command module shares."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from catalog.errors import LunzangError
from catalog.ingest import ImportFailed


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

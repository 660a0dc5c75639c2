"""The search keys' registry: each key (``t:``, ``a:``, ``cost<=`` …) registered with
:func:`key` by its handler, found by :func:`lookup` under any alias, and the :class:`Context`
every handler gets (the games in scope, the mode, the tables). The handlers: :mod:`catalog.search.keys`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.sql.expression import ColumnElement

from catalog.errors import Message
from catalog.games import GameModule
from catalog.models import CardSearch, Printing, table_of
from catalog.search.parser import QueryError, Term
from catalog.text import fold

Clause = ColumnElement[bool]


def N_(text: str) -> str:  # the gettext marker name Babel extracts by default
    """Marks a help text for translation without translating it here: the domain never
    imports Flask; the help page passes these strings through gettext."""
    return text


Handler = Callable[[Term, "Context"], Clause]

NUMERIC_OPS = {
    ":": lambda c, v: c == v,
    "=": lambda c, v: c == v,
    "!=": lambda c, v: c != v,
    "<": lambda c, v: c < v,
    "<=": lambda c, v: c <= v,
    ">": lambda c, v: c > v,
    ">=": lambda c, v: c >= v,
}


@dataclass
class Context:
    """What a handler needs: the games in scope, the mode, and the tables."""

    games: list[tuple[GameModule, int]]  # (module, game id) of the games the words resolve against
    all_games: dict[str, int]  # slug → id of every imported game
    load_sets: Callable[[], dict[str, list[tuple[int, int]]]]  # folded set code → [(set id, game id)]
    mode: str = "cards"  # or "prints"
    cs: Any = field(default_factory=lambda: table_of(CardSearch))
    p: Any = None  # the printing table of the main query in prints mode
    uses_printings: bool = False  # whether any condition looked at printings (r:, set: …)
    user_id: int | None = None  # the signed-in user, for own/want/trade
    personal: bool = False  # an own/want/trade term read the user's rows: the hits are theirs alone
    _sets: dict[str, list[tuple[int, int]]] | None = None

    @property
    def sets(self) -> dict[str, list[tuple[int, int]]]:
        if self._sets is None:
            self._sets = self.load_sets()
        return self._sets

    def printing(self, build: Callable[[Any], Clause]) -> Clause:
        """A condition on printings: in card mode, "some printing of the card satisfies it"."""
        self.uses_printings = True
        if self.mode == "prints":
            return build(self.p)
        inner = table_of(Printing).alias("pp")
        return self.cs.c.card_id.in_(select(inner.c.card_id).where(build(inner)))

    def game_ids(self) -> list[int]:
        return [gid for _m, gid in self.games]


@dataclass(frozen=True)
class Key:
    name: str
    aliases: tuple[str, ...]
    handler: Handler
    help_zh: str
    ops: tuple[str, ...] = (":", "=")


KEYS: list[Key] = []
_LOOKUP: dict[str, Key] = {}
DIRECTIVES = {"order", "unique", "direction"}


def key(name: str, *aliases: str, help_zh: str, ops: tuple[str, ...] = (":", "=")) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        entry = Key(name, aliases, handler, help_zh, ops)
        KEYS.append(entry)
        for alias in (name, *aliases):
            _LOOKUP[fold(alias)] = entry
        return handler

    return register


def lookup(word: str) -> Key | None:
    return _LOOKUP.get(fold(word))


def known_keys() -> str:
    return " ".join(f"{k.name}:" for k in KEYS)


def error(term: Term, zh: str, en: str) -> QueryError:
    return QueryError(Message(zh, en), position=term.position, length=term.length, term=term.text)


def check_op(term: Term, allowed: tuple[str, ...]) -> None:
    if term.op not in allowed:
        raise error(
            term,
            f"「{term.text}」：{term.key} 不能用运算符 {term.op}，可用 {' '.join(allowed)}",
            f"'{term.text}': {term.key} does not take {term.op}; use {' '.join(allowed)}",
        )


INTEGER_LIMIT = 2**31 - 1  # the columns are 32-bit on PostgreSQL; no card stat comes near


def integer(term: Term) -> int:
    value = term.value.strip()
    if not re.fullmatch(r"-?\d+", value):
        raise error(term, f"「{term.text}」：{term.value} 不是整数", f"'{term.text}': {term.value} is not a number")
    number = int(value)
    if abs(number) > INTEGER_LIMIT:
        raise error(term, f"「{term.text}」：{term.value} 太大了", f"'{term.text}': {term.value} is out of range")
    return number


def numeric(column_name: str) -> Handler:
    def handler(term: Term, ctx: Context) -> Clause:
        check_op(term, tuple(NUMERIC_OPS))
        column = ctx.cs.c[column_name]
        return and_(column.is_not(None), NUMERIC_OPS[term.op](column, integer(term)))

    return handler

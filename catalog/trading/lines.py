"""Trade lines from what callers send: validated, merged, resolved (set + number → printing).

Bounded work: at most ``MAX_LINES`` lines per side and ``MAX_QUANTITY`` copies per line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import BadGrade, ItemGrade
from catalog.errors import Message
from catalog.lookup import PrintingIndex, UnknownPrinting
from catalog.models.columns import PRINTING
from catalog.trading.errors import TradeError
from catalog.trading.reservation import LineSpec

MAX_LINES = 100
MAX_QUANTITY = 999


def bad_quantity(where: str) -> TradeError:
    return TradeError(
        Message(
            f"{where}：数量必须是 1 到 {MAX_QUANTITY} 之间的整数",
            f"{where}: the quantity must be a whole number from 1 to {MAX_QUANTITY}",
        )
    )


def merge_lines(lines: Iterable[LineSpec], *, side: str) -> list[LineSpec]:
    """Validate quantities, merge repeated (printing, grade) lines, sort; at most MAX_LINES."""
    merged: dict[tuple[int, ItemGrade], int] = {}
    for index, line in enumerate(lines):
        q = line.quantity
        if isinstance(q, bool) or not isinstance(q, int) or not 1 <= q <= MAX_QUANTITY:
            raise bad_quantity(f"{side}[{index}]")
        merged[line.key] = merged.get(line.key, 0) + q
    if len(merged) > MAX_LINES:
        raise TradeError(Message(f"{side}：一方最多 {MAX_LINES} 行", f"{side}: at most {MAX_LINES} lines per side"))
    for q in merged.values():
        if q > MAX_QUANTITY:
            raise bad_quantity(side)
    return [LineSpec(pid, grade, q) for (pid, grade), q in sorted(merged.items())]


def check_printings(session: Session, lines: Sequence[LineSpec]) -> None:
    """Refuse lines naming printings that do not exist (the pages send ids)."""
    ids = {line.printing_id for line in lines}
    if not ids:
        return
    found = set(session.scalars(select(PRINTING.id).where(PRINTING.id.in_(sorted(ids)))))
    missing = sorted(ids - found)
    if missing:
        raise TradeError(Message(f"没有编号为 {missing[0]} 的印刷", f"no printing #{missing[0]}"))


def resolve_lines(session: Session, raw: Any, *, side: str) -> list[LineSpec]:
    """API lines ``[{set, number, condition?, language?, finish?, game?, quantity}]`` → LineSpecs.

    Every problem names the line (``give[2]``) in Chinese and English; nothing is looked up
    past ``MAX_LINES`` lines.
    """
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise TradeError(Message(f"{side} 应是列表", f"'{side}' must be a list"))
    if len(raw) > MAX_LINES:
        raise TradeError(Message(f"{side}：一方最多 {MAX_LINES} 行", f"{side}: at most {MAX_LINES} lines per side"))
    lines = []
    index_of_printings = PrintingIndex(session)
    for index, entry in enumerate(raw):
        where = f"{side}[{index}]"
        if not isinstance(entry, dict):
            raise TradeError(Message(f"{where} 应是对象", f"{where} must be an object"))
        texts = {}
        for name in ("set", "number", "condition", "language", "finish", "game"):
            value = entry.get(name)
            if value is not None and not isinstance(value, str):
                raise TradeError(Message(f"{where}：{name} 应是字符串", f"{where}: '{name}' must be a string"))
            texts[name] = value
        if not texts["set"] or not texts["number"]:
            raise TradeError(
                Message(
                    f"{where}：缺少 set（系列代号）或 number（收藏编号）", f"{where}: 'set' and 'number' are required"
                )
            )
        quantity = entry.get("quantity", 1)
        if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= MAX_QUANTITY:
            raise bad_quantity(where)
        try:
            grade = ItemGrade.parse(texts["condition"], texts["language"], texts["finish"])
            printing = index_of_printings.resolve(
                set_text=texts["set"].strip(), number=texts["number"].strip(), name="", game=texts["game"]
            )
        except (BadGrade, UnknownPrinting) as error:
            raise TradeError(Message(f"{where}：{error.message.zh}", f"{where}: {error.message.en}")) from error
        lines.append(LineSpec(printing.id, grade, quantity))
    return merge_lines(lines, side=side)

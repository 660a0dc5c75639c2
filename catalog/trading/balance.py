"""The balance of an offer: rarity points by default, or the viewer's price list.

Rarity points: 2 ** rank on the game's ladder (C 1, R 2, PR 4, UR 8, SR 16 in 永恒之轮): a rough
"one rarity up is worth two" that Deckbox-style trade helpers use when no prices are known.
A user may import a price list (CSV ``set,number,price``); their pages then weigh both sides
with it, and name the cards it has no price for.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import delete, select
from sqlmodel import Session

from catalog.collection.csvio import decode
from catalog.errors import LunzangError, Message
from catalog.lookup import PrintingIndex, UnknownPrinting
from catalog.models import TradePrice
from catalog.models.columns import PRINTING
from catalog.models.trade_columns import PRICE

MAX_PRICE_ROWS = 20_000


class PriceListError(LunzangError):
    code = "bad_price_list"
    status = 422  # a file that cannot be imported, as the collection import answers

    def __init__(self, message: Message, problems: list[tuple[int, str, Message]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass
class Balance:
    """Value per side (giver id → value) in one unit; ``unpriced`` counts copies without a price."""

    unit: str  # "points" | "price"
    sides: dict[int, float] = field(default_factory=dict)
    unpriced: dict[int, int] = field(default_factory=dict)


def unit_values(
    session: Session, *, viewer_id: int | None, printing_ids: Iterable[int]
) -> tuple[str, dict[int, float]]:
    """("price", printing → price) when the viewer has a price list, else ("points", → rarity points)."""
    ids = sorted(set(printing_ids))
    if viewer_id is not None and session.scalar(select(PRICE.id).where(PRICE.user_id == viewer_id).limit(1)):
        rows = session.execute(
            select(PRICE.printing_id, PRICE.cents).where(PRICE.user_id == viewer_id, PRICE.printing_id.in_(ids))
        )
        return "price", {pid: cents / 100 for pid, cents in rows}
    rows = session.execute(select(PRINTING.id, PRINTING.rarity_rank).where(PRINTING.id.in_(ids)))
    return "points", {pid: float(2**rank) for pid, rank in rows}


def balance_of(session: Session, *, viewer_id: int | None, sides: dict[int, list[tuple[int, int]]]) -> Balance:
    """``sides``: giver id → [(printing id, quantity)]."""
    unit, values = unit_values(
        session, viewer_id=viewer_id, printing_ids=(pid for lines in sides.values() for pid, _q in lines)
    )
    result = Balance(unit)
    for giver, lines in sides.items():
        result.sides[giver] = round(sum(values.get(pid, 0.0) * q for pid, q in lines), 2)
        result.unpriced[giver] = sum(q for pid, q in lines if pid not in values)
    return result


def _rows(reader: Any) -> Iterator[list[str]]:
    """The reader's rows; one the csv module cannot read (a field over its 131,072-character
    limit, a NUL byte) refuses the file with its line instead of failing the request."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            line = reader.line_num
            problem = Message(f"这一行无法读取：{error}", f"this line cannot be read: {error}")
            raise PriceListError(
                Message(
                    f"价格表第 {line} 行无法读取：{error}", f"line {line} of the price list cannot be read: {error}"
                ),
                [(line, "-", problem)],
            ) from error
        yield row


def import_prices(*, session: Session, user_id: int, data: bytes) -> int:
    """Replace the user's price list with a CSV ``set,number,price`` (all or nothing).

    Every bad row is reported (line, column, message) and nothing is written. Returns the rows kept.
    """
    text = decode(data)
    reader = _rows(csv.reader(io.StringIO(text, newline="")))
    header = [h.strip().lower() for h in next(reader, [])]
    if header[:3] != ["set", "number", "price"]:
        raise PriceListError(
            Message("价格表的表头应为 set,number,price", "the price list header must be set,number,price")
        )
    index = PrintingIndex(session)
    prices: dict[int, int] = {}
    problems: list[tuple[int, str, Message]] = []
    for line_no, row in enumerate(reader, start=2):
        if line_no - 1 > MAX_PRICE_ROWS:
            raise PriceListError(
                Message(f"价格表最多 {MAX_PRICE_ROWS} 行", f"a price list has at most {MAX_PRICE_ROWS} rows")
            )
        if not any(cell.strip() for cell in row):
            continue
        cells = [*row, "", "", ""][:3]
        try:
            printing = index.resolve(set_text=cells[0].strip(), number=cells[1].strip(), name="", game=None)
        except UnknownPrinting as error:
            problems.append((line_no, "number", error.message))
            continue
        try:
            price = Decimal(cells[2].strip().lstrip("¥￥$"))
            if not price.is_finite() or price < 0 or price > 1_000_000:
                raise InvalidOperation
        except InvalidOperation:
            problems.append(
                (line_no, "price", Message(f"价格「{cells[2]}」不是有效的数", f"price '{cells[2]}' is not a number"))
            )
            continue
        prices[printing.id] = int((price * 100).to_integral_value())
    if problems:
        first = problems[0]
        raise PriceListError(
            Message(
                f"价格表有 {len(problems)} 处错误，第 {first[0]} 行 {first[1]}：{first[2].zh}",
                f"the price list has {len(problems)} problems; line {first[0]} {first[1]}: {first[2].en}",
            ),
            problems,
        )
    session.execute(delete(TradePrice).where(PRICE.user_id == user_id))
    for pid, cents in sorted(prices.items()):
        session.add(TradePrice(user_id=user_id, printing_id=pid, cents=cents))
    session.flush()
    return len(prices)

"""Collection CSV files (issue 6 §4, a contract shared with the API): reading and writing.

Columns ``set,number,name,quantity,condition,language,finish,for_trade`` (our preset) or
Deckbox's ``Count,Name,Edition,Card Number,Condition,Language,Foil`` (recognised by the header).
Nothing here writes to the database: :mod:`catalog.collection.imports` does, after every row
has been read and checked.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import CONDITIONS, parse_grade, unknown_grade_message
from catalog.collection.tables import CARD, GAME, ITEM, PRINTING, SET
from catalog.errors import LunzangError, Message
from catalog.models import Card, CardSet, Game, Printing
from catalog.text import fold

MAX_BYTES = 10 * 1024 * 1024
MAX_QUANTITY = 100_000  # per row: a larger number is a typo (or a column mix-up)
OUR_COLUMNS = ("set", "number", "name", "quantity", "condition", "language", "finish", "for_trade")
# Deckbox's own export writes "Tradelist Count" right after "Count": we do too, and read it back,
# so a round trip through Deckbox keeps every quantity for trade.
DECKBOX_COLUMNS = ("Count", "Tradelist Count", "Name", "Edition", "Card Number", "Condition", "Language", "Foil")
PRESETS = ("lunzang", "deckbox")

# header word (folded, no spaces/underscores) → field, per preset
_OURS = {
    "set": "set",
    "系列": "set",
    "number": "number",
    "编号": "number",
    "no": "number",
    "name": "name",
    "卡名": "name",
    "名称": "name",
    "quantity": "quantity",
    "qty": "quantity",
    "count": "quantity",
    "数量": "quantity",
    "condition": "condition",
    "品相": "condition",
    "language": "language",
    "语言": "language",
    "finish": "finish",
    "工艺": "finish",
    "fortrade": "for_trade",
    "可交换": "for_trade",
    "game": "game",
    "游戏": "game",
}
_DECKBOX = {
    "count": "quantity",
    "name": "name",
    "edition": "set",
    "cardnumber": "number",
    "condition": "condition",
    "language": "language",
    "foil": "finish",
    "tradelistcount": "for_trade",
    "game": "game",
}
# Columns Deckbox writes that say nothing we keep: accepted and ignored.
_DECKBOX_IGNORED = {
    "rarity",
    "type",
    "cost",
    "signed",
    "artistproof",
    "alteredart",
    "misprint",
    "promo",
    "textless",
    "myprice",
    "printingid",
    "printingnote",
    "tags",
    "edition code",
    "editioncode",
    "decks",
}
_HEADER_NOISE = re.compile(r"[\s_\-]")
_BINARY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

DECKBOX_CONDITION = {
    "NM": "Near Mint",
    "LP": "Good (Lightly Played)",
    "MP": "Played",
    "HP": "Heavily Played",
    "DMG": "Poor",
}
DECKBOX_LANGUAGE = {"简中": "Chinese", "繁中": "Traditional Chinese", "EN": "English", "日": "Japanese"}


@dataclass(frozen=True)
class CsvProblem:
    """One problem of a collection CSV: line (1 = header), column as written, message."""

    line: int
    column: str
    message: Message

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "message": self.message.zh, "message_en": self.message.en}

    def located(self, filename: str) -> str:
        return f"{filename}:{self.line}: {self.column}: {self.message.zh}"


# An answer lists this many problems and counts the rest (issue 16: a 9.6 MB file of unknown rows
# answered 79 MB of errors). The command line still prints every one.
MAX_LISTED_PROBLEMS = 100

# A spreadsheet runs a cell starting with one of these as a formula (CSV injection): exports
# write such cells behind a "'" — shown as text by Excel, LibreOffice and Numbers — and
# imports drop that "'" again, so re-importing an export changes nothing. A cell already
# starting with "'" gets one more, so the round trip is exact.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(cell: str) -> str:
    """``cell`` as written to an exported CSV: a would-be formula behind a quote mark."""
    return "'" + cell if cell[:1] in FORMULA_STARTS or cell[:1] == "'" else cell


def unescape_cell(cell: str) -> str:
    """The inverse of :func:`safe_cell` (a user's own "'text" cell is kept as written)."""
    if cell[:1] == "'" and (cell[1:2] in FORMULA_STARTS or cell[1:2] == "'") and cell[1:2]:
        return cell[1:]
    return cell


class CollectionFileError(LunzangError):
    """The file cannot be imported: every problem found, nothing written."""

    code = "invalid_csv"
    status = 422

    def __init__(self, problems: list[CsvProblem]) -> None:
        first = problems[0]
        summary = (
            Message(f"第 {first.line} 行 {first.column}：{first.message.zh}", first.message.en)
            if len(problems) == 1
            else Message(f"文件有 {len(problems)} 处错误，未导入任何卡牌", f"{len(problems)} errors, nothing imported")
        )
        super().__init__(summary)
        self.problems = problems

    @property
    def listed(self) -> list[CsvProblem]:
        """The problems an answer lists (the first :data:`MAX_LISTED_PROBLEMS`)."""
        return self.problems[:MAX_LISTED_PROBLEMS]

    @property
    def more(self) -> int:
        """How many problems an answer leaves out ("and N more")."""
        return max(0, len(self.problems) - MAX_LISTED_PROBLEMS)

    def extra_json(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"details": [p.to_json() for p in self.listed]}
        if self.more:
            extra["more"] = self.more
        return extra


def _refuse(zh: str, en: str) -> CollectionFileError:
    return CollectionFileError([CsvProblem(0, "-", Message(zh, en))])


def decode(data: bytes) -> str:
    """The text of a CSV: UTF-8 (Excel's BOM accepted), else GB18030 (a superset of GBK).

    Refuses files over 10 MB and binary files (NUL or control bytes, or neither encoding).
    """
    if len(data) > MAX_BYTES:
        raise _refuse(
            f"文件太大（{len(data) / 1048576:.1f} MB），上限 10 MB；请分成几个文件导入",
            f"the file is too large ({len(data) / 1048576:.1f} MB); the limit is 10 MB",
        )
    if b"\x00" in data:
        raise _refuse("这不是 CSV 文本文件（含二进制数据）", "this is not a CSV text file (binary data)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("gb18030")
        except UnicodeDecodeError as error:
            raise _refuse(
                f"无法识别文件编码（第 {error.start + 1} 字节）：请另存为 UTF-8 或 GBK 编码的 CSV",
                f"unknown text encoding (byte {error.start + 1}): save the CSV as UTF-8 or GBK",
            ) from error
    if _BINARY.search(text):
        raise _refuse("这不是 CSV 文本文件（含控制字符）", "this is not a CSV text file (control characters)")
    return text


@dataclass
class CsvRow:
    """One data row as written: its line and the cells by field."""

    line: int
    cells: dict[str, str]
    columns: dict[str, str]  # field → the header as written (for messages)


@dataclass
class ParsedCsv:
    preset: str
    rows: list[CsvRow]
    problems: list[CsvProblem]


def _header_key(cell: str) -> str:
    return _HEADER_NOISE.sub("", fold(cell.strip()))


def _rows(reader: Any) -> Iterator[list[str]]:
    """The reader's rows; a row the csv module cannot read (a field over its 131,072-character
    limit, a NUL byte) is refused with its line instead of failing the request."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise CollectionFileError(
                [
                    CsvProblem(
                        reader.line_num, "-", Message(f"这一行无法读取：{error}", f"this line cannot be read: {error}")
                    )
                ]
            ) from error
        yield row


def parse(text: str) -> ParsedCsv:
    """Rows of a collection CSV by field, with header problems (unknown, repeated, missing columns)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    problems: list[CsvProblem] = []
    header: list[str] | None = None
    header_line = 1
    rows: list[CsvRow] = []
    fields: list[str | None] = []
    columns: dict[str, str] = {}
    preset = "lunzang"
    next_line = 1
    for cells in _rows(reader):
        cells = [unescape_cell(c) for c in cells]
        line, next_line = next_line, reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue
        if header is None:
            header, header_line = cells, line
            keys = [_header_key(c) for c in cells]
            preset = "deckbox" if {"edition", "cardnumber", "foil", "tradelistcount"} & set(keys) else "lunzang"
            table = _DECKBOX if preset == "deckbox" else _OURS
            for written, key in zip(cells, keys, strict=True):
                field = table.get(key)
                if field is None and not (preset == "deckbox" and key in _DECKBOX_IGNORED):
                    known = ", ".join(DECKBOX_COLUMNS if preset == "deckbox" else OUR_COLUMNS)
                    problems.append(
                        CsvProblem(
                            line,
                            written or "-",
                            Message(
                                f"未知的列「{written}」，可用：{known}", f"unknown column '{written}'; known: {known}"
                            ),
                        )
                    )
                elif field is not None and field in columns:
                    problems.append(
                        CsvProblem(line, written, Message(f"列「{written}」重复", f"column '{written}' repeated"))
                    )
                    field = None
                if field is not None:
                    columns[field] = written
                fields.append(field)
            if "set" not in columns and "name" not in columns:
                need = "Edition / Name" if preset == "deckbox" else "set / name"
                problems.append(
                    CsvProblem(
                        line,
                        need,
                        Message(
                            f"缺少列 {need}：至少要有系列（加编号）或卡名",
                            f"missing column {need}: give set (and number) or name",
                        ),
                    )
                )
            continue
        if len(cells) > len(fields):
            problems.append(
                CsvProblem(
                    line,
                    "-",
                    Message(
                        f"这一行有 {len(cells)} 格，表头只有 {len(fields)} 列",
                        f"{len(cells)} cells, but the header has {len(fields)} columns",
                    ),
                )
            )
            continue
        rows.append(CsvRow(line, {f: c.strip() for f, c in zip(fields, cells, strict=False) if f is not None}, columns))
    if header is None:
        problems.append(
            CsvProblem(header_line, "-", Message("文件是空的：没有表头", "the file is empty: no header row"))
        )
    return ParsedCsv(preset, rows, problems)


def parse_count(text: str, default: int) -> int | None:
    """A non-negative whole number (empty → default), or None."""
    text = fold(text)
    if not text:
        return default
    if text.endswith(".0"):  # Excel sometimes writes 3.0
        text = text[:-2]
    return int(text) if text.isdigit() and int(text) <= MAX_QUANTITY else None


_GRADE_MEMO: dict[tuple[str, str, str], tuple[str, str, str]] = {}


def row_grades(row: CsvRow, problems: list[CsvProblem]) -> tuple[str, str, str] | None:
    """The canonical (condition, language, finish) of a row, or None (problems appended)."""
    cells = (row.cells.get("condition", ""), row.cells.get("language", ""), row.cells.get("finish", ""))
    known = _GRADE_MEMO.get(cells)
    if known is not None:
        return known
    values = []
    for field in ("condition", "language", "finish"):
        text = row.cells.get(field, "")
        value = parse_grade(field, text)
        if value is None:
            problems.append(CsvProblem(row.line, row.columns.get(field, field), unknown_grade_message(field, text)))
        values.append(value)
    if None in values:
        return None
    if len(_GRADE_MEMO) < 4096:  # every valid spelling combination people use: small
        # why the type: ignore below: no None among the values (returned above)
        _GRADE_MEMO[cells] = (values[0], values[1], values[2])  # type: ignore[assignment]
    return values[0], values[1], values[2]  # type: ignore[return-value]  # no None among the values (returned above)


# ---------------------------------------------------------------------------- export


def export_collection(*, session: Session, user_id: int, preset: str = "lunzang") -> str:
    """The user's collection as CSV text in our columns or Deckbox's (items with quantity > 0).

    Importing it again in ``replace`` mode changes nothing, in either preset (Deckbox's
    ``Tradelist Count`` carries the quantity for trade). When a set code of the collection
    exists in several games, our preset adds a ``game`` column so the file stays unambiguous.
    """
    if preset not in PRESETS:
        raise LunzangError(
            Message(
                f"未知的导出格式「{preset}」，可用：{'、'.join(PRESETS)}",
                f"unknown export preset '{preset}'; known: {', '.join(PRESETS)}",
            )
        )
    query = (
        select(
            GAME.slug,
            SET.code,
            SET.name,
            PRINTING.number,
            CARD.name,
            ITEM.quantity,
            ITEM.condition,
            ITEM.language,
            ITEM.finish,
            ITEM.for_trade,
        )
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .where(ITEM.user_id == user_id, ITEM.quantity > 0)
        .order_by(
            GAME.slug,
            SET.position,
            SET.code,
            PRINTING.number,
            ITEM.condition,
            ITEM.language,
            ITEM.finish,
        )
    )
    rows = list(session.execute(query).all())
    codes: dict[str, set[str]] = {}
    for code_key, game in session.execute(select(SET.code_key, GAME.slug).join(Game, GAME.id == SET.game_id)):
        codes.setdefault(code_key, set()).add(game)
    need_game = any(len(codes.get(fold(r[1]), ())) > 1 for r in rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    order = {c: i for i, c in enumerate(CONDITIONS)}
    rows.sort(key=lambda r: (r[0], r[1], r[3], order[r[6]], r[7], r[8]))
    if preset == "deckbox":
        writer.writerow(DECKBOX_COLUMNS)
        for _game, _code, set_name, number, name, qty, cond, lang, finish, for_trade in rows:
            writer.writerow(
                [
                    qty,
                    for_trade,
                    safe_cell(name),
                    safe_cell(set_name),
                    safe_cell(number),
                    DECKBOX_CONDITION[cond],
                    DECKBOX_LANGUAGE[lang],
                    "foil" if finish == "闪" else "",
                ]
            )
        return out.getvalue()
    writer.writerow([*OUR_COLUMNS, "game"] if need_game else OUR_COLUMNS)
    for game, code, _set_name, number, name, qty, cond, lang, finish, for_trade in rows:
        cells = [safe_cell(code), safe_cell(number), safe_cell(name), qty, cond, lang, finish, for_trade]
        writer.writerow([*cells, game] if need_game else cells)
    return out.getvalue()

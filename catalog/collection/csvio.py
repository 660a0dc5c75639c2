"""Collection CSV files (a contract shared with the API): reading and writing.

Columns ``set,number,name,quantity,condition,language,finish,for_trade`` (our preset) or
Deckbox's ``Count,Name,Edition,Card Number,Condition,Language,Foil`` (recognised by the header).
Nothing here writes to the database: :mod:`catalog.collection.imports` does, after every row
has been read and checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from catalog.collection import sheets
from catalog.collection.grades import grade_key, parse_grade, split_finish, unknown_grade_message
from catalog.collection.presets import FIELDS, IGNORE, OURS, Preset, detect, header_key
from catalog.collection.presets import PRESETS as TOOL_PRESETS
from catalog.errors import LunzangError, Message
from catalog.text import fold

MAX_BYTES = sheets.MAX_BYTES  # re-exported: the web, the API and the CLI read files up to it
MAX_ROWS = sheets.MAX_ROWS
MAX_QUANTITY = 100_000  # per row: a larger number is a typo (or a column mix-up)
OUR_COLUMNS = ("set", "number", "name", "quantity", "condition", "language", "finish", "for_trade")
# Deckbox's own export writes "Tradelist Count" right after "Count": we do too, and read it back,
# so a round trip through Deckbox keeps every quantity for trade.
DECKBOX_COLUMNS = ("Count", "Tradelist Count", "Name", "Edition", "Card Number", "Condition", "Language", "Foil")
PRESETS = ("lunzang", "deckbox", "manabox", "moxfield")  # the CSV exports (catalog.collection.exports)

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

    def located(self, filename: str) -> str:
        return f"{filename}:{self.line}: {self.column}: {self.message.zh}"


# An answer lists this many problems and counts the rest (a 9.6 MB file of unknown rows
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
        extra: dict[str, Any] = {
            "details": [
                {"line": p.line, "column": p.column, "message": p.message.zh, "message_en": p.message.en}
                for p in self.listed
            ]
        }
        if self.more:
            extra["more"] = self.more
        return extra


def _refuse(zh: str, en: str) -> CollectionFileError:
    return CollectionFileError([CsvProblem(0, "-", Message(zh, en))])


class UnrecognisedHeader(CollectionFileError):
    """No preset knows the header and no column names a set, number or card: the user maps the
    columns (the web's mapping step, the CLI's ``--map``). Carries the header and first rows."""

    code = "unrecognised_header"

    def __init__(self, header: list[str], sample: list[list[str]], line: int) -> None:
        shown = ", ".join(header)
        super().__init__(
            [
                CsvProblem(
                    line,
                    "-",
                    Message(
                        f"无法识别表头（{shown}）：请指明每一列是什么（网页上的对应步骤，或命令行 --map）",
                        f"header not recognised ({shown}): say what each column holds (the mapping step, or --map)",
                    ),
                )
            ]
        )
        self.header = header
        self.sample = sample

    def extra_json(self) -> dict[str, Any]:
        return {**super().extra_json(), "header": self.header, "sample": self.sample, "fields": list(FIELDS)}


def decode(data: bytes) -> str:
    """The text of a CSV (:func:`catalog.collection.sheets.decode`), or :class:`CollectionFileError`."""
    try:
        return sheets.decode(data)[0]
    except sheets.SheetError as error:
        raise CollectionFileError([CsvProblem(error.line, "-", error.message)]) from error


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
    label: str = ""  # the preset for people ("Deckbox (classic)")
    ignored: list[str] = field(default_factory=list)  # columns as written that we do not read
    header: list[str] = field(default_factory=list)
    mapped: bool = False  # the user's mapping named the columns
    values: dict[str, dict[str, str]] = field(default_factory=dict)  # the preset's grade words
    source: dict[str, str] = field(default_factory=dict)  # how the file was read (kind, encoding, …)


def parse_mapping(text: str) -> dict[str, str]:
    """``"Card Number=number,Qty=quantity,Notes=ignore"`` → {header key: field}; a bad field or
    pair raises :class:`LunzangError` naming it."""
    mapping: dict[str, str] = {}
    for pair in (p for p in text.split(",") if p.strip()):
        column, equals, target = pair.rpartition("=")
        target = target.strip().lower()
        if not equals or not column.strip():
            raise LunzangError(
                Message(f"对应「{pair}」应写成 列名=字段", f"mapping '{pair}' must be written COLUMN=FIELD")
            )
        if target not in (*FIELDS, IGNORE):
            known = ", ".join((*FIELDS, IGNORE))
            raise LunzangError(
                Message(f"未知的字段「{target}」，可用：{known}", f"unknown field '{target}'; known: {known}")
            )
        mapping[header_key(column)] = target
    return mapping


def _problem(line: int, column: str, zh: str, en: str) -> CsvProblem:
    return CsvProblem(line, column, Message(zh, en))


def _read_header(
    header: list[str], line: int, mapping: dict[str, str] | None, problems: list[CsvProblem]
) -> tuple[Preset, list[str | None], dict[str, str], list[str]]:
    """The preset, each column's field (None: ignored), field → column as written, the ignored columns."""
    keys = [header_key(c) for c in header]
    preset = detect(keys)
    fields: list[str | None] = []
    columns: dict[str, str] = {}
    ignored: list[str] = []
    for written, key in zip(header, keys, strict=True):
        if mapping and key in mapping:
            target: str | None = mapping[key]
        elif key in preset.columns:
            target = preset.columns[key]
        elif key in preset.ignored:
            target = None
        else:
            target = OURS.get(key)  # a column the tool's later versions may add, in words we know
        if target == IGNORE:
            target = None
        if target is not None and target in columns:
            problems.append(_problem(line, written, f"列「{written}」重复", f"column '{written}' repeated"))
            target = None
        elif target is None:
            ignored.append(written or f"#{len(fields) + 1}")
        else:
            columns[target] = written
        fields.append(target)
    return preset, fields, columns, ignored


def parse_rows(rows: Iterable[tuple[int, list[str]]], *, mapping: dict[str, str] | None = None) -> ParsedCsv:
    """Rows of a collection file by field, with header problems (repeated or missing columns).

    The preset comes from the header (:func:`catalog.collection.presets.detect`); columns no
    preset reads are ignored and listed. A header naming no set, number or card, and no mapping
    for it, raises :class:`UnrecognisedHeader` (with the first rows, for the mapping step).
    """
    problems: list[CsvProblem] = []
    parsed = ParsedCsv("lunzang", [], problems)
    fields: list[str | None] = []
    columns: dict[str, str] = {}
    header: list[str] | None = None
    header_line = 1
    unrecognised = False
    sample: list[list[str]] = []  # the first rows of an unrecognised header, for the mapping step
    for line, raw in rows:
        cells = [unescape_cell(c) for c in raw]
        if not any(c.strip() for c in cells):
            continue
        if header is None:
            header, header_line = [c.strip() for c in cells], line
            preset, fields, columns, ignored = _read_header(header, line, mapping, problems)
            parsed.preset, parsed.label, parsed.values = preset.key, preset.label, preset.values
            parsed.header, parsed.ignored, parsed.mapped = header, ignored, bool(mapping)
            if not {"set", "set_name", "name", "number"} & set(columns) and not mapping:
                unrecognised = True
            elif not {"set", "set_name", "name"} & set(columns):
                need = "Edition / Name" if preset.key == "deckbox" else "set / name"
                problems.append(
                    _problem(
                        line,
                        need,
                        f"缺少列 {need}：至少要有系列（加编号）或卡名",
                        f"missing column {need}: give set (and number) or name",
                    )
                )
            continue
        if unrecognised:
            sample.append(cells)
            if len(sample) >= SAMPLE_ROWS:
                break
            continue
        if len(parsed.rows) >= MAX_ROWS:
            raise _refuse(
                f"文件超过 {MAX_ROWS:,} 行；请分成几个文件导入",
                f"the file has more than {MAX_ROWS:,} rows; split it into several files",
            )
        if len(cells) > len(fields):
            problems.append(
                _problem(
                    line,
                    "-",
                    f"这一行有 {len(cells)} 格，表头只有 {len(fields)} 列",
                    f"{len(cells)} cells, but the header has {len(fields)} columns",
                )
            )
            continue
        parsed.rows.append(
            CsvRow(line, {f: c.strip() for f, c in zip(fields, cells, strict=False) if f is not None}, columns)
        )
    if header is None:
        problems.append(_problem(header_line, "-", "文件是空的：没有表头", "the file is empty: no header row"))
    elif unrecognised:
        raise UnrecognisedHeader(header, sample, header_line)
    return parsed


SAMPLE_ROWS = 5  # rows shown with an unrecognised header


def parse(text: str, *, mapping: dict[str, str] | None = None) -> ParsedCsv:
    """:func:`parse_rows` of a CSV text (delimiter sniffed)."""
    delimiter, text = sheets.sniff(text)
    try:
        return parse_rows(sheets.csv_rows(text, delimiter), mapping=mapping)
    except sheets.SheetError as error:
        raise CollectionFileError([CsvProblem(error.line, "-", error.message)]) from error


def read_rows(data: bytes, *, mapping: dict[str, str] | None = None, sheet: str | None = None) -> ParsedCsv:
    """:func:`parse_rows` of a file's bytes: CSV (any encoding and delimiter we read) or XLSX."""
    try:
        table = sheets.read_table(data, sheet=sheet)
        parsed = parse_rows(table.rows, mapping=mapping)
    except sheets.SheetError as error:
        raise CollectionFileError([CsvProblem(error.line, "-", error.message)]) from error
    parsed.source = {"kind": table.kind, "encoding": table.encoding, "delimiter": table.delimiter}
    if table.kind == "xlsx":
        parsed.source.update(sheet=table.sheet, sheets=" | ".join(table.sheets))
    return parsed


def parse_count(text: str, default: int) -> int | None:
    """A non-negative whole number (empty → default), or None."""
    text = fold(text)
    if not text:
        return default
    if text.endswith(".0"):  # Excel sometimes writes 3.0
        text = text[:-2]
    return int(text) if text.isdigit() and int(text) <= MAX_QUANTITY else None


_GRADE_MEMO: dict[tuple[int, str, str, str], tuple[str, str, str]] = {}
_NO_WORDS: dict[str, dict[str, str]] = {}
_PRESET_WORDS = frozenset(id(p.values) for p in TOOL_PRESETS)  # module constants: their ids are stable


def _grade(kind: str, text: str, values: dict[str, dict[str, str]]) -> str | None:
    """A grade word: the preset's own words first (ManaBox's ``played`` is HP), then ours."""
    words = values.get(kind)
    if words and text.strip():
        found = words.get(grade_key(text))
        if found is not None:
            return found
    return parse_grade(kind, text)


def row_grades(
    row: CsvRow, problems: list[CsvProblem], values: dict[str, dict[str, str]] | None = None
) -> tuple[str, str, str] | None:
    """The canonical (condition, language, finish) of a row, or None (problems appended).

    ``values``: the preset's grade words. A condition that carries the finish (TCGplayer's
    ``Lightly Played Foil``) gives both, unless the finish column says otherwise.
    """
    values = values or _NO_WORDS
    cells = (row.cells.get("condition", ""), row.cells.get("language", ""), row.cells.get("finish", ""))
    # memoised per preset (its words are module constants, so the id is stable)
    memo_key = (id(values) if id(values) in _PRESET_WORDS else 0, *cells)
    known = _GRADE_MEMO.get(memo_key)
    if known is not None:
        return known
    condition = _grade("condition", cells[0], values)
    finish_text = cells[2]
    if condition is None and (split := split_finish(cells[0])) is not None:
        condition = _grade("condition", split[0], values)
        if condition is not None and not finish_text.strip():
            finish_text = split[1]
    found = {
        "condition": condition,
        "language": _grade("language", cells[1], values),
        "finish": _grade("finish", finish_text, values),
    }
    for kind, value in found.items():
        if value is None:
            text = row.cells.get(kind, "")
            problems.append(CsvProblem(row.line, row.columns.get(kind, kind), unknown_grade_message(kind, text)))
    a, b, c = found["condition"], found["language"], found["finish"]
    if a is None or b is None or c is None:
        return None
    if len(_GRADE_MEMO) < 4096 and (memo_key[0] or values is _NO_WORDS):  # every valid spelling people use: small
        _GRADE_MEMO[memo_key] = (a, b, c)
    return a, b, c

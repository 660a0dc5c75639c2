"""Reading a collection file's cells: CSV in any of the encodings and delimiters people's tools
write, or an ``.xlsx`` workbook.

- Encodings: UTF-8 with or without BOM, GBK/GB18030 (Chinese Excel), UTF-16 with a BOM (Excel's
  "Unicode text") or without one (recognised by its zero bytes).
- Delimiter: a first line ``sep=X`` (Excel, Dragon Shield) names it; otherwise the header line's
  most frequent of ``,`` ``;`` and tab outside quotes (Excel in a European locale writes ``;``).
- ``.xlsx`` (a zip): openpyxl in read-only mode, streaming the first sheet (or the one named),
  under the same limits as a CSV: :data:`MAX_BYTES` of file, :data:`MAX_ROWS` rows, plus
  :data:`MAX_XLSX_UNPACKED` bytes of XML once unpacked (a zip bomb is refused before reading).

Each row comes as (line, cells) with the line a person sees in the file or the sheet.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from catalog.errors import Message

MAX_BYTES = 10 * 1024 * 1024
MAX_ROWS = 200_000  # data rows of one file, CSV or sheet (the 100,000-row benchmark fits twice)
MAX_COLUMNS = 200  # cells read per row of a sheet (a stray cell in column XFD must not cost 16k cells)
MAX_XLSX_UNPACKED = 200 * 1024 * 1024
DELIMITERS = (",", ";", "\t")
_BINARY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SEP_LINE = re.compile(r'^\ufeff?"?sep=(.)"?[,;\t]*\r?$', re.IGNORECASE)


class SheetError(Exception):
    """The file cannot be read at all (one message; line 0 means the whole file)."""

    def __init__(self, message: Message, line: int = 0) -> None:
        super().__init__(message.en)
        self.message = message
        self.line = line


@dataclass
class Table:
    """A file's rows as cells, with how it was read (for the report)."""

    kind: str  # "csv" | "xlsx"
    rows: Iterator[tuple[int, list[str]]]
    encoding: str = ""
    delimiter: str = ","
    sheet: str = ""
    sheets: tuple[str, ...] = ()


def _too_large(size: int) -> SheetError:
    return SheetError(
        Message(
            f"文件太大（{size / 1048576:.1f} MB），上限 10 MB；请分成几个文件导入",
            f"the file is too large ({size / 1048576:.1f} MB); the limit is 10 MB",
        )
    )


def _looks_utf16(data: bytes) -> str | None:
    """``utf-16-le``/``-be`` for BOM-less UTF-16 text (every other byte zero), else None."""
    head = data[:400]
    if len(head) < 4 or len(head) % 2:
        head = head[: len(head) - len(head) % 2]
    if len(head) < 4:
        return None
    odd, even = head[1::2], head[0::2]
    if odd.count(0) >= len(odd) * 0.6 and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) >= len(even) * 0.6 and odd.count(0) == 0:
        return "utf-16-be"
    return None


def decode(data: bytes) -> tuple[str, str]:
    """The text of a CSV and the encoding it was read in: UTF-16 (with a BOM, or recognised),
    UTF-8 (Excel's BOM accepted), else GB18030 (a superset of GBK).

    Refuses files over 10 MB and binary files (NUL or control bytes, or no encoding fits).
    """
    if len(data) > MAX_BYTES:
        raise _too_large(len(data))
    encoding = ""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        encoding = "utf-16"
    elif b"\x00" in data[:400]:
        encoding = _looks_utf16(data) or ""
    if encoding:
        try:
            text = data.decode(encoding).lstrip("\ufeff")
        except UnicodeDecodeError as error:
            raise SheetError(
                Message(
                    f"无法按 UTF-16 读取文件（第 {error.start + 1} 字节）", f"not valid UTF-16 (byte {error.start + 1})"
                )
            ) from error
    else:
        if b"\x00" in data:
            raise SheetError(
                Message("这不是 CSV 文本文件（含二进制数据）", "this is not a CSV text file (binary data)")
            )
        try:
            text, encoding = data.decode("utf-8-sig"), "utf-8"
        except UnicodeDecodeError:
            try:
                text, encoding = data.decode("gb18030"), "gb18030"
            except UnicodeDecodeError as error:
                raise SheetError(
                    Message(
                        f"无法识别文件编码（第 {error.start + 1} 字节）：请另存为 UTF-8 或 GBK 编码的 CSV",
                        f"unknown text encoding (byte {error.start + 1}): save the CSV as UTF-8 or GBK",
                    )
                ) from error
    if _BINARY.search(text):
        raise SheetError(
            Message("这不是 CSV 文本文件（含控制字符）", "this is not a CSV text file (control characters)")
        )
    return text, encoding


def _count_outside_quotes(line: str, char: str) -> int:
    count, quoted = 0, False
    for c in line:
        if c == '"':
            quoted = not quoted
        elif c == char and not quoted:
            count += 1
    return count


def sniff(text: str) -> tuple[str, str]:
    """(delimiter, text): a ``sep=X`` first line is honoured and blanked (line numbers stay);
    otherwise the header's most frequent delimiter outside quotes (``,`` on a tie or none)."""
    first, newline, rest = text.partition("\n")
    found = _SEP_LINE.match(first)
    if found and found[1] in ",;\t|":
        return found[1], newline + rest
    for line in text.splitlines():
        if line.strip():
            counts = {d: _count_outside_quotes(line, d) for d in DELIMITERS}
            best = max(DELIMITERS, key=lambda d: counts[d])  # ties keep the order: "," first
            return (best if counts[best] else ","), text
    return ",", text


def csv_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """The rows with their first line; a row the csv module cannot read is refused with its line."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    next_line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise SheetError(
                Message(f"这一行无法读取：{error}", f"this line cannot be read: {error}"), reader.line_num
            ) from error
        line, next_line = next_line, reader.line_num + 1
        yield line, row


def _cell_text(value: Any) -> str:
    """A sheet cell as the text a CSV would hold (3.0 → "3", a date → ISO, empty → "")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def is_xlsx(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def _open_workbook(data: bytes) -> Any:
    if len(data) > MAX_BYTES:
        raise _too_large(len(data))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise SheetError(
            Message("无法读取这个 XLSX 文件（已损坏）", "this XLSX file cannot be read (damaged)")
        ) from error
    if unpacked > MAX_XLSX_UNPACKED:
        raise SheetError(
            Message(
                f"XLSX 解压后太大（{unpacked / 1048576:.0f} MB），上限 {MAX_XLSX_UNPACKED // 1048576} MB",
                f"the XLSX unpacks to {unpacked / 1048576:.0f} MB; the limit is {MAX_XLSX_UNPACKED // 1048576} MB",
            )
        )
    # openpyxl costs ~0.25 s to import: only a workbook pays it
    from openpyxl import load_workbook

    try:
        return load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises many kinds (KeyError, InvalidFileException, …)
        raise SheetError(
            Message(
                "无法读取这个 XLSX 文件：它不是 Excel 工作簿", "this XLSX file cannot be read: not an Excel workbook"
            )
        ) from error


def _sheet_rows(worksheet: Any) -> Iterator[tuple[int, list[str]]]:
    try:
        parser = _FastParser(worksheet)
    except (AttributeError, ImportError, TypeError):  # another openpyxl inside: its public path
        parser = None
    if parser is None:
        for line, values in enumerate(worksheet.iter_rows(values_only=True, max_col=MAX_COLUMNS), start=1):
            cells = [_cell_text(v) for v in values]
            while cells and not cells[-1]:
                cells.pop()  # read-only sheets pad rows to the widest one
            yield line, cells
        return
    with parser as rows:
        yield from rows


class _FastParser:
    """The sheet's rows through openpyxl's own streaming parser, reading inline strings (what
    openpyxl itself writes for every text cell) as plain text: openpyxl builds a rich-text
    object per such cell, half the time of a 100,000-row sheet. Cells are placed by their
    column; numbers, dates, shared strings and booleans are openpyxl's."""

    def __init__(self, worksheet: Any) -> None:
        from openpyxl.utils import coordinate_to_tuple
        from openpyxl.worksheet._reader import WorkSheetParser
        from openpyxl.xml.constants import SHEET_MAIN_NS

        inline, text_tag, run_tag = f"{{{SHEET_MAIN_NS}}}is", f"{{{SHEET_MAIN_NS}}}t", f"{{{SHEET_MAIN_NS}}}r"

        class Parser(WorkSheetParser):
            def parse_cell(self, element: Any) -> Any:
                if element.get("t") != "inlineStr":
                    return super().parse_cell(element)
                coordinate = element.get("r")
                if coordinate:
                    row, column = coordinate_to_tuple(coordinate)
                    self.col_counter = column
                else:
                    self.col_counter += 1
                    row, column = self.row_counter, self.col_counter
                parts = []
                child = element.find(inline)
                for node in child if child is not None else ():
                    if node.tag == text_tag:
                        parts.append(node.text or "")
                    elif node.tag == run_tag:
                        parts.extend(t.text or "" for t in node.iter(text_tag))
                return {"row": row, "column": column, "value": "".join(parts), "data_type": "s", "style_id": 0}

        book = worksheet.parent
        self._source = worksheet._get_source()
        self._parser = Parser(
            None,
            worksheet._shared_strings,
            data_only=True,
            epoch=book.epoch,
            date_formats=book._date_formats,
            timedelta_formats=book._timedelta_formats,
        )

    def __enter__(self) -> Iterator[tuple[int, list[str]]]:
        self._parser.source = self._source.__enter__()
        return self._rows()

    def __exit__(self, *exc: object) -> None:
        self._source.__exit__(*exc)

    def _rows(self) -> Iterator[tuple[int, list[str]]]:
        for line, parsed in self._parser.parse():
            cells: list[str] = []
            for cell in parsed:
                column = cell["column"]
                if column > MAX_COLUMNS:
                    break
                value = _cell_text(cell["value"])
                if value:
                    cells.extend([""] * (column - 1 - len(cells)))
                    cells.append(value)
            yield line, cells


def read_table(data: bytes, *, sheet: str | None = None) -> Table:
    """The rows of a CSV or ``.xlsx`` file (``sheet``: a sheet's name, else the first one)."""
    if is_xlsx(data):
        workbook = _open_workbook(data)
        names = tuple(workbook.sheetnames)
        if not names:
            raise SheetError(Message("这个 XLSX 文件没有工作表", "this XLSX file has no sheet"))
        chosen = sheet if sheet else names[0]
        if chosen not in names:
            known = "、".join(names)
            raise SheetError(
                Message(
                    f"没有名为「{chosen}」的工作表，可用：{known}", f"no sheet '{chosen}'; sheets: {', '.join(names)}"
                )
            )
        return Table("xlsx", _sheet_rows(workbook[chosen]), sheet=chosen, sheets=names)
    text, encoding = decode(data)
    delimiter, text = sniff(text)
    return Table("csv", csv_rows(text, delimiter), encoding=encoding, delimiter=delimiter)

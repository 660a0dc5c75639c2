"""A catalogue's card files: bytes checked as UTF-8, a card CSV's header checked when the
catalogue is read, its rows read only when iterated (never held), each problem located as
``file:line: column``.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from catalog.errors import Message
from catalog.games import GameModule
from catalog.games.base import COMMON_REQUIRED


@dataclass(frozen=True)
class Problem:
    """One import error, reported as ``file:line: column: message``."""

    file: str
    line: int
    column: str
    message: Message

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.column}: {self.message.zh}"


@dataclass
class Row:
    file: str
    line: int
    values: dict[str, str]


@dataclass(frozen=True)
class CsvFile:
    """A card CSV whose header checked clean; its rows are read when iterated, not kept."""

    path: Path
    columns: tuple[str, ...]

    @property
    def display(self) -> str:
        return str(self.path)

    def rows(self, problems: list[Problem]) -> Iterator[Row]:
        """Its rows, read now (see :func:`iter_csv`)."""
        return iter_csv(self, problems)


def decode(raw: bytes, display: str) -> tuple[str | None, Problem | None]:
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        return None, not_utf8(display, raw.count(b"\n", 0, error.start) + 1, error.start)


def not_utf8(display: str, line: int, start: int) -> Problem:
    return Problem(
        display,
        line,
        "-",
        Message(
            f"文件不是 UTF-8 编码（第 {start + 1} 字节无法解码）；请在 Excel 中另存为“CSV UTF-8”",
            f"the file is not UTF-8 (byte {start + 1} cannot be decoded); save it as CSV UTF-8",
        ),
    )


def open_text(path: Path) -> io.TextIOWrapper:
    """The file as UTF-8 text (a BOM skipped), lines untranslated as ``csv`` wants them."""
    return io.TextIOWrapper(path.open("rb"), encoding="utf-8-sig", newline="")


def decode_problem(path: Path) -> Problem:
    """Where a file stops being UTF-8, as :func:`decode` reports it, found reading a megabyte
    at a time (the error path of a streamed file: the whole file is never held)."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    offset = newlines = 0
    bom = 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            if offset == 0 and chunk.startswith(codecs.BOM_UTF8):
                bom = len(codecs.BOM_UTF8)  # decode counts bytes after the BOM
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                # ``error.object`` is the bytes held back from the last chunk (part of one
                # character, never a newline) followed by this chunk; the first chunk's offsets
                # already leave the BOM out
                pending = len(error.object) - len(chunk)
                start = error.start if offset == 0 else offset - bom - pending + error.start
                return not_utf8(str(path), newlines + error.object.count(b"\n", 0, error.start) + 1, start)
            offset += len(chunk)
            newlines += chunk.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:  # the file ends inside a character
        return not_utf8(str(path), newlines + 1, offset - bom - len(error.object) + error.start)
    raise AssertionError(f"{path} decoded as UTF-8 after all")


def check_csv(path: Path, game: GameModule, problems: list[Problem]) -> CsvFile | None:
    """Check a card CSV's header: the file (its rows read later) when it is clean, else None and
    every problem of the header in ``problems``."""
    display = str(path)
    try:
        with open_text(path) as handle:
            reader = csv.reader(handle)
            try:
                header = next(reader)
            except StopIteration:
                problems.append(Problem(display, 1, "-", Message("文件为空，缺少表头行", "empty file: no header row")))
                return None
            except csv.Error as error:
                problems.append(Problem(display, 1, "-", Message(f"CSV 格式错误：{error}", f"CSV error: {error}")))
                return None
    except UnicodeDecodeError:
        problems.append(decode_problem(path))
        return None
    columns = [c.strip().lower() for c in header]
    known = set(game.columns)
    header_ok = True
    for column in COMMON_REQUIRED:
        if column not in columns:
            problems.append(
                Problem(display, 1, column, Message(f"缺少必需的列「{column}」", f"missing required column {column!r}"))
            )
            header_ok = False
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            problems.append(Problem(display, 1, column, Message(f"列「{column}」重复", f"column {column!r} twice")))
            header_ok = False
        seen.add(column)
        if column and column not in known:
            problems.append(
                Problem(
                    display,
                    1,
                    column,
                    Message(
                        f"未知的列「{column}」，{game.name}可用的列：{', '.join(game.columns)}",
                        f"unknown column {column!r}; columns for {game.slug}: {', '.join(game.columns)}",
                    ),
                )
            )
            header_ok = False
    return CsvFile(path, tuple(columns)) if header_ok else None


def iter_csv(csv_file: CsvFile, problems: list[Problem]) -> Iterator[Row]:
    display = csv_file.display
    columns = csv_file.columns
    with open_text(csv_file.path) as handle:
        reader = csv.reader(handle)
        try:
            next(reader)  # the header, checked by check_csv
            previous_end = reader.line_num
            for cells in reader:
                line = previous_end + 1
                previous_end = reader.line_num
                if not any(c.strip() for c in cells):
                    continue
                if len(cells) > len(columns):
                    problems.append(
                        Problem(
                            display,
                            line,
                            "-",
                            Message(
                                f"这一行有 {len(cells)} 个字段，比表头多（{len(columns)} 列）；含逗号的字段要加引号",
                                f"{len(cells)} fields but {len(columns)} columns; quote fields that contain commas",
                            ),
                        )
                    )
                    continue
                if len(cells) == len(columns):
                    yield Row(display, line, dict(zip(columns, cells, strict=True)))
                else:  # a short row: the missing cells are empty
                    yield Row(
                        display, line, {column: cells[i] if i < len(cells) else "" for i, column in enumerate(columns)}
                    )
        except csv.Error as error:
            problems.append(
                Problem(display, reader.line_num, "-", Message(f"CSV 格式错误：{error}", f"CSV error: {error}"))
            )
        except UnicodeDecodeError:
            problems.append(decode_problem(csv_file.path))
        except StopIteration:
            return

"""What the ``lunzang event`` commands share: the time, a writer session, and the files they read
(UTF-8 text of at most a megabyte, CSV with named columns, each refusal naming its line)."""

from __future__ import annotations

import csv
import io
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session

from catalog import db as catalog_db
from catalog.errors import Message
from catalog.events.registration import EventError
from catalog.numbers import BadNumber, parse_int
from webapp.db import get_engine

MAX_FILE = 1_000_000


def now() -> datetime:
    return datetime.now(UTC)


def writer_session() -> Session:
    return Session(catalog_db.writer(get_engine()))


def read_text(path: str) -> str:
    try:
        raw = sys.stdin.buffer.read(MAX_FILE + 1) if path == "-" else Path(path).read_bytes()[: MAX_FILE + 1]
    except OSError as error:
        raise EventError(Message(f"无法读取文件 {path}：{error.strerror or error}", f"cannot read {path}")) from error
    if len(raw) > MAX_FILE:
        raise EventError(Message(f"文件 {path} 太大（上限 1 MB）", f"{path} is too large (1 MB)"))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise EventError(Message(f"文件 {path} 不是 UTF-8 文本", f"{path} is not UTF-8")) from error
    if "\x00" in text:  # no text column takes it (PostgreSQL refuses NUL)
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise EventError(Message(f"文件 {path} 第 {line} 行含有 NUL 字符", f"{path} line {line} holds a NUL byte"))
    return text


def csv_rows(text: str, columns: tuple[str, ...]) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        return read_rows(reader, columns)
    except csv.Error as error:  # a field over the csv module's limit
        line = reader.reader.line_num  # the DictReader's own count lags a row behind
        raise EventError(Message(f"第 {line} 行无法读取：{error}", f"line {line} cannot be read: {error}")) from error


def read_rows(reader: csv.DictReader[str], columns: tuple[str, ...]) -> list[dict[str, str]]:
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in columns if c not in header]
    if missing:
        raise EventError(
            Message(f"CSV 缺少列：{', '.join(missing)}（需要 {','.join(columns)}）", f"missing columns: {missing}")
        )
    rows = []
    for row in reader:
        rows.append({(k or "").strip(): (v or "").strip() for k, v in row.items()})
        if len(rows) > 5000:
            raise EventError(Message("CSV 行数太多（上限 5000）", "too many rows (5,000)"))
    return rows


def cell_int(value: str, what: str, line: int) -> int:
    """A number of a CSV cell (:func:`catalog.numbers.parse_int`), refused with its line."""
    try:
        return parse_int(value, field=what)
    except BadNumber as error:
        raise EventError(Message(f"第 {line} 行：{error.message.zh}", f"line {line}: {error.message.en}")) from error

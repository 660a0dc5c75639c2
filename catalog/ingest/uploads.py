"""A catalogue uploaded from the browser: a zip of a game folder (manifest.toml +
cards/*.csv, the import format) or a spreadsheet (CSV or XLSX) of card rows in the import
format for sets the catalogue holds. Unpacked and read here without trusting the bytes: zip
entries outside the folder, links, too many files or too many bytes are refused before anything
is written; an XLSX is read for its values (never a formula)."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path, PurePosixPath

from catalog.errors import LunzangError, Message

MAX_UPLOAD = 50 * 1024 * 1024
MAX_UNPACKED = 200 * 1024 * 1024
MAX_FILES = 2000
KEPT_SUFFIXES = (".toml", ".csv", ".json")
MAX_ROWS = 200_000


class UploadRefused(LunzangError):
    code = "bad_upload"


def _refuse(zh: str, en: str) -> UploadRefused:
    return UploadRefused(Message(zh, en))


def nothing_sent() -> UploadRefused:
    return _refuse("请选择要上传的文件", "choose a file to upload")


def no_game() -> UploadRefused:
    return _refuse("表格上传需要选择游戏", "a spreadsheet upload needs its game")


def kind_of(filename: str) -> str:
    """``zip`` or ``rows`` (a spreadsheet), from the name the browser sent; refused otherwise."""
    suffix = PurePosixPath(filename.lower()).suffix
    if suffix == ".zip":
        return "zip"
    if suffix in (".csv", ".xlsx"):
        return "rows"
    raise _refuse(
        "请上传 .zip（游戏目录）、.csv 或 .xlsx（导入格式的卡牌表）",
        "upload a .zip (a game folder), a .csv or an .xlsx (card rows in the import format)",
    )


def unpack_zip(data: bytes, into: Path) -> Path:
    """Unpack a zipped game folder into ``into``; the folder holding its manifest.toml."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, OSError) as error:
        raise _refuse("不是有效的 zip 文件", "not a valid zip file") from error
    if len(entries) > MAX_FILES or sum(e.file_size for e in entries) > MAX_UNPACKED:
        raise _refuse(
            f"zip 太大：最多 {MAX_FILES} 个文件、解压后 {MAX_UNPACKED // 2**20} MB",
            f"the zip is too big: at most {MAX_FILES} files, {MAX_UNPACKED // 2**20} MB unpacked",
        )
    manifests = []
    for entry in entries:
        name = PurePosixPath(entry.filename)
        if entry.is_dir() or name.suffix.lower() not in KEPT_SUFFIXES or name.name.startswith("."):
            continue  # only what the import format holds is unpacked (no links, no other files)
        if name.is_absolute() or ".." in name.parts or "\\" in entry.filename:
            raise _refuse(f"zip 中的路径不安全：{entry.filename}", f"unsafe path in the zip: {entry.filename}")
        target = into.joinpath(*name.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(entry) as source:
            target.write_bytes(source.read(MAX_UNPACKED + 1))
        if name.name == "manifest.toml":
            manifests.append(target.parent)
    if len(manifests) != 1:
        raise _refuse(
            "zip 中应恰好有一个 manifest.toml（一个游戏目录）",
            "the zip must hold exactly one manifest.toml (one game folder)",
        )
    return manifests[0]


def read_rows(data: bytes, filename: str) -> list[dict[str, str]]:
    """The rows of a CSV (UTF-8, a BOM accepted) or XLSX (first sheet) with a header row."""
    if filename.lower().endswith(".xlsx"):
        table = _xlsx(data)
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise _refuse("CSV 应为 UTF-8 编码", "the CSV must be UTF-8") from error
        table = list(csv.reader(io.StringIO(text)))
    if not table or not any(cell.strip() for cell in table[0]):
        raise _refuse("表格没有表头行", "the sheet has no header row")
    header = [cell.strip() for cell in table[0]]
    rows = [
        dict(zip(header, (c.strip() for c in row), strict=False)) for row in table[1:] if any(c.strip() for c in row)
    ]
    if len(rows) > MAX_ROWS:
        raise _refuse(f"表格最多 {MAX_ROWS} 行", f"at most {MAX_ROWS} rows")
    return [{column: row.get(column, "") for column in header if column} for row in rows]


def _xlsx(data: bytes) -> list[list[str]]:
    from openpyxl import load_workbook  # only a spreadsheet upload pays for it

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises many kinds for a file that is not a workbook
        raise _refuse("不是有效的 xlsx 文件", "not a valid xlsx file") from error
    try:
        sheet = book.worksheets[0]
        return [["" if v is None else str(v) for v in row] for row in sheet.iter_rows(values_only=True)]
    finally:
        book.close()

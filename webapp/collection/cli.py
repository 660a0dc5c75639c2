"""``lunzang collection import|export|undo``: a thin caller of :mod:`catalog.collection`.

Import prints a summary, or every problem as ``FILE:LINE: COLUMN: message`` and exits 2
with nothing written (the collection CSV contract).
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.accounts import find_user
from catalog.collection import (
    CollectionFileError,
    CollectionImportReport,
    export_collection,
    export_xlsx,
    import_collection,
)
from catalog.collection.csvio import MAX_BYTES, UnrecognisedHeader, parse_mapping
from catalog.collection.exports import EXPORTS
from catalog.collection.imports import MODES, undo_import
from catalog.collection.presets import FIELDS
from webapp.cli_numbers import ID
from webapp.cli_support import friendly
from webapp.db import get_engine
from webapp.shapes.collection import CsvProblem, ImportReport

PREVIEW_LINES = 30


@click.group("collection")
def collection() -> None:
    """收藏：导入、导出 CSV，撤销导入。"""


def _read(path: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_BYTES + 1)
        with Path(path).open("rb") as handle:
            return handle.read(MAX_BYTES + 1)  # enough to know it is too large
    except OSError as error:
        click.echo(f"错误：无法读取文件 {path}：{error.strerror or error}", err=True)
        sys.exit(2)


def _summary(report: CollectionImportReport) -> list[str]:
    prefix = "（试运行，未写入）" if report.dry_run else f"导入 #{report.import_id}："
    lines = [
        f"{prefix}方式 {report.mode}，读取 {report.rows} 行（合并相同的 {report.merged} 行）；"
        f"新增 {report.lines_added} 项，更改 {report.lines_changed} 项，移除 {report.lines_removed} 项；"
        f"卡牌 +{report.cards_added} / −{report.cards_removed} 张",
        f"  格式：{report.preset_label or report.preset}" + ("（按 --map 对应）" if report.mapped else ""),
    ]
    if report.ignored_columns:
        lines.append(f"  未使用的列（已忽略）：{'、'.join(report.ignored_columns)}")
    for change in report.changes[:PREVIEW_LINES]:
        grade = f"{change['condition']}/{change['language']}/{change['finish']}"
        trade = (
            f"，可交换 {change['for_trade_before']} → {change['for_trade_after']}"
            if change["for_trade_before"] != change["for_trade_after"]
            else ""
        )
        where = f"{change['set']} {change['number']} {change['name']}"
        lines.append(f"  {where} {grade}：{change['before']} → {change['after']}{trade}")
    hidden = report.lines_added + report.lines_changed + report.lines_removed - PREVIEW_LINES
    if hidden > 0:
        lines.append(f"  …… 另有 {hidden} 项改动")
    if not report.changed:
        lines.append("  收藏没有变化。")
    return lines


@collection.command("import")
@click.argument("username")
@click.argument("file")
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="add",
    show_default=True,
    help="add：加到现有收藏；replace：文件即收藏。",
)
@click.option("--dry-run", is_flag=True, help="只显示将要发生的改动，不写入。")
@click.option("--json", "as_json", is_flag=True, help="以 JSON 输出结果或错误。")
@click.option("--map", "mapping_text", default="", help='列的对应，如 "Card Number=number,Qty=quantity,Notes=ignore"。')
@click.option("--sheet", default=None, help="XLSX 的工作表名（默认第一张）。")
@with_appcontext
@friendly
def import_command(
    username: str, file: str, mode: str, dry_run: bool, as_json: bool, mapping_text: str, sheet: str | None
) -> None:
    """导入收藏 CSV 或 XLSX：我们的列，或 Deckbox、ManaBox、Moxfield、Archidekt、TCGplayer、Dragon Shield 的文件
    （按表头识别；不用的列忽略并列出）。

    全部正确才写入；错误以“文件:行: 列: 说明”逐条列出，退出码 2，数据库不变。表头无法识别时用 --map 指明各列。
    """
    mapping = parse_mapping(mapping_text) if mapping_text.strip() else None
    data = _read(file)
    with Session(catalog_db.writer(get_engine())) as session:
        transaction = session.begin()
        try:
            user = find_user(session=session, username=username)
            assert user.id is not None
            report = import_collection(
                session=session,
                user_id=user.id,
                data=data,
                filename=Path(file).name if file != "-" else "stdin",
                mode=mode,
                dry_run=dry_run,
                now=datetime.now(UTC),
                mapping=mapping,
                sheet=sheet,
            )
        except CollectionFileError as failure:
            transaction.rollback()
            if as_json:
                details = [CsvProblem.of(p).body() for p in failure.problems]
                error: dict[str, Any] = {
                    **failure.extra_json(),
                    "code": failure.code,
                    "message": failure.message.zh,
                    "details": details,
                }
                click.echo(json.dumps({"error": error}, ensure_ascii=False, indent=2))
            else:
                for problem in failure.problems:
                    click.echo(problem.located(file), err=True)
                if isinstance(failure, UnrecognisedHeader):
                    example = ",".join(f"{column}=…" for column in failure.header[:3])
                    click.echo(f'可用字段：{", ".join(FIELDS)}、ignore；例如 --map "{example}"', err=True)
                click.echo(f"导入失败：{len(failure.problems)} 个错误，收藏未作任何改动。", err=True)
            sys.exit(2)
        except BaseException:
            transaction.rollback()
            raise
        if dry_run:
            transaction.rollback()
        else:
            transaction.commit()
    if as_json:
        click.echo(json.dumps(ImportReport.of(report).body(), ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(_summary(report)))


@collection.command("export")
@click.argument("username")
@click.option("--preset", type=click.Choice(EXPORTS), default="lunzang", show_default=True, help="列的格式。")
@click.option("--out", "out", default=None, help="写入文件（xlsx 必须给出）；默认输出到标准输出。")
@with_appcontext
@friendly
def export_command(username: str, preset: str, out: str | None) -> None:
    """把收藏导出为 CSV（我们的列、Deckbox、ManaBox、Moxfield）或 XLSX；用 replace 方式再导入不会有任何改动。"""
    if preset == "xlsx" and not out:
        click.echo("错误：XLSX 请用 --out FILE.xlsx 指定输出文件", err=True)
        sys.exit(2)
    with Session(get_engine()) as session:
        user = find_user(session=session, username=username)
        assert user.id is not None
        if preset == "xlsx":
            data = export_xlsx(session=session, user_id=user.id)
        else:
            data = export_collection(session=session, user_id=user.id, preset=preset).encode("utf-8")
    if out is None:
        click.echo(data.decode("utf-8"), nl=False)
        return
    try:
        Path(out).write_bytes(data)
    except OSError as error:
        click.echo(f"错误：无法写入 {out}：{error.strerror or error}", err=True)
        sys.exit(2)
    click.echo(f"已写入 {out}")


@collection.command("undo")
@click.argument("username")
@click.argument("import_id", type=ID)
@with_appcontext
@friendly
def undo_command(username: str, import_id: int) -> None:
    """撤销一次导入：反向写入它的每一条流水（原因 undo）。"""
    with catalog_db.transaction(get_engine(), write=True) as session:
        user = find_user(session=session, username=username)
        assert user.id is not None
        changes = undo_import(session=session, user_id=user.id, import_id=import_id, now=datetime.now(UTC))
    click.echo(f"已撤销导入 #{import_id}：{len(changes)} 项改动已还原。")

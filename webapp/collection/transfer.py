"""CSV import (preview, then confirm), the import list with undo, the history, the export.

Between the preview and the confirmation the uploaded file travels in the confirmation form
itself: zlib-compressed, base64, in a hidden field (``payload``). Nothing is kept on the
server (several app servers behind a load balancer need no shared storage, DESIGN §9) nor
in the cookie session. The confirmation re-reads and re-checks the whole file, so a tampered
payload can only import what it says, into the sender's own collection, with every check. The
confirmation form is URL-encoded (not multipart), so Flask's 500 kB limit on multipart text
fields does not apply; the request size cap (``MAX_CONTENT_LENGTH``) does.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from functools import partial
from typing import Any

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.collection import reads
from catalog.collection.csvio import MAX_BYTES, PRESETS, CollectionFileError, UnrecognisedHeader
from catalog.collection.exports import export_collection, export_xlsx
from catalog.collection.imports import MODES, PREVIEW_LIMIT, import_collection, undo_import
from catalog.collection.mappings import clean_mapping, remember_mapping, remembered_mapping
from catalog.collection.presets import FIELDS, IGNORE, header_key
from catalog.errors import LunzangError, Message
from webapp.collection import bp
from webapp.db import get_session
from webapp.helpers import localized, utcnow
from webapp.refusal import flash_back, on_refusal

PREVIEW_ROWS = 50  # changes listed on the preview page


def field_labels() -> list[tuple[str, str]]:
    """The mapping step's choices: (field, its name for people)."""
    return [
        ("set", _("系列代码")),
        ("set_name", _("系列名称")),
        ("number", _("编号")),
        ("name", _("卡名")),
        ("quantity", _("数量")),
        ("for_trade", _("可交换数量")),
        ("condition", _("品相")),
        ("language", _("语言")),
        ("finish", _("工艺")),
        ("game", _("游戏")),
        ("binder", _("卡册（名为 Trade 的为可交换）")),
    ]


HISTORY_PER_PAGE = 100


def pack(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data, 6)).decode("ascii")


def unpack(payload: str) -> bytes:
    """The file of a confirmation form; :class:`LunzangError` if the field was damaged."""
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(base64.b64decode(payload.encode("ascii"), validate=True), MAX_BYTES + 1)
    except (binascii.Error, zlib.error, UnicodeEncodeError, ValueError):
        data = b""
    if not data:
        raise LunzangError(
            Message("确认表单中的文件数据已损坏：请重新上传", "the file data of the form is damaged: upload again")
        )
    return data


def _mode() -> str:
    mode = request.form.get("mode", "add")
    return mode if mode in MODES else "add"


def _posted_mapping() -> dict[str, str] | None:
    """The mapping the form carries: the mapping step's selects (``col-N`` for the header's
    column N, the header in ``columns``), or the JSON a preview hands on to its confirmation."""
    try:
        if request.form.get("step") == "map":
            columns = json.loads(request.form.get("columns", "[]"))
            if not isinstance(columns, list):
                return None
            return clean_mapping(
                [str(c) for c in columns],
                {header_key(str(c)): request.form.get(f"col-{i}", IGNORE) for i, c in enumerate(columns)},
            )
        raw = json.loads(request.form.get("mapping", "") or "null")
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    return {str(k): str(v) for k, v in raw.items() if str(v) in (*FIELDS, IGNORE)}


def _page(mode: str, **context: Any) -> str:
    return render_template("collection/import.html", mode=mode, fields=field_labels(), **context)


def _refused_import(mode: str, error: LunzangError) -> Any:
    """The import page again with why the file was refused (nothing of it is written)."""
    if isinstance(error, CollectionFileError):
        page = _page(mode, report=None, summary=localized(error), problems=error.listed, more_problems=error.more)
        return page, 422
    return _page(mode, report=None, summary=localized(error)), 400


@bp.route("/import", methods=["GET", "POST"])
@login_required
def import_file() -> Any:
    if request.method == "GET":
        return _page("add", report=None)
    mode = _mode()
    confirming = bool(request.form.get("confirm"))
    filename = request.form.get("filename", "")[:255]
    sheet = request.form.get("sheet", "").strip()[:100] or None
    mapping = _posted_mapping()
    remembered = False
    session = get_session()

    def run(with_mapping: dict[str, str] | None) -> Any:
        return import_collection(
            session=session,
            user_id=current_user.id,
            data=data,
            filename=filename,
            mode=mode,
            dry_run=not confirming,
            now=utcnow(),
            mapping=with_mapping,
            sheet=sheet,
        )

    on_refusal(partial(_refused_import, mode))
    if request.form.get("payload"):
        data = unpack(request.form.get("payload", ""))
    else:
        upload = request.files.get("file")
        if upload is None or not upload.filename:
            raise LunzangError(Message("请选择要导入的 CSV 或 XLSX 文件", "choose a CSV or XLSX file to import"))
        filename = upload.filename[:255]
        data = upload.stream.read(MAX_BYTES + 1)
    try:
        report = run(mapping)
    except UnrecognisedHeader as unknown:
        found = remembered_mapping(session=session, user_id=current_user.id, header=unknown.header)
        if mapping is not None or found is None:
            # the mapping step: each column → a field or "ignore", with the first rows
            return _page(
                mode,
                report=None,
                header=unknown.header,
                sample=unknown.sample,
                payload=pack(data),
                filename=filename,
                sheet=sheet or "",
            )
        mapping, remembered = found, True
        report = run(mapping)
    if confirming:
        if mapping and report.header:
            remember_mapping(
                session=session, user_id=current_user.id, header=report.header, mapping=mapping, now=utcnow()
            )
        flash(
            _(
                "已导入 #%(id)d：新增 %(added)d 项，更改 %(changed)d 项，移除 %(removed)d 项",
                id=report.import_id or 0,
                added=report.lines_added,
                changed=report.lines_changed,
                removed=report.lines_removed,
            )
        )
        target: dict[str, Any] = {"import": report.import_id}
        return redirect(url_for("collection.history", **target), code=303)
    return _page(
        mode,
        report=report,
        preview=report.changes[:PREVIEW_ROWS],
        preview_limit=PREVIEW_LIMIT,
        payload=pack(data),
        filename=filename,
        sheet=sheet or "",
        mapping=json.dumps(mapping, ensure_ascii=False) if mapping else "",
        remembered=remembered,
    )


@bp.get("/imports")
@login_required
def imports() -> Any:
    found = reads.list_imports(session=get_session(), user_id=current_user.id)
    return render_template("collection/imports.html", imports=found)


@bp.get("/imports/<int:import_id>/undo")
@login_required
def confirm_undo(import_id: int) -> Any:
    """The question before an undo (a page of its own, so it works without JS)."""
    record = next(
        (r for r in reads.list_imports(session=get_session(), user_id=current_user.id) if r.id == import_id), None
    )
    if record is None:
        abort(404, _("没有编号为 %(id)d 的导入", id=import_id))
    return render_template("collection/undo.html", record=record)


@bp.post("/imports/<int:import_id>/undo")
@login_required
def undo(import_id: int) -> Any:
    if request.form.get("confirm") != "1":  # an undo is asked first (GET: the question)
        return redirect(url_for("collection.confirm_undo", import_id=import_id), code=303)
    on_refusal(flash_back(url_for("collection.imports")))
    changes = undo_import(session=get_session(), user_id=current_user.id, import_id=import_id, now=utcnow())
    flash(_("已撤销导入 #%(id)d（%(items)d 项恢复原状）", id=import_id, items=len(changes)))
    return redirect(url_for("collection.imports"), code=303)


def _arg_id(name: str) -> int | None:
    raw = request.args.get(name, "")
    return int(raw) if raw.isdigit() and len(raw) < 12 else None


@bp.get("/history")
@login_required
def history() -> Any:
    printing_id, import_id = _arg_id("printing"), _arg_id("import")
    raw_page = request.args.get("page", "")
    page = int(raw_page) if raw_page.isdigit() and 1 <= int(raw_page) <= 100_000 else 1
    rows = reads.history(
        session=get_session(),
        user_id=current_user.id,
        printing_id=printing_id,
        import_id=import_id,
        limit=HISTORY_PER_PAGE + 1,
        offset=(page - 1) * HISTORY_PER_PAGE,
    )
    has_next = len(rows) > HISTORY_PER_PAGE

    def link(number: int) -> str:
        params: dict[str, Any] = {"printing": printing_id, "import": import_id, "page": number if number > 1 else None}
        return url_for("collection.history", **{k: v for k, v in params.items() if v})

    return render_template(
        "collection/history.html",
        rows=rows[:HISTORY_PER_PAGE],
        page=page,
        has_next=has_next,
        link=link,
        printing_id=printing_id,
        import_id=import_id,
    )


@bp.get("/export.csv")
@login_required
def export() -> Any:
    preset = request.args.get("preset", "lunzang")
    if preset not in PRESETS:
        message = _("未知的导出格式「%(preset)s」，可用：%(known)s", preset=preset, known="、".join(PRESETS))
        return render_template("error.html", title=_("无法导出"), message=message), 400
    text = export_collection(session=get_session(), user_id=current_user.id, preset=preset)
    filename = "lunzang-collection.csv" if preset == "lunzang" else f"lunzang-collection-{preset}.csv"
    # With a BOM, as Excel wants for UTF-8; the importer accepts it.
    response = Response("\ufeff" + text, mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.get("/export.xlsx")
@login_required
def export_workbook() -> Any:
    """Our columns as an XLSX workbook (text cells are text: no formula runs)."""
    data = export_xlsx(session=get_session(), user_id=current_user.id)
    response = Response(data, mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    response.headers["Content-Disposition"] = 'attachment; filename="lunzang-collection.xlsx"'
    return response

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
import zlib
from typing import Any

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.collection import views
from catalog.collection.csvio import MAX_BYTES, PRESETS, CollectionFileError, export_collection
from catalog.collection.imports import MODES, PREVIEW_LIMIT, import_collection, undo_import
from catalog.errors import LunzangError, Message
from webapp.collection import bp
from webapp.db import get_session
from webapp.helpers import localized, utcnow

PREVIEW_ROWS = 50  # changes listed on the preview page
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


@bp.route("/import", methods=["GET", "POST"])
@login_required
def import_file() -> Any:
    if request.method == "GET":
        return render_template("collection/import.html", mode="add", report=None)
    mode = _mode()
    confirming = bool(request.form.get("confirm"))
    filename = request.form.get("filename", "")[:255]
    try:
        if confirming:
            data = unpack(request.form.get("payload", ""))
        else:
            upload = request.files.get("file")
            if upload is None or not upload.filename:
                raise LunzangError(Message("请选择要导入的 CSV 文件", "choose a CSV file to import"))
            filename = upload.filename[:255]
            data = upload.stream.read(MAX_BYTES + 1)
        report = import_collection(
            session=get_session(),
            user_id=current_user.id,
            data=data,
            filename=filename,
            mode=mode,
            dry_run=not confirming,
            now=utcnow(),
        )
    except CollectionFileError as error:
        get_session().rollback()
        page = render_template(
            "collection/import.html",
            mode=mode,
            report=None,
            summary=localized(error),
            problems=error.listed,
            more_problems=error.more,
        )
        return page, 422
    except LunzangError as error:
        get_session().rollback()
        return render_template("collection/import.html", mode=mode, report=None, summary=localized(error)), 400
    if confirming:
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
    return render_template(
        "collection/import.html",
        mode=mode,
        report=report,
        preview=report.changes[:PREVIEW_ROWS],
        preview_limit=PREVIEW_LIMIT,
        payload=pack(data),
        filename=filename,
    )


@bp.get("/imports")
@login_required
def imports() -> Any:
    found = views.list_imports(session=get_session(), user_id=current_user.id)
    return render_template("collection/imports.html", imports=found)


@bp.get("/imports/<int:import_id>/undo")
@login_required
def confirm_undo(import_id: int) -> Any:
    """The question before an undo (a page of its own, so it works without JS)."""
    record = next(
        (r for r in views.list_imports(session=get_session(), user_id=current_user.id) if r.id == import_id), None
    )
    if record is None:
        abort(404, _("没有编号为 %(id)d 的导入", id=import_id))
    return render_template("collection/undo.html", record=record)


@bp.post("/imports/<int:import_id>/undo")
@login_required
def undo(import_id: int) -> Any:
    if request.form.get("confirm") != "1":  # an undo is asked first (GET: the question)
        return redirect(url_for("collection.confirm_undo", import_id=import_id), code=303)
    try:
        changes = undo_import(session=get_session(), user_id=current_user.id, import_id=import_id, now=utcnow())
    except LunzangError as error:
        get_session().rollback()
        flash(localized(error), "error")
        return redirect(url_for("collection.imports"), code=303)
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
    rows = views.history(
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

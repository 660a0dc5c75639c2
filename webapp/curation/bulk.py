"""Thin views of the bulk upload (catalog.curation.bulk on catalog.jobs): a curator uploads a
zipped game folder or a spreadsheet, a background job runs the dry run, the page shows its
progress bar (it refreshes itself, no JavaScript needed) and then the report the CLI prints;
confirming runs the import as a second job. Only curators and admins."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.errors import LunzangError
from catalog.games import GAMES
from catalog.ingest import uploads
from catalog.jobs import JobQueue, create_job
from catalog.models import BackgroundJob
from webapp.curation import bp
from webapp.curation.routes import _message, _require_curator
from webapp.db import get_engine, get_session
from webapp.helpers import utcnow


def _queue() -> JobQueue:
    url = get_engine().url.render_as_string(hide_password=False)
    return JobQueue(current_app.config.get("JOB_QUEUE_URL"), url)


def _uploads() -> Path:
    configured = current_app.config.get("UPLOAD_DIR")
    return Path(configured) if configured else Path(current_app.instance_path) / "uploads"


def _start(kind: str, params: dict[str, Any]) -> Any:
    session = get_session()
    job = create_job(session=session, kind=kind, user_id=current_user.id, params=params, now=utcnow())
    job_id = job.id
    assert job_id is not None  # flushed
    session.commit()  # the worker reads the job row: it must be there before it is enqueued
    _queue().enqueue(job_id)
    return redirect(url_for("curation.bulk_job", job_id=job_id))


@bp.get("/bulk")
@login_required
def bulk() -> Any:
    _require_curator()
    return _form()


def _form(status: int = 200) -> Any:
    limit = current_app.config["MAX_CONTENT_LENGTH"] // 2**20
    return render_template("curation/bulk.html", games=sorted(GAMES), max_mb=limit), status


@bp.post("/bulk")
@login_required
def bulk_upload() -> Any:
    _require_curator()
    upload = request.files.get("catalogue")
    game = request.form.get("game", "")
    try:
        if upload is None or not upload.filename:
            raise uploads.nothing_sent()
        mode = uploads.kind_of(upload.filename)
        data = upload.stream.read(uploads.MAX_UPLOAD + 1)
        folder = _uploads() / uuid.uuid4().hex
        folder.mkdir(parents=True)
        name = Path(upload.filename).name[:120]
        if mode == "zip":
            path = uploads.unpack_zip(data, folder)
        else:
            if game not in GAMES:
                raise uploads.no_game()
            uploads.read_rows(data, name)  # a sheet that cannot be read is refused now, not in the job
            path = folder / ("sheet.xlsx" if name.lower().endswith(".xlsx") else "sheet.csv")
            path.write_bytes(data)
    except LunzangError as error:
        flash(_message(error), "error")
        return _form(400)
    params = {"mode": mode, "path": str(path), "folder": str(folder), "filename": name, "game": game}
    params["user_id"] = current_user.id
    return _start("catalogue_check", params)


def _job_or_404(job_id: int) -> BackgroundJob:
    job = get_session().get(BackgroundJob, job_id)
    if job is None or job.kind not in ("catalogue_check", "catalogue_import"):
        abort(404, _("没有这个任务"))
    return job


@bp.get("/bulk/<int:job_id>")
@login_required
def bulk_job(job_id: int) -> Any:
    _require_curator()
    job = _job_or_404(job_id)
    progress = _queue().progress(job_id) if job.status in ("queued", "running") else None
    return render_template("curation/bulk_job.html", job=job, progress=progress)


@bp.post("/bulk/<int:job_id>/confirm")
@login_required
def bulk_confirm(job_id: int) -> Any:
    _require_curator()
    job = _job_or_404(job_id)
    if job.kind != "catalogue_check" or job.status != "done" or job.params.get("confirmed"):
        flash(_("只能确认一次已完成的试运行。"), "error")
        return redirect(url_for("curation.bulk_job", job_id=job_id))
    if request.form.get("confirm") != "1":
        flash(_("请勾选“确认导入”后再提交。"), "error")
        return redirect(url_for("curation.bulk_job", job_id=job_id))
    job.params = {**job.params, "confirmed": True}
    params = {**job.params, "user_id": current_user.id, "checked_by_job": job_id}
    return _start("catalogue_import", params)

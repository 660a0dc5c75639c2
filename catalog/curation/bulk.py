"""Bulk catalogue uploads from the browser, as background jobs (catalog.jobs):
``catalogue_check`` runs the import and rolls it back (the CLI's ``--dry-run``, the same report
lines), ``catalogue_import`` runs it for good, recorded as an ``import`` revision (who, when,
the report). A zip is a game folder imported by :func:`catalog.ingest.import_catalogue`; a
spreadsheet is rows for sets the catalogue holds, by :func:`catalog.ingest.import_rows` — the
same checks either way."""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from catalog.ingest import import_catalogue, import_rows
from catalog.ingest.report import report_lines
from catalog.ingest.uploads import read_rows
from catalog.jobs import Progress, register
from catalog.models import CatalogueRevision, Game


def _run(session: Session, params: dict[str, Any], progress: Progress, *, dry_run: bool) -> dict[str, Any]:
    started = time.perf_counter()
    path = Path(params["path"])
    if params["mode"] == "zip":
        report = import_catalogue(session=session, paths=[path], progress=progress)
    else:
        rows = read_rows(path.read_bytes(), path.name)
        progress("检查", 0, len(rows))
        report = import_rows(session=session, game=params["game"], rows=rows, label=params["filename"])
        progress("写入", len(rows), len(rows))
    lines = report_lines(report, dry_run=dry_run, seconds=time.perf_counter() - started)
    return {"lines": lines, "changed": report.changed, "games": report.games}


@register("catalogue_check")
def check(session: Session, params: dict[str, Any], progress: Progress) -> tuple[dict[str, Any], bool]:
    return _run(session, params, progress, dry_run=True), False


@register("catalogue_import")
def apply(session: Session, params: dict[str, Any], progress: Progress) -> tuple[dict[str, Any], bool]:
    result = _run(session, params, progress, dry_run=False)
    discard_upload(params)  # read whole above: the upload's files are done with
    game = session.exec(select(Game).where(Game.slug == (result["games"] or [""])[0])).first()
    if game is not None and game.id is not None:
        session.add(
            CatalogueRevision(
                game_id=game.id,
                kind="import",
                target_id=int(params["job_id"]),
                label=str(params["filename"])[:200],
                user_id=params.get("user_id"),
                created_at=datetime.now(UTC),
                note=f"批量导入 {params['filename']}"[:500],
                changes={"report": ["", "\n".join(result["lines"])]},
            )
        )
        session.flush()
    return result, True


def discard_upload(params: dict[str, Any]) -> None:
    """Remove an upload's folder once it is imported (or given up)."""
    folder = params.get("folder")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)

"""Open data downloads (catalog.ingest.opendata): per game the import-format zip and the JSON bulk
file, built once per catalogue version into ``OPENDATA_DIR`` (default ``instance/opendata/``); a
download only reads the database. The page lists them with the licence and the contributors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Response, abort, current_app, render_template, request
from flask_babel import gettext as _

from catalog.errors import LunzangError
from catalog.ingest import opendata
from webapp.curation import bp
from webapp.db import get_session


def _cache() -> Path:
    configured = current_app.config.get("OPENDATA_DIR")
    return Path(configured) if configured else Path(current_app.instance_path) / "opendata"


@bp.get("/data")
def data_page() -> Any:
    session = get_session()
    listed = opendata.games(session)
    people = {game.slug: opendata.contributors(session, game.id) for game in listed}
    return render_template("curation/data.html", games=listed, people=people, licence=opendata.LICENCE)


@bp.get("/data/<slug>.<kind>")
def data_file(slug: str, kind: str) -> Any:
    if kind not in opendata.KINDS:
        abort(404, _("没有这种文件：%(kind)s", kind=kind[:20]))
    try:
        path, version = opendata.data_file(session=get_session(), slug=slug, kind=kind, cache=_cache())
    except LunzangError:
        abort(404, _("没有游戏「%(slug)s」的数据", slug=slug[:40]))
    if request.if_none_match.contains(version):
        return "", 304, {"ETag": f'"{version}"'}
    # read whole (a few hundred kB), so no file handle outlives the request
    response = Response(path.read_bytes(), mimetype="application/zip" if kind == "zip" else "application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="lunzang-{slug}-{version[:12]}.{kind}"'
    response.set_etag(version)
    response.cache_control.public = True
    response.cache_control.max_age = 300
    return response

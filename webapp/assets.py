"""Static files (``static/``: CSS, scripts, the icon) named by their content, kept by browsers.

Every ``url_for('static', …)`` carries ``?v=`` and the first 12 hex digits of the file's SHA-256,
and a request naming the version the file has now is answered with ``Cache-Control: public,
max-age=31536000, immutable``: a page load asks for its stylesheets and scripts once, not once
per page (five conditional requests per page before, each a round trip on a phone's network).
A changed file gets a new ``v``, so a page never meets a stale copy; a request without ``v``, or
with one that is not the file's (an old page still open after a deployment), is answered as
Flask answers by default (``no-cache``: kept but asked again), never kept for a year.

The digest of a file is computed once per process and per modification time of the file, so an
edited stylesheet under ``lunzang run`` is picked up on the next page.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from flask import Flask, Response, request

YEAR = 365 * 24 * 3600
_DIGESTS: dict[tuple[str, int], str] = {}


def init_app(app: Flask) -> None:
    folder = Path(app.static_folder or "").resolve()

    @app.url_defaults
    def version_static_files(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static" and "v" not in values:
            digest = version_of(folder, str(values.get("filename", "")))
            if digest:
                values["v"] = digest

    @app.after_request
    def keep_versioned_static_files(response: Response) -> Response:
        if request.endpoint == "static" and response.status_code in (200, 304):
            wanted = request.args.get("v")
            filename = (request.view_args or {}).get("filename")
            if wanted and filename and wanted == version_of(folder, str(filename)):
                response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        return response


def version_of(folder: Path, filename: str) -> str:
    """The first 12 hex digits of the file's SHA-256, or "" when ``filename`` names no file in
    ``folder`` (a resolved path; url_for then builds the plain address, the request answers 404)."""
    path = (folder / filename).resolve()
    if folder not in path.parents:
        return ""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return ""
    key = (str(path), stamp)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        _DIGESTS[key] = digest
    return digest

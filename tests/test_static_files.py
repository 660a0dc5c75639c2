"""Stylesheets and scripts are named by their content and kept by browsers (webapp/assets.py):
a page asks for them once, not once per page, and never meets a stale copy."""

from __future__ import annotations

import os
import re
from pathlib import Path

from webapp.assets import version_of

ROOT = Path(__file__).resolve().parent.parent
STATIC = (ROOT / "static").resolve()
YEAR = "public, max-age=31536000, immutable"


def _static_links(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def test_every_static_link_of_a_page_names_the_file_version(client) -> None:
    links = _static_links(client.get("/").get_data(as_text=True))
    assert any(link.startswith("/static/style.css?") for link in links)
    for link in links:
        path, _, query = link.partition("?v=")
        assert re.fullmatch(r"[0-9a-f]{12}", query), link
        assert query == version_of(STATIC, path.removeprefix("/static/"))


def test_a_versioned_file_is_kept_for_a_year_and_a_plain_or_stale_one_is_asked_again(client) -> None:
    link = next(link for link in _static_links(client.get("/").get_data(as_text=True)) if "style.css" in link)
    kept = client.get(link)
    assert kept.status_code == 200 and kept.headers["Cache-Control"] == YEAR
    for other in ("/static/style.css", "/static/style.css?v=000000000000"):
        answer = client.get(other)
        assert answer.status_code == 200
        assert "immutable" not in answer.headers.get("Cache-Control", ""), other
        assert "max-age=31536000" not in answer.headers.get("Cache-Control", ""), other


def test_a_missing_file_is_404_and_not_kept(client) -> None:
    answer = client.get("/static/nothing.css?v=000000000000")
    assert answer.status_code == 404
    assert "immutable" not in answer.headers.get("Cache-Control", "")


def test_the_version_follows_the_content_and_stays_inside_the_folder(tmp_path: Path) -> None:
    folder = (tmp_path / "static").resolve()
    folder.mkdir()
    sheet = folder / "a.css"
    sheet.write_text("body { color: black }")
    first = version_of(folder, "a.css")
    assert re.fullmatch(r"[0-9a-f]{12}", first) and version_of(folder, "a.css") == first
    sheet.write_text("body { color: navy }")
    stat = sheet.stat()
    os.utime(sheet, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert version_of(folder, "a.css") not in ("", first)
    (tmp_path / "secret.txt").write_text("x")
    assert version_of(folder, "../secret.txt") == ""
    assert version_of(folder, "missing.css") == ""

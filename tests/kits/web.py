"""Web helpers: translations compiled before a page is rendered, an app served over real HTTP, a
page fetched with its status checked, and readers of its markup (visible text, a section, table
rows, badges)."""

from __future__ import annotations

import html
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "webapp" / "translations"


def ensure_translations_compiled() -> None:
    """Compile each messages.po to its .mo when missing or older (``make setup`` does the same)."""
    for po in TRANSLATIONS.glob("*/LC_MESSAGES/messages.po"):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source)
        with mo.open("wb") as target:
            write_mo(target, catalog)


# How often a served app's loop looks whether it should stop (seconds): shutdown() waits for it,
# and at socketserver's default (0.5 s) every browser test's teardown waited ~0.4 s.
STOP_POLL = 0.02


@contextmanager
def served(app: Any, name: str = "lunzang-test-server") -> Iterator[str]:
    """``app`` served by werkzeug in a thread on 127.0.0.1 (LUNZANG_TEST_PORT, else a free port:
    a shared machine hands each engineer a range); yields its base address, stops on leaving."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", int(os.environ.get("LUNZANG_TEST_PORT", "0")), app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(STOP_POLL,), name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def page(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def visible_text(markup: str) -> str:
    """The page's text with tags removed and whitespace collapsed."""
    markup = re.sub(r"<(script|style)\b.*?</\1>", " ", markup, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


def section(markup: str, start: str, end: str | None = None) -> str:
    """The markup from the first ``start`` up to the next ``end`` (or the end of the page)."""
    begin = markup.index(start)
    stop = markup.find(end, begin + len(start)) if end else -1
    return markup[begin : stop if stop != -1 else len(markup)]


def rows(markup: str) -> list[str]:
    """The body rows of the first table in ``markup``."""
    body = section(markup, "<tbody>", "</tbody>")
    return re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)


def badges(markup: str) -> list[tuple[str, str]]:
    """Every rarity badge as (game, rarity code)."""
    return re.findall(r'class="rarity" data-game="([^"]+)" data-rarity="([^"]+)"', markup)


def card_url(game: str, name: str) -> str:
    return f"/cards/{game}/{quote(name)}"

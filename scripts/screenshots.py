"""Screenshots of every main page at a desktop (1366×900) and a phone (390×844) width.

``make screenshots`` (or ``.venv/bin/python scripts/screenshots.py [OUT]``) serves the sample
catalogue from a temporary SQLite database, signs in a user who owns a few cards, wants some and
has a saved deck, and writes ``OUT/<page>-<width>.png`` (default ``build/screenshots/``) plus a
``-en`` copy of a few pages in English. Debian's Chromium draws them; install ``fonts-noto-cjk``
so the Chinese shows as text, not boxes. A reviewer opens the folder and checks page by page.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, urlencode

from werkzeug.serving import WSGIRequestHandler

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}
PASSWORD = "correct horse battery"


def build_site(folder: Path):  # type: ignore[no-untyped-def]
    """The app over a fresh database: sample catalogue, user alice with cards, wants and a deck."""

    from catalog import db as catalog_db
    from catalog.accounts import create_user
    from catalog.collection.imports import import_collection
    from catalog.collection.saved_decks import save_deck
    from catalog.collection.wants import set_want
    from catalog.ingest import import_catalogue
    from catalog.lookup import find_card
    from webapp import create_app

    url = f"sqlite:///{folder / 'site.sqlite3'}"
    engine = catalog_db.make_engine(url)
    catalog_db.upgrade(engine)
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[ROOT / "import"])
    with catalog_db.transaction(engine) as session:
        user = create_user(session=session, username="alice", password=PASSWORD, now=now, hash_method="pbkdf2:sha256:1")
        session.flush()
        assert user.id is not None
        rows = ["set,number,quantity", "M4,M4-001,3", "M4,M4-002,1", "M4,M4-017,2", "S8,S8-001,4", "G2,G2-001,1"]
        import_collection(session=session, user_id=user.id, data="\n".join(rows).encode(), filename="mine.csv", now=now)
        for name, quantity in (("孙悟空", 2), ("小红帽·狼猎手", 3), ("龙人四灵·玄武圣尊", 1)):
            set_want(
                session=session,
                user_id=user.id,
                card_id=find_card(session=session, game="samsara", name=name).id,
                quantity=quantity,
                now=now,
            )
        deck_text = sample_deck(session)
        save_deck(
            session=session, user_id=user.id, game="samsara", name="样例卡组", text=deck_text, format_code="m8", now=now
        )
    engine.dispose()
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "screenshots", "TESTING": True, "WTF_CSRF_ENABLED": False})
    app.instance_path = str(folder / "instance")
    return app, deck_text


def sample_deck(session) -> str:  # type: ignore[no-untyped-def]
    """A legal 51-card 永恒之轮 list from S8, as the deck tests build it."""
    from catalog.decks.check import load_pool

    pool = load_pool(session, "samsara")
    picks = sorted(
        (
            c
            for c in pool.cards.values()
            if "S8" in c.set_codes
            and c.type != "法力石"
            and not c.keywords_of("restricted")
            and not c.keywords_of("extra_build")
        ),
        key=lambda c: c.name,
    )[:17]
    needed = sorted({a for c in picks for a in c.cost if a != "无"})
    main = "".join(f"3 {c.name}\n" for c in picks)
    extra = "".join(f"2 {a}之法力石\n" for a in needed)
    return f"名称: 样例\n主卡组:\n{main}额外卡组:\n{extra}"


def pages(deck_text: str) -> list[tuple[str, str, bool]]:
    """(file stem, path, signed in) for every main page."""
    deck = urlencode({"game": "samsara", "format": "m8", "list": deck_text})
    return [
        ("home", "/", False),
        ("home-signed-in", "/", True),
        ("sets", "/sets", False),
        ("game-sets", "/sets/samsara", False),
        ("set", "/sets/samsara/M4", False),
        ("set-grid", "/sets/samsara/M4?view=grid", False),
        ("card", "/cards/samsara/" + quote("孙悟空"), True),
        ("card-visitor", "/cards/samsara/" + quote("绝闪·龙皇降临"), False),
        ("card-zhutian", "/cards/zhutian/" + quote("二郎真君"), False),
        ("search", "/cards?q=" + quote("t:战魂 a:火"), True),
        ("search-table", "/cards?view=table&q=" + quote("t:战魂 a:火"), False),
        ("search-help", "/help/search", False),
        ("keywords", "/keywords/samsara", False),
        ("packs", "/packs/", False),
        ("packs-open-pack", "/packs/samsara/M4/open?packs=1&seed=42", False),
        ("packs-open-box", "/packs/samsara/M4/open?boxes=1&seed=42", False),
        ("packs-odds", "/packs/samsara/M4/odds", False),
        ("packs-complete", "/packs/samsara/M4/complete?seed=7", False),
        ("deck-check", "/decks?" + deck, True),
        ("deck-print", "/decks/print?" + deck, False),
        ("rules", "/rules/samsara", False),
        ("decks-mine", "/decks/mine", True),
        ("collection", "/collection", True),
        ("collection-sets", "/collection/sets", True),
        ("checklist", "/collection/sets/samsara/M4", True),
        ("collection-imports", "/collection/imports", True),
        ("collection-import", "/collection/import", True),
        ("wants", "/wants", True),
        ("haves", "/haves", True),
        ("account", "/account", True),
        ("login", "/login", False),
        ("register", "/register", False),
        ("error-404", "/cards/samsara/nosuchcard", False),
    ]


ENGLISH = {
    "home-signed-in",
    "set",
    "card",
    "card-visitor",
    "search",
    "search-table",
    "collection",
    "deck-check",
    "packs-open-pack",
}


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: object, **kwargs: object) -> None:
        pass


def main(out: Path, only: set[str]) -> int:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temp:
        app, deck_text = build_site(Path(temp))
        server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_port}"
        written = 0
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for label, (width, height) in WIDTHS.items():
                    for signed_in in (False, True):
                        context = browser.new_context(viewport={"width": width, "height": height})
                        page = context.new_page()
                        if signed_in:
                            page.goto(base + "/login")
                            page.fill("input[name=username]", "alice")
                            page.fill("input[name=password]", PASSWORD)
                            page.locator("main form button[type=submit]").first.click()
                            page.wait_for_load_state()
                        for stem, path, needs_user in pages(deck_text):
                            if needs_user != signed_in or (only and stem not in only):
                                continue
                            for lang in ("zh", "en") if stem in ENGLISH else ("zh",):
                                sep = "&" if "?" in path else "?"
                                page.goto(base + path + f"{sep}lang={lang}")
                                suffix = "-en" if lang == "en" else ""
                                page.screenshot(path=str(out / f"{stem}{suffix}-{label}.png"), full_page=True)
                                written += 1
                        page.goto(base + "/?lang=zh")
                        context.close()
                browser.close()
        finally:
            server.shutdown()
            thread.join(timeout=10)
    print(f"{written} screenshots in {out}")
    return 0


if __name__ == "__main__":
    # scripts/screenshots.py [OUT] [PAGE,PAGE…]: the second argument limits it to those pages.
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "screenshots"
    sys.exit(main(folder, set(sys.argv[2].split(",")) if len(sys.argv) > 2 else set()))

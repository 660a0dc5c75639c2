"""answers kept by catalogue version (webapp/answers.py), their HTTP validators, and
the statements a page may run.

Real SQLite file / PostgreSQL (the suite's DATABASE_URL), the Flask test client; the Redis
test runs against a real Redis (``LUNZANG_ANSWERS_REDIS``, default db 5 of the local one) and
is skipped when none answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import event, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.models import Game, Printing
from tests.kits.deploy import REDIS_URL, redis_answers
from tests.kits.ingest import ROWS, run_import, write_folder
from webapp.db import get_engine

SEARCH = "/cards?q=" + quote("t:战魂")
API_SEARCH = "/api/v1/cards?q=" + quote("t:战魂")
CARD = "/cards/samsara/" + quote("火龙")
KEPT = ["/", "/api/v1/sets", SEARCH, API_SEARCH, CARD, "/sets/samsara/T1", "/help/search", "/keywords"]


@pytest.fixture
def web(app, engine: Engine, tmp_path: Path):
    run_import(engine, write_folder(tmp_path / "v1"))
    return app.test_client()


@contextmanager
def statements(app) -> Iterator[list[str]]:
    """The SQL statements the app runs inside the block (transaction control left out)."""
    with app.app_context():
        engine = get_engine(app)
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.strip().upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


def _without_tokens(markup: str) -> str:
    return re.sub(r'name="csrf_token" value="[^"]*"', "", markup)


@pytest.mark.parametrize("url", KEPT)
def test_a_kept_answer_costs_one_statement_and_is_the_same(app, web, url: str) -> None:
    first = web.get(url)
    assert first.status_code == 200
    with statements(app) as seen:
        again = web.get(url)
    assert again.status_code == 200
    assert len(seen) == 1 and "catalogue_version" in seen[0]  # only the versions, no page work
    assert _without_tokens(again.get_data(as_text=True)) == _without_tokens(first.get_data(as_text=True))


@pytest.mark.parametrize(
    ("url", "limit"), [("/api/v1/sets", 1), (SEARCH, 3), (API_SEARCH, 3), ("/", 4), ("/sets", 2), (CARD, 4)]
)
def test_statements_per_page_without_the_cache(app, web, url: str, limit: int) -> None:
    """A page's own work is bounded whatever the catalogue holds (no per-game, per-row loop):
    counted with the cache off. The card page: the game, card and printings in one, the
    formats with their bans, the last change, the scans."""
    app.extensions["answers"] = None
    web.get(url)  # the first request of a process also loads what is kept per catalogue (pools)
    with statements(app) as seen:
        assert web.get(url).status_code == 200
    assert len(seen) <= limit, "\n".join(seen)


@pytest.mark.parametrize(("url", "limit"), [("/api/v1/sets", 2), (SEARCH, 3), (API_SEARCH, 3), (CARD, 4), ("/sets", 3)])
def test_statements_of_an_answer_not_kept_yet(app, web, url: str, limit: int) -> None:
    """An anonymous visitor asking for what is not kept (yet): the catalogue versions (the
    key) and the page's own work. What the versions name is reused, not read again: a search's
    games (and vocabularies), a card page's scans. The sets list is its own one and the key."""
    web.get(url)  # the first request of a catalogue version also reads what is kept by it
    app.extensions["answers"].clear()
    with statements(app) as seen:
        assert web.get(url).status_code == 200
    assert "catalogue_version" in seen[0]
    assert len(seen) <= limit, "\n".join(seen)


def test_an_import_changes_every_kept_answer(app, web, engine: Engine, tmp_path: Path) -> None:
    before = {url: web.get(url).get_data(as_text=True) for url in (CARD, SEARCH, API_SEARCH)}
    assert "进场时抽一张牌。" in before[CARD]
    changed = [row.replace("进场时抽一张牌。", "进场时抽两张牌。") for row in ROWS]
    run_import(engine, write_folder(tmp_path / "v2", rows=changed))
    for url in (CARD, SEARCH, API_SEARCH):
        now = web.get(url).get_data(as_text=True)
        assert now != before[url]
    assert "进场时抽两张牌。" in web.get(CARD).get_data(as_text=True)


def test_a_scan_upload_moves_the_catalogue_version(app, web, engine: Engine) -> None:
    from catalog.images import scans

    with Session(engine) as session:
        before = session.scalars(select(Game.catalogue_version)).one()
    with Session(engine) as session, session.begin():
        printing = session.scalars(select(Printing).where(Printing.number == "T1-001")).one()
        assert printing.id is not None
        scans.catalogue_changed(session, printing.id)
    with Session(engine) as session:
        assert session.scalars(select(Game.catalogue_version)).one() != before


def test_strong_etag_and_304_for_the_api(web) -> None:
    first = web.get("/api/v1/sets")
    etag = first.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")  # strong
    assert first.headers["Cache-Control"] == "public, no-cache"
    assert "Cookie" in first.headers["Vary"]
    again = web.get("/api/v1/sets", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    assert web.get("/api/v1/sets", headers={"If-None-Match": '"other"'}).status_code == 200


def test_a_page_with_forms_is_private_to_its_session(csrf_app, engine: Engine, tmp_path: Path) -> None:
    run_import(engine, write_folder(tmp_path / "v1"))
    one, two = csrf_app.test_client(), csrf_app.test_client()
    a, b = one.get(SEARCH), two.get(SEARCH)
    assert a.headers["Cache-Control"] == "private, no-cache"
    token_a = re.search(r'name="csrf_token" value="([^"]+)"', a.get_data(as_text=True))
    token_b = re.search(r'name="csrf_token" value="([^"]+)"', b.get_data(as_text=True))
    assert token_a and token_b and token_a.group(1) != token_b.group(1)  # each session its own
    assert a.headers["ETag"] != b.headers["ETag"]
    assert one.get(SEARCH, headers={"If-None-Match": a.headers["ETag"]}).status_code == 304
    assert two.get(SEARCH, headers={"If-None-Match": a.headers["ETag"]}).status_code == 200
    # the kept page's token works: the deck button of a tile posts with it
    posted = one.post(
        "/decks/working",
        data={"csrf_token": token_a.group(1), "game": "samsara", "name": "火龙", "action": "add", "next": SEARCH},
    )
    assert posted.status_code == 302
    # now this visitor builds a deck: the kept page shows their count, the other's not
    assert "卡组中 1 张" in one.get(SEARCH).get_data(as_text=True)
    assert "卡组中 1 张" not in two.get(SEARCH).get_data(as_text=True)


def test_a_kept_page_without_a_form_sets_no_cookie(csrf_app, engine: Engine, tmp_path: Path) -> None:
    """The home page has no form that posts: a visitor without a session gets none (no token
    made and signed per request), and its validator still answers 304."""
    run_import(engine, write_folder(tmp_path / "v1"))
    visitor = csrf_app.test_client(use_cookies=False)
    first, again = visitor.get("/"), visitor.get("/")
    assert first.status_code == again.status_code == 200
    assert "Set-Cookie" not in again.headers and "csrf_token" not in again.get_data(as_text=True)
    assert again.headers["ETag"] == first.headers["ETag"]
    assert visitor.get("/", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    assert "Set-Cookie" in visitor.get(SEARCH).headers  # a page with forms makes its token


def test_signed_in_results_share_the_kept_page_with_their_own_counts(app, web, engine: Engine, login) -> None:
    anonymous = web.get(SEARCH).get_data(as_text=True)
    assert "我有" not in anonymous
    alice, bob = app.test_client(), app.test_client()
    login(alice, "alice")
    login(bob, "bob")
    with Session(engine) as session:
        printing_id = session.scalars(select(Printing.id).where(Printing.number == "T1-001")).one()
    posted = alice.post("/collection/items", data={"printing_id": str(printing_id), "delta": "1", "next": SEARCH})
    assert posted.status_code in (302, 303)
    page_a = alice.get(SEARCH)
    text_a = page_a.get_data(as_text=True)
    assert "alice" in text_a and "bob" not in text_a and "我有 1 张" in text_a
    assert "ETag" not in page_a.headers and page_a.headers["Cache-Control"] == "private, no-cache"
    with statements(app) as seen:
        text_b = bob.get(SEARCH).get_data(as_text=True)
    assert "bob" in text_b and "alice" not in text_b and "我有 1 张" not in text_b and "我有 0 张" in text_b
    assert not any("card_search" in s for s in seen)  # the search itself was kept
    # the visitor's own: the versions (the key), the user, every tile's owned count in one, the trade badge
    assert len(seen) <= 4, "\n".join(seen)


def test_a_search_of_ones_own_collection_is_never_kept(app, web, engine: Engine, login) -> None:
    alice, bob = app.test_client(), app.test_client()
    login(alice, "alice")
    login(bob, "bob")
    with Session(engine) as session:
        printing_id = session.scalars(select(Printing.id).where(Printing.number == "T1-002")).one()
    alice.post("/collection/items", data={"printing_id": str(printing_id), "delta": "1", "next": "/"})
    mine = "/cards?q=" + quote("own>0")
    assert alice.get(mine).status_code == 302  # exactly one card: straight to 水灵
    assert bob.get(mine).status_code == 200 and "水灵" not in bob.get(mine).get_data(as_text=True)


@pytest.mark.skipif(not redis_answers(), reason="needs Redis (LUNZANG_ANSWERS_REDIS)")
def test_two_apps_share_kept_answers_in_redis(database_url: str, engine: Engine, tmp_path: Path) -> None:
    from webapp import create_app

    run_import(engine, write_folder(tmp_path / "v1"))
    config = {"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "test", "ANSWER_CACHE_URL": REDIS_URL}
    one, two = create_app(config), create_app(config)
    try:
        made = one.test_client().get(CARD)
        with statements(two) as seen:
            shared = two.test_client().get(CARD)
        assert len(seen) == 1  # drawn by the other app, read from Redis
        assert _without_tokens(shared.get_data(as_text=True)) == _without_tokens(made.get_data(as_text=True))
    finally:
        from webapp.db import dispose

        dispose(one)
        dispose(two)


# ---- faces ------------------------------------------------------------------


def test_grid_images_have_sizes_a_phone_srcset_and_lazy_below_the_first_row(sample_app) -> None:
    page = sample_app.test_client().get("/cards?q=" + quote("t:战魂")).get_data(as_text=True)
    images = re.findall(r'<img class="tile-image"[^>]*>', page)
    assert len(images) > 6
    for image in images:
        assert 'width="146"' in image and 'height="204"' in image
        assert re.search(r'srcset="[^"]*small\.webp[^"]* 146w, [^"]*normal\.webp[^"]* 488w"', image)
        assert 'sizes="(max-width: 30rem) 46vw, 146px"' in image
    assert all('loading="lazy"' not in image for image in images[:6])
    assert all('loading="lazy"' in image for image in images[6:])


def test_images_warm_draws_each_face_once_and_the_pages_serve_it_without_a_query(
    sample_app, client, tmp_path: Path
) -> None:
    sample_app.config["CARD_IMAGE_DIR"] = str(tmp_path / "faces")
    runner = sample_app.test_cli_runner()
    first = runner.invoke(args=["images", "warm", "--game", "keyforge"])
    assert first.exit_code == 0, first.output
    assert re.search(r"已绘制 100 张卡面，0 张已在缓存中", first.output)  # 50 printings × small, normal
    again = runner.invoke(args=["images", "warm", "--game", "keyforge"])
    assert "已绘制 0 张卡面，100 张已在缓存中" in again.output
    assert runner.invoke(args=["images", "warm", "--game", "nope"]).exit_code == 2
    page = client.get("/cards?q=" + quote("g:keyforge")).get_data(as_text=True)
    face = re.search(r'src="(/images/keyforge/[^"]+)"', page)
    assert face
    url = face.group(1).replace("&amp;", "&")
    with statements(sample_app) as seen:
        served = client.get(url)
    assert served.status_code == 200 and served.mimetype == "image/webp"
    assert seen == []  # a file from the shared face cache, as a static file would be
    assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get(url, headers={"If-None-Match": served.headers["ETag"]}).status_code == 304


def test_signed_in_visitors_share_kept_pages_with_their_own_header(app, web, login) -> None:
    alice, bob = app.test_client(), app.test_client()
    login(alice, "alice")
    login(bob, "bob", role="admin")
    for url in ("/", "/sets/samsara/T1", "/api/v1/sets"):
        first = alice.get(url).get_data(as_text=True)
        with statements(app) as seen:
            second = bob.get(url).get_data(as_text=True)
        assert not any("card_set" in s or "printing" in s for s in seen), seen  # the page's work was kept
        if not url.startswith("/api/"):
            assert "alice" in first and "bob" not in first and "bob" in second and "alice" not in second
            assert url_for_scans() in second and url_for_scans() not in first  # bob is an admin
    anonymous = app.test_client().get("/").get_data(as_text=True)
    assert "alice" not in anonymous and "bob" not in anonymous and "/logout" not in anonymous


def url_for_scans() -> str:
    return "/admin/scans"

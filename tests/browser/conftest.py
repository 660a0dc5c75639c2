"""Fixtures of the browser tests: the browser (one per test process) and the sample app served on
a free port of 127.0.0.1 by werkzeug in a background thread. Every test here is marked
``browser``, and the run stops at once, saying how to install it, when Chromium is missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.kits.web import ensure_translations_compiled, served

HERE = Path(__file__).resolve().parent
# Debian's Chromium: its headless shell (what `make test` runs), LUNZANG_CHROMIUM naming another
# build (`make test-chromium`: the full browser, /usr/bin/chromium); the Makefile checks the path.
CHROMIUM = os.environ.get("LUNZANG_CHROMIUM", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One browser per test process, started by its first browser test. Each test opens its own
    contexts (cookies, storage, viewport of its own) and ``_contexts_closed`` closes whatever it
    left open, so no test sees another's pages. Session-scoped, it ties no file to one worker:
    pytest-xdist hands browser tests out one by one like the rest (tests/conftest.py)."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _contexts_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


@pytest.fixture(scope="session")
def drawn_faces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of drawn card faces for every browser test of this run, shared by pytest-xdist's
    workers (the run's own temporary root, never a previous run's). A face's file is named by its
    card data and the renderer's version (catalog.images.faces.cache_key) and appears by rename,
    so a test reading another's drawing, from either process, sees exactly what it would have
    drawn itself; the sample's faces are drawn about once per run instead of once per test."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "card-images"
        shared.mkdir(exist_ok=True)
        return shared
    return tmp_path_factory.mktemp("card-images")


@pytest.fixture
def live_server(sample_app, drawn_faces: Path) -> Iterator[str]:
    ensure_translations_compiled()
    sample_app.config["CARD_IMAGE_DIR"] = str(drawn_faces)
    # As in production: every form a browser submits must carry its CSRF token.
    sample_app.config["WTF_CSRF_ENABLED"] = True
    with served(sample_app) as base:
        yield base


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def pytest_collection_finish(session: pytest.Session) -> None:
    """One clear line instead of an error per test when the browser is not installed."""
    wanted = any(item.get_closest_marker("browser") for item in session.items)
    if wanted and not os.access(CHROMIUM, os.X_OK):
        pytest.exit(
            f"{CHROMIUM} is missing: install it with `sudo apt-get install {Path(CHROMIUM).name}` (as .ci/run does), "
            "or leave the browser tests out with -m 'not browser'",
            returncode=4,
        )

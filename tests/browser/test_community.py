"""The community catalogue in a real browser, at 390 px and 1366 px, in both languages: a player
proposes a correction with a photo; a curator approves it; the card page shows the new text, the
search finds it, the history shows the diff crediting the player; the curator reverts it and
everything is back, search included. A plain user cannot edit directly; a curator cannot grant
roles. One browser for the module (the ``browser`` fixture)."""

from __future__ import annotations

import io
from pathlib import Path
from urllib.parse import quote

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from catalog.models import Card
from tests.kits.browser import WIDTHS, assert_fits, new_page, sign_in
from webapp.db import get_engine

CARD = "小红帽·森林歌者"
CARD_URL = "/cards/samsara/" + quote(CARD)
NEW_TEXT = "这张战魂进场时，召唤一只独角兽。"
SEARCH_URL = "/cards?q=" + quote("o:独角兽")


@pytest.fixture
def people(sample_app, make_user, tmp_path: Path) -> int:
    sample_app.config["SCAN_DIR"] = str(tmp_path / "scans")
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "player")
        make_user(session, "cura", role="curator")
        card = session.exec(select(Card).where(Card.name == CARD)).one()
        assert card.id is not None
        return card.id


def _photo(tmp_path: Path) -> Path:
    path = tmp_path / "card.jpg"
    out = io.BytesIO()
    Image.new("RGB", (630, 880), (200, 40, 40)).save(out, "JPEG", quality=85)
    path.write_bytes(out.getvalue())
    return path


def _as(browser: Browser, base: str, width: int, username: str, lang: str) -> Page:
    page = new_page(browser, width)
    sign_in(page, base, username)
    page.goto(f"{base}/?lang={lang}")  # the cookie keeps the language for every later page
    return page


def _search_finds(page: Page, base: str, found: bool) -> None:
    page.goto(base + SEARCH_URL)
    if found:  # the one hit: the search goes straight to its card page
        expect(page.get_by_role("heading", level=1)).to_have_text(CARD)
    else:
        expect(page.locator(".result-count")).to_contain_text("0")
        expect(page.locator(".tile-name", has_text=CARD)).to_have_count(0)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("width", WIDTHS)
def test_a_proposal_approved_then_reverted(
    browser: Browser, live_server: str, people: int, tmp_path: Path, width: int, lang: str
) -> None:
    card_id = people
    player = _as(browser, live_server, width, "player", lang)
    cura = _as(browser, live_server, width, "cura", lang)
    try:
        # the player: no direct edit, a proposal with a photo from the card page
        assert player.goto(f"{live_server}/catalogue/card/{card_id}/edit").status == 403
        player.goto(live_server + CARD_URL)
        player.locator("a.propose-link").click()
        assert_fits(player, width)
        player.locator("#cell-text").fill(NEW_TEXT)
        player.locator("#photo").set_input_files(str(_photo(tmp_path)))
        player.locator(".proposal-form button[type=submit]").click()
        expect(player.locator(".proposal-state")).to_have_attribute("data-state", "pending")
        waiting = "待审核" if lang == "zh" else "Waiting for review"
        expect(player.locator(".proposal-state strong")).to_have_text(waiting)
        assert_fits(player, width)

        # the curator: cannot grant roles; reviews the queue, sees the photo and the diff, approves
        assert cura.goto(live_server + "/admin/users").status == 403
        cura.goto(live_server + "/catalogue/proposals")
        assert_fits(cura, width)
        cura.locator("table.proposals a").first.click()
        expect(cura.locator("table.diff ins")).to_have_text(NEW_TEXT)
        photo = cura.locator(".proposal-photo img")
        expect(photo).to_be_visible()
        assert cura.evaluate("document.querySelector('.proposal-photo img').naturalWidth") > 0
        assert_fits(cura, width)
        cura.locator(".approve-form button[type=submit]").click()
        expect(cura.locator(".flashes li").first).to_contain_text("#")

        # the card page, the search, the history: the new text, credited to the player
        cura.goto(live_server + CARD_URL)
        expect(cura.locator(".rules-text")).to_contain_text("独角兽")
        expect(cura.locator(".card-provenance")).to_contain_text("player")
        _search_finds(cura, live_server, True)
        cura.goto(f"{live_server}/catalogue/card/{card_id}/history")
        newest = cura.locator("li.revision").first
        expect(newest.locator(".credited")).to_contain_text("player")
        expect(newest.locator("table.diff ins")).to_have_text(NEW_TEXT)
        assert_fits(cura, width)
        player.goto(live_server + "/account")
        expect(player.locator(".my-proposals li").first).to_have_attribute("data-state", "approved")

        # the curator reverts: everything is back, the search included
        newest.locator("input[name=note]").fill("核对后撤回")
        newest.locator("input[name=confirm]").check()
        newest.locator(".revert-form button[type=submit]").click()
        expect(cura.locator("li.revision")).to_have_count(2)
        cura.goto(live_server + CARD_URL)
        expect(cura.locator(".rules-text")).not_to_contain_text("独角兽")
        _search_finds(cura, live_server, False)
    finally:
        player.context.close()
        cura.context.close()

"""The pack reveal in a real browser (Playwright + Debian's Chromium), with and without JS."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.kits.browser import WIDTHS, assert_fits, new_page, open_page


def test_reveal_flips_cards_one_by_one_and_all(browser: Browser, live_server: str) -> None:
    page = open_page(browser)
    try:
        page.goto(live_server + "/packs/samsara/M4/open?packs=2&seed=42")
        expect(page.locator("#summary")).to_be_hidden()  # nothing is named before it is opened
        pack = page.locator("li.pack").first
        cards = pack.locator(".pack-card")
        expect(cards.first).to_be_hidden()  # sealed
        page.get_by_role("button", name=re.compile(r"^第 1 包\s*拆开$")).click()  # named by what it shows
        expect(cards).to_have_count(8)
        expect(pack.locator(".pack-card.face-down")).to_have_count(8)
        expect(cards.first.locator("a")).to_be_hidden()
        expect(cards.first.locator("img")).to_have_count(0)  # a card back, no face loaded yet
        cards.nth(7).click()  # the "C or higher" card first, if one likes
        expect(pack.locator(".pack-card.face-down")).to_have_count(7)
        expect(cards.nth(7).locator("a")).to_be_visible()
        face = cards.nth(7).locator(".card-art img")
        expect(face).to_be_visible()
        face.evaluate("img => img.decode()")  # rejects (and fails the test) unless the face image drew
        assert face.evaluate("img => img.naturalWidth") > 100
        assert "/images/samsara/M4/" in (face.get_attribute("src") or "")
        cards.first.focus()
        page.keyboard.press("Enter")
        expect(pack.locator(".pack-card.face-down")).to_have_count(6)
        pack.get_by_role("button", name="全部翻开").click()
        expect(pack.locator(".pack-card.face-down")).to_have_count(0)
        expect(page.locator(".pack-card.face-down")).to_have_count(8)  # the second pack waits
        expect(page.locator("#summary")).to_be_hidden()
        pack.get_by_role("button", name="下一包").click()
        expect(page.locator("li.pack").nth(1).locator(".pack-card.face-down")).to_have_count(8)
        page.locator(".reveal-tools").get_by_role("button", name="全部翻开").click()
        expect(page.locator(".pack-card.face-down")).to_have_count(0)
        expect(page.locator("#summary")).to_be_visible()  # after the reveal
        name = cards.first.locator("a").inner_text()
        cards.first.locator("a").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(name)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_box_is_a_grid_of_packs_and_skip_goes_to_the_summary(browser: Browser, live_server: str, width: int) -> None:
    page = new_page(browser, width)
    try:
        page.goto(live_server + "/packs/samsara/M4/open?boxes=1&seed=7")
        wrappers = page.locator(".pack-wrapper")
        expect(wrappers).to_have_count(16)
        assert_fits(page, width)
        tops = {round(b["y"]) for b in (wrappers.nth(i).bounding_box() for i in range(2)) if b}
        assert len(tops) == 1  # side by side: a grid, not a list
        wrappers.nth(4).click()
        expect(page.locator("li.pack.opened")).to_have_count(1)
        expect(page.locator("li.pack.opened")).to_have_attribute("data-pack", "5")
        assert_fits(page, width)
        page.get_by_role("button", name="跳到汇总").click()
        expect(page.locator("#summary")).to_be_in_viewport()
        expect(page.locator(".pack-card.face-down")).to_have_count(0)
        expect(page.locator(".best-pulls li").first).to_be_visible()
    finally:
        page.context.close()


def test_the_completion_link_keeps_its_seed(browser: Browser, live_server: str) -> None:
    page = open_page(browser, javascript=False)
    try:
        page.goto(live_server + "/packs/samsara/M4/open?packs=1&seed=3")
        page.get_by_role("link", name="集齐要几盒").click()
        expect(page).to_have_url(re.compile(r"/packs/samsara/M4/complete\?.*seed=\d+"))
        figures = page.locator("main").inner_text()
        page.reload()  # the address is a bookmark: the same seed, the same figures
        assert page.locator("main").inner_text() == figures
    finally:
        page.context.close()


def test_without_javascript_the_opening_is_a_plain_list(browser: Browser, live_server: str) -> None:
    page = open_page(browser, javascript=False)
    try:
        page.goto(live_server + "/packs/")
        page.get_by_label("系列", exact=True).select_option("samsara:M4")
        page.get_by_role("button", name="开 1 盒").click()
        expect(page).to_have_url(re.compile(r"/packs/samsara/M4/open\?.*seed=\d+"))
        expect(page.locator(".pack-card")).to_have_count(128)
        expect(page.locator(".pack-card.face-down")).to_have_count(0)
        expect(page.locator(".pack-card a").first).to_be_visible()
        # the summary comes after the packs
        assert page.evaluate(
            "document.querySelector('.reveal').compareDocumentPosition("
            "document.getElementById('summary')) & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        first_cards = page.locator(".pack-card").all_inner_texts()
        replay = page.locator("a.replay-link").get_attribute("href")
        assert replay is not None
        page.goto(replay)
        assert page.locator(".pack-card").all_inner_texts() == first_cards  # the very same box
    finally:
        page.context.close()


def test_booster_pages_fit_a_phone_screen(browser: Browser, live_server: str) -> None:
    page = open_page(browser, width=360)
    try:
        for path in (
            "/packs/",
            "/packs/samsara/M4/open?boxes=1&seed=1",
            "/packs/samsara/M4/odds",
            "/packs/samsara/M4/complete?trials=200&seed=1",
        ):
            page.goto(live_server + path)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, path
    finally:
        page.context.close()

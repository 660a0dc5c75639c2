"""The pack reveal in a real browser (Playwright + Debian's Chromium), with and without JS."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.browser import open_page


def test_reveal_flips_cards_one_by_one_and_all(browser: Browser, live_server: str) -> None:
    page = open_page(browser)
    try:
        page.goto(live_server + "/packs/samsara/M4/open?packs=2&seed=42")
        pack = page.locator("li.pack").first
        cards = pack.locator(".pack-card")
        expect(cards).to_have_count(8)
        expect(pack.locator(".pack-card.face-down")).to_have_count(8)
        expect(cards.first.locator("a")).to_be_hidden()
        cards.nth(7).click()  # the "C or higher" card first, if one likes
        expect(pack.locator(".pack-card.face-down")).to_have_count(7)
        expect(cards.nth(7).locator("a")).to_be_visible()
        cards.first.focus()
        page.keyboard.press("Enter")
        expect(pack.locator(".pack-card.face-down")).to_have_count(6)
        pack.get_by_role("button", name="全部翻开").click()
        expect(pack.locator(".pack-card.face-down")).to_have_count(0)
        expect(page.locator(".pack-card.face-down")).to_have_count(8)  # the second pack waits
        page.get_by_role("heading", name=re.compile("卡包")).get_by_role("button", name="全部翻开").click()
        expect(page.locator(".pack-card.face-down")).to_have_count(0)
        name = cards.first.locator("a").inner_text()
        cards.first.locator("a").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(name)
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

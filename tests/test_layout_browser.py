"""Issue 15 items 1–4 in a real browser at 390 px and 1366 px: the header, the collection and
the tables on a phone, success messages, readable controls on search tiles."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from tests.browserkit import DESKTOP, PHONE, WIDTHS, assert_fits, new_page, sign_in
from tests.test_browser import browser, live_server  # noqa: F401  (fixtures)
from webapp.db import get_engine


@pytest.fixture
def alice(sample_app, make_user) -> None:  # type: ignore[no-untyped-def]
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "alice")


@pytest.mark.parametrize("width", WIDTHS)
def test_header_one_line_on_desktop_menu_on_a_phone(browser: Browser, live_server: str, alice, width: int) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page = new_page(browser, width, javascript=False)  # the menu must open without JS
    try:
        sign_in(page, live_server)
        for lang in ("zh", "en"):
            page.goto(live_server + f"/collection?lang={lang}")
            assert_fits(page, width)
            nav = page.locator("nav.site-nav")
            sets = nav.locator("a", has_text="系列" if lang == "zh" else "Sets")
            account = page.locator("nav.account-nav")
            if width == DESKTOP:
                # every main link and the account on the same line as the brand
                tops = page.evaluate(
                    "[...document.querySelectorAll('.brand, .site-nav li:not(.home-link) a, .site-search, "
                    ".account-nav .account-name')].map(e => Math.round(e.getBoundingClientRect().top + "
                    "e.getBoundingClientRect().height / 2))"
                )
                assert max(tops) - min(tops) <= 6, tops
                expect(sets).to_be_visible()
                expect(account.locator(".account-name")).to_have_text("alice")
            else:
                expect(sets).to_be_hidden()
                expect(page.locator("#site-search-q")).to_be_visible()
                page.locator("label.menu-button").click()
                expect(sets).to_be_visible()
                expect(account.get_by_role("link", name="我的卡组" if lang == "zh" else "My decks")).to_be_visible()
        sets.click()
        expect(page).to_have_url(live_server + "/sets")
    finally:
        page.context.close()

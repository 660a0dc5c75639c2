"""My decks in a real browser: alice pastes a KeyForge deck, sees its page with its
houses and figures, marks it for trade; bob offers his deck for it and the trade page lists both
whole decks. At 390 and 1366 px, in Chinese and in English."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from tests.kits.browser import WIDTHS, assert_fits, new_page, sign_in
from tests.kits.owned_decks import DECK, OTHER
from webapp.db import get_engine


@pytest.fixture
def own_server(live_server: str) -> str:
    """The suite's live server (a free port, CSRF on): werkzeug exits the process on a port in
    use rather than raising, so a range of fixed ports cannot be tried one by one."""
    return live_server


@pytest.mark.parametrize("width", WIDTHS)
def test_add_see_mark_and_offer_whole_decks(
    browser: Browser, own_server: str, sample_app, make_user, width: int
) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "alice")
        make_user(session, "bob")
    page = new_page(browser, width)
    try:
        sign_in(page, own_server, "alice")
        page.goto(own_server + "/decks/owned")
        expect(page.get_by_role("heading", level=1)).to_have_text("我拥有的卡组")
        page.get_by_label("或粘贴卡组").fill(DECK)
        page.locator("section.owned-add form").first.get_by_role("button", name="加入").click()
        expect(page.locator(".flashes")).to_contain_text("已加入 1 副卡组")
        assert_fits(page, width)
        page.get_by_role("link", name="山岳速攻").click()
        expect(page.locator(".deck-figures")).to_contain_text("琥珀奖励合计")
        expect(page.locator("section.deck-house h2").first).to_contain_text("布罗布纳")
        expect(page.locator("section.deck-house", has_text="圣所")).to_contain_text("变节")
        assert_fits(page, width)
        page.get_by_role("button", name="标记为可交换").click()
        expect(page.locator(".flashes")).to_contain_text("卡组已标记为可交换")
        deck_url = page.url
        page.goto(deck_url + ("&" if "?" in deck_url else "?") + "lang=en")
        expect(page.locator(".deck-figures")).to_contain_text("Æmber bonus total")
        assert_fits(page, width)
        page.context.clear_cookies()

        sign_in(page, own_server, "bob")
        page.goto(own_server + "/decks/owned?lang=zh")
        page.get_by_label("或粘贴卡组").fill(OTHER)
        page.locator("section.owned-add form").first.get_by_role("button", name="加入").click()
        page.get_by_role("link", name="另一副").click()
        page.get_by_role("button", name="标记为可交换").click()
        page.goto(deck_url)
        page.get_by_label("另一副").check()
        page.get_by_role("button", name="发出报价").click()
        expect(page.locator(".flashes")).to_contain_text("报价已发出")
        expect(page.locator(".trade-decks")).to_have_count(2)
        assert_fits(page, width)
    finally:
        page.context.close()

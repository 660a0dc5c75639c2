"""The deck checker in a real browser: paste a list, see the violations, fix it, see it legal."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, expect

from tests.kits.browser import open_page
from tests.kits.deck import legal_samsara_list


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_paste_see_violations_fix_see_legal(
    browser: Browser,
    live_server: str,
    sample_catalogue,
    javascript: bool,
) -> None:
    legal = legal_samsara_list(sample_catalogue)
    page = open_page(browser, javascript=javascript)
    try:
        page.goto(live_server + "/")
        page.get_by_role("navigation", name="主导航").get_by_role("link", name="构筑检查").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("构筑检查")
        page.get_by_label("游戏").select_option("samsara")
        page.get_by_label("赛制").select_option("m8")
        broken = legal.replace("额外卡组:", "1 虚华·空暝之主\n1 亚瑟王之剑\n额外卡组:")
        page.get_by_label("卡组列表").fill(broken)
        page.get_by_role("button", name="检查").click()

        expect(page.locator("h2.verdict")).to_have_text("不合法")
        violations = page.locator("ol.violations > li.error")
        expect(violations).to_have_count(2)
        expect(page.locator('li[data-code="banned"]')).to_contain_text("虚华·空暝之主")
        expect(page.locator('li[data-code="unknown_card"]')).to_contain_text("亚瑟王之剑")
        expect(page.locator("ol.deck-lines li.error")).to_have_count(2)
        page.locator('li[data-code="banned"] .lines a').first.click()
        expect(page.locator("ol.deck-lines li.error").first).to_contain_text("虚华·空暝之主")

        expect(page.get_by_label("卡组列表")).to_have_value(broken)  # the list stays in the form
        page.get_by_label("卡组列表").fill(legal)
        page.get_by_role("button", name="检查").click()
        expect(page.locator("h2.verdict")).to_have_text("合法")
        expect(page.locator("ol.violations li.error")).to_have_count(0)
        expect(page.locator("table.odds tbody tr")).to_have_count(17)
        page.screenshot(path="/tmp/deck-check.png", full_page=True)
    finally:
        page.context.close()


@pytest.mark.parametrize("path", ["/decks", "/rules/samsara", "/decks/print"])
def test_deck_pages_fit_a_phone_screen(
    browser: Browser,
    live_server: str,
    sample_catalogue,
    path: str,
) -> None:
    query = "?" + urlencode({"game": "samsara", "format": "m8", "list": legal_samsara_list(sample_catalogue)})
    page = open_page(browser, width=360)
    try:
        page.goto(live_server + path + query)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
    finally:
        page.context.close()


def test_verdict_updates_while_typing(
    browser: Browser,
    live_server: str,
    sample_catalogue,
) -> None:
    legal = legal_samsara_list(sample_catalogue)
    page = open_page(browser)
    try:
        page.goto(live_server + "/decks?game=samsara&format=m8")
        page.get_by_label("卡组列表").fill(legal)  # no click: the script re-checks on input
        expect(page.locator("h2.verdict")).to_have_text("合法")
        page.get_by_label("卡组列表").press("End")
        page.get_by_label("卡组列表").type("\n1 虚华·空暝之主")
        expect(page.locator("h2.verdict")).to_have_text("不合法")
        expect(page.locator('li[data-code="banned"]')).to_be_visible()
        expect(page.locator("table.odds")).to_be_visible()
        assert "list=" not in page.url  # the list is posted, never put in a URL
    finally:
        page.context.close()

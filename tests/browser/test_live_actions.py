"""the small actions — deck +/−, collection ±1 from the search grid and the
collection table, want lines — change the counts in place without a page load, and work the
same with JavaScript off; the working deck never appears in a URL.

"Without a page load" is checked with a marker set on ``window``: a navigation would lose it.
One browser for the module, one signed-in page per JavaScript setting, few page loads.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from tests.conftest import TEST_PASSWORD
from tests.kits.browser import open_page
from webapp.db import get_engine

DECK = "3 小红帽·森林歌者\n2 小红帽·狼猎手\n"


def _mark(page: Page, javascript: bool) -> None:
    if javascript:
        page.evaluate("window.__still_here = 1")


def _no_load(page: Page, javascript: bool) -> None:
    if javascript:
        assert page.evaluate("window.__still_here") == 1, "the page was loaded again"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_counts_change_in_place_and_without_javascript(
    browser: Browser, live_server: str, sample_app, make_user, javascript: bool
) -> None:
    from catalog.collection.wants import set_want
    from catalog.models import Printing
    from tests.kits.collection import NOW, printing_id

    with Session(get_engine(sample_app)) as session, session.begin():
        alice = make_user(session, "alice")
        pid = printing_id(session, "M4", "M4-001")
        card_id = session.get(Printing, pid).card_id
        set_want(session=session, user_id=alice.id, card_id=card_id, quantity=3, now=NOW)
    page = open_page(browser, javascript=javascript)
    try:
        page.goto(live_server + "/login")
        page.get_by_label("用户名").fill("alice")
        page.get_by_label("密码").fill(TEST_PASSWORD)
        page.get_by_role("button", name="登录").click()
        page.wait_for_url(lambda url: "/login" not in url)

        # The deck builder: the list is posted, + and − post it again; no URL names it.
        page.goto(live_server + "/decks")
        page.locator("#deck-game").select_option("samsara")
        page.get_by_label("卡组列表").fill(DECK)
        page.get_by_role("button", name="检查").click()
        expect(page.locator("ol.deck-lines li").first).to_contain_text("3 小红帽·森林歌者")
        _mark(page, javascript)
        page.get_by_role("button", name="第 1 行加一张").click()
        expect(page.locator("ol.deck-lines li").first).to_contain_text("4 小红帽·森林歌者")
        expect(page.locator('li[data-code="too_many_copies"]')).to_be_visible()
        page.get_by_role("button", name="第 2 行减一张").click()
        expect(page.locator("ol.deck-lines li").nth(1)).to_contain_text("1 小红帽·狼猎手")
        expect(page.get_by_label("卡组列表")).to_have_value(re.compile(r"^4 小红帽·森林歌者\n1 小红帽·狼猎手"))
        if javascript:
            expect(page.get_by_role("button", name="第 2 行减一张")).to_be_focused()  # the keyboard stays put
        _no_load(page, javascript)
        assert "list=" not in page.url and "%E5%B0%8F" not in page.url
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
        assert not [href for href in hrefs if "list=" in href]

        # ±1 from the search grid.
        page.goto(live_server + "/cards?q=" + "小红帽·森林歌者")
        form = page.locator("form.collection-buttons").filter(has=page.locator(f'input[value="{pid}"]'))
        _mark(page, javascript)
        form.get_by_role("button", name=re.compile("收藏一张")).click()
        form = page.locator("form.collection-buttons").filter(has=page.locator(f'input[value="{pid}"]'))
        expect(form.locator(".owned-count")).to_have_text("我有 1 张")
        _no_load(page, javascript)

        # The want list: its "missing" count follows the collection and the edited quantity.
        page.goto(live_server + "/wants")
        row = page.locator("table.wants tbody tr").first
        expect(row.locator("td.missing")).to_have_text("2")
        _mark(page, javascript)
        row.get_by_label("「小红帽·森林歌者」的数量").fill("5")
        row.get_by_role("button", name="保存").click()
        expect(page.locator("table.wants tbody tr").first.locator("td.missing")).to_have_text("4")
        expect(page.locator(".flashes")).to_be_visible()
        _no_load(page, javascript)

        # The collection table: +1 and the line's for-trade count, with the totals above.
        page.goto(live_server + "/collection")
        item = page.locator("tr[data-printing]", has_text="M4-001")
        _mark(page, javascript)
        item.get_by_role("button", name=re.compile(r"^\+1")).click()
        expect(page.locator("tr[data-printing]", has_text="M4-001").locator(".quantity")).to_have_text("2")
        expect(page.locator('[data-total="cards"]')).to_have_text("2")
        item = page.locator("tr[data-printing]", has_text="M4-001")
        item.locator("form.trade-form input[name=for_trade]").fill("1")
        item.locator("form.trade-form").get_by_role("button").click()
        expect(page.locator('[data-total="for_trade"]')).to_have_text("1")
        _no_load(page, javascript)
    finally:
        page.context.close()


def test_name_suggestions_are_a_keyboard_combobox(browser: Browser, live_server: str) -> None:
    """typing offers names (debounced JSON), ↓ and Enter take one, Escape closes."""
    page = open_page(browser)
    try:
        page.goto(live_server + "/decks?game=samsara&list=" + "1%20小红帽·森林歌者")
        box = page.locator("#site-search-q")
        expect(box).to_have_attribute("role", "combobox")
        box.press_sequentially("xiaohong", delay=20)
        listbox = page.locator("#" + box.get_attribute("aria-controls"))
        expect(listbox).to_be_visible()
        expect(box).to_have_attribute("aria-expanded", "true")
        options = listbox.get_by_role("option")
        expect(options.first).to_contain_text("小红帽")
        box.press("ArrowDown")
        first_id = options.first.get_attribute("id")
        expect(box).to_have_attribute("aria-activedescendant", first_id)
        expect(options.first).to_have_attribute("aria-selected", "true")
        chosen = options.first.inner_text()
        box.press("Enter")
        expect(box).to_have_value(chosen)
        expect(box).to_have_attribute("aria-expanded", "false")
        assert "/decks" in page.url  # Enter on an option takes it, it does not submit
        # the deck builder's "add a card" field offers this game's names the same way
        add = page.get_by_role("combobox", name="添加卡牌")
        add.press_sequentially("狼猎", delay=20)
        expect(page.locator("#" + add.get_attribute("aria-controls")).get_by_role("option").first).to_contain_text(
            "狼猎手"
        )
        add.press("Escape")
        expect(add).to_have_attribute("aria-expanded", "false")
    finally:
        page.context.close()

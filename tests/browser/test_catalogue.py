"""Click through the catalogue in a real browser (fixtures: ``tests/browser/conftest.py``)."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, expect

from tests.kits.browser import open_page


def _search_box(page):  # type: ignore[no-untyped-def]  # why: a test helper over Playwright's Page
    """The header's search box: a searchbox, or with JavaScript a combobox offering names."""
    return page.get_by_role("combobox", name="搜索卡牌").or_(page.get_by_role("searchbox", name="搜索卡牌"))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_click_from_home_to_a_card_and_back_to_its_set(browser: Browser, live_server: str, javascript: bool) -> None:
    page = open_page(browser, javascript=javascript)
    try:
        page.goto(live_server + "/")
        expect(page.get_by_role("heading", level=1)).to_have_text("中文集换式卡牌数据库")
        expect(page.locator(".game-card")).to_have_count(4)

        page.get_by_role("navigation", name="主导航").get_by_role("link", name="系列", exact=True).click()
        expect(page).to_have_url(live_server + "/sets")
        series_m = page.locator("section.series", has=page.get_by_role("heading", name="M 系列"))
        series_m.first.get_by_role("link", name="M4", exact=True).click()

        expect(page).to_have_url(live_server + "/sets/samsara/M4")
        expect(page.get_by_role("heading", level=1)).to_contain_text("奇幻征途")
        table = page.locator("table.printings")
        numbers = table.locator("td.number").all_inner_texts()
        assert numbers[:3] == ["M4-001", "M4-002", "M4-003"] and len(numbers) > 40
        row = table.locator("tr", has_text="M4-002")
        expect(row.locator(".rarity")).to_have_attribute("data-rarity", "R")
        row.get_by_role("link").click()

        expect(page).to_have_url(live_server + "/cards/samsara/" + quote("小红帽·狼猎手"))
        expect(page.get_by_role("heading", level=1)).to_have_text("小红帽·狼猎手")
        expect(page.locator(".rules-text")).to_contain_text("这张战魂破坏兽人或狼人战魂时")
        page.locator("table.printings").get_by_role("link", name="M4", exact=True).click()
        expect(page).to_have_url(live_server + "/sets/samsara/M4")
    finally:
        page.context.close()


def test_switch_to_english_and_back(browser: Browser, live_server: str) -> None:
    page = open_page(browser)
    try:
        page.goto(live_server + "/sets/samsara/M4")
        nav = page.get_by_role("navigation", name="主导航")
        expect(nav).to_have_text(re.compile(r"首页\s*系列\s*开包"))

        page.get_by_role("link", name="English").click()
        expect(page).to_have_url(live_server + "/sets/samsara/M4?lang=en")
        expect(page.locator("html")).to_have_attribute("lang", "en")
        nav = page.get_by_role("navigation", name="Main navigation")
        expect(nav).to_have_text(re.compile(r"Home\s*Sets\s*Open packs"))
        expect(page.get_by_role("heading", level=1)).to_contain_text("奇幻征途")  # data as written

        page.locator("a.brand").click()  # the cookie keeps English without ?lang
        expect(page).to_have_url(live_server + "/")
        expect(page.get_by_role("link", name="Browse all sets")).to_be_visible()

        page.get_by_role("link", name="简体中文").click()
        expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
        expect(page.get_by_role("navigation", name="主导航")).to_have_text(re.compile(r"首页\s*系列\s*开包"))
    finally:
        page.context.close()


def test_skip_link_is_the_first_stop_and_jumps_to_the_content(browser: Browser, live_server: str) -> None:
    page = open_page(browser)
    try:
        page.goto(live_server + "/sets/samsara/M4")
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="跳到正文")
        expect(skip).to_be_focused()
        expect(skip).to_be_in_viewport()
        page.keyboard.press("Enter")
        expect(page).to_have_url(live_server + "/sets/samsara/M4#main")
    finally:
        page.context.close()


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/sets",
        "/sets/samsara/M4",
        "/cards/samsara/" + quote("龙人四灵·玄武圣尊"),
        "/cards/zhutian/" + quote("二郎真君"),
        "/cards?q=" + quote("t:战魂 a:火"),
        "/cards?view=table&q=" + quote("t:战魂 a:火"),
        "/cards?q=" + quote("t:战魂 (a:火 or"),
        "/help/search",
        "/keywords/samsara",
    ],
)
def test_pages_fit_a_phone_screen(browser: Browser, live_server: str, path: str) -> None:
    """At 360 px nothing makes the page scroll sideways: wide tables scroll inside their box."""
    page = open_page(browser, width=360)
    try:
        page.goto(live_server + path)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
        expect(page.locator("label.menu-button")).to_be_visible()  # the links are behind it
    finally:
        page.context.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_search_from_the_box_to_a_card_and_its_keyword_glossary(
    browser: Browser, live_server: str, javascript: bool
) -> None:
    """The issue's path: type a query, see results, open a card, follow a keyword to the glossary."""
    page = open_page(browser, javascript=javascript)
    try:
        page.goto(live_server + "/sets")
        box = _search_box(page)
        box.fill("sunwukong")
        box.press("Enter")

        expect(page).to_have_url(live_server + "/cards?q=sunwukong")
        expect(page.get_by_role("heading", level=1)).to_have_text("搜索结果")
        expect(page.get_by_role("status")).to_contain_text("找到")
        expect(_search_box(page)).to_have_value("sunwukong")
        tile = page.locator(".tile", has=page.locator(".tile-name", has_text=re.compile(r"^孙悟空$")))
        expect(tile).to_have_count(1)
        # build a deck from the results: + adds a copy and the count follows
        tile.get_by_role("button", name="加入一张「孙悟空」到卡组").click()
        expect(page).to_have_url(re.compile(re.escape(live_server + "/cards?q=sunwukong") + r"(#hit-\d+)?$"))
        expect(tile.locator(".deck-copies")).to_have_text("卡组中 1 张")
        tile.locator("a.tile-link").click()

        expect(page).to_have_url(live_server + "/cards/samsara/" + quote("孙悟空"))
        expect(page.get_by_role("heading", level=1)).to_have_text("孙悟空")
        page.locator("dl.keywords").get_by_role("link", name="『悟空』唯一").click()

        expect(page).to_have_url(live_server + "/keywords/samsara/name_unique")
        expect(page.get_by_role("heading", level=1)).to_contain_text("唯一")
        expect(page.locator(".explanation")).to_contain_text("名称含有『A』")
        expect(page.locator(".tile-name", has_text=re.compile(r"^孙悟空$"))).to_have_count(1)
    finally:
        page.context.close()


def test_search_table_toggle_sort_and_a_bad_query(browser: Browser, live_server: str) -> None:
    page = open_page(browser)
    try:
        page.goto(live_server + "/")
        box = _search_box(page)
        box.fill("t:战魂 a:火")
        page.get_by_role("button", name="搜索").click()
        expect(page.locator(".tile").first).to_be_visible()

        page.get_by_role("navigation", name="显示方式").get_by_role("link", name="紧凑表格").click()
        table = page.locator("table.results")
        expect(table).to_be_visible()
        table.get_by_role("link", name="攻击力").click()  # ascending
        table = page.locator("table.results")
        table.get_by_role("link", name=re.compile("^攻击力")).click()  # again: descending
        expect(page).to_have_url(re.compile(r"order=atk&dir=desc"))
        expect(page.locator("table.results thead th[aria-sort=descending]")).to_have_text(re.compile("攻击力"))
        first = [int(t) for t in page.locator("table.results tbody td.num").nth(0).all_inner_texts()]
        assert first and first[0] >= 7

        box = _search_box(page)
        box.fill("t:战魂 cost<=x")
        box.press("Enter")
        expect(page.get_by_role("heading", level=1)).to_have_text("无法理解这个查询")
        expect(page.get_by_role("alert")).to_contain_text("x 不是整数")
        expect(page.locator("mark.bad-term")).to_have_text("cost<=x")
        page.get_by_role("link", name="查看搜索语法说明").click()
        expect(page).to_have_url(live_server + "/help/search")
        page.locator("#key-cost").get_by_role("link", name="cost<=3").click()
        expect(_search_box(page)).to_have_value("cost<=3")
        expect(page.locator(".tile").first).to_be_visible()
    finally:
        page.context.close()

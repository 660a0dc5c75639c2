"""In a real browser at 390 px and 1366 px: an illegal deck's image and
proxies (basic stones left out with a checkbox), wants pasted as a list, the time zone setting."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from catalog.collection.ledger import adjust
from tests.kits.browser import WIDTHS, assert_fits, new_page, sign_in
from tests.kits.collection import NM, NOW, printing_id
from tests.kits.deck import legal_samsara_list
from webapp.db import get_engine


@pytest.fixture
def alice(sample_app, make_user) -> int:
    with Session(get_engine(sample_app)) as session, session.begin():
        return make_user(session, "alice").id


def _pages(pdf: Path) -> int:
    return int(re.findall(rb"/Count (\d+)", pdf.read_bytes())[-1])


@pytest.mark.parametrize("width", WIDTHS)
def test_an_illegal_deck_prints_its_proxies_without_basic_stones(
    browser: Browser, live_server: str, sample_catalogue, width: int
) -> None:
    # The legal sample deck less one line of 3: illegal (48 main cards, fewer than 50), + stones.
    text = legal_samsara_list(sample_catalogue)
    first = next(line for line in text.splitlines() if line.startswith("3 "))
    illegal = text.replace(first + "\n", "", 1)
    page = new_page(browser, width)
    try:
        page.goto(live_server + "/decks?" + urlencode({"game": "samsara", "format": "m8", "list": illegal}))
        expect(page.locator("h2.verdict")).to_have_text("不合法")
        assert_fits(page, width)
        expect(page.get_by_role("link", name="下载卡组图片")).to_be_visible()
        form = page.locator("form.proxy-form")
        with page.expect_download() as every:
            form.get_by_role("button", name="打印代理 PDF").click()
        all_pages = _pages(Path(every.value.path()))
        form.get_by_label("不打印基本法力石").check()
        with page.expect_download() as lean:
            form.get_by_role("button", name="打印代理 PDF").click()
        assert lean.value.suggested_filename == "proxies.pdf"
        assert _pages(Path(lean.value.path())) == 6 < all_pages  # 48 cards without the stones
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_paste_a_want_list_fix_the_bad_line_and_see_what_is_missing(
    browser: Browser, live_server: str, alice: int, width: int
) -> None:
    page = new_page(browser, width)
    try:
        sign_in(page, live_server)
        page.goto(live_server + "/wants")
        expect(page.locator("details.bulk-wants")).to_have_attribute("open", "")  # open on an empty list
        assert_fits(page, width)
        page.get_by_label("卡牌列表").fill("3 小红帽·森林歌者\n2 小红帽狼猎手X\n")
        page.get_by_role("button", name="全部加入需求列表").click()
        expect(page.locator("#bulk-problems")).to_contain_text("第 2 行")
        expect(page.locator("table.wants")).to_have_count(0)  # nothing was added
        assert_fits(page, width)
        expect(page.get_by_label("卡牌列表")).to_have_value("3 小红帽·森林歌者\n2 小红帽狼猎手X\n")
        page.get_by_label("卡牌列表").fill("3 小红帽·森林歌者\n2 小红帽·狼猎手\n")
        page.get_by_role("button", name="全部加入需求列表").click()
        expect(page.locator(".flashes")).to_contain_text("2 种卡，共 5 张")
        rows = page.locator("table.wants tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.filter(has_text="小红帽·森林歌者").locator("td.missing")).to_have_text("3")
        assert_fits(page, width)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_pick_a_time_zone_and_the_history_follows(
    browser: Browser, live_server: str, sample_app, alice: int, width: int
) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, grade=NM, delta=1, reason="manual", now=NOW)
    page = new_page(browser, width, javascript=False)
    try:
        sign_in(page, live_server)
        page.goto(live_server + "/collection/history")
        expect(page.locator("main table")).to_contain_text("2026-06-01 20:00")  # Asia/Shanghai, the default
        page.goto(live_server + "/account")
        assert_fits(page, width)
        zone = page.get_by_role("combobox", name="时区")
        expect(zone).to_have_value("Asia/Shanghai")
        zone.fill("Mars/Olympus")
        page.locator("form[action='/account/time-zone']").get_by_role("button", name="保存").click()
        expect(page.locator(".form-error")).to_contain_text("未知的时区")
        assert_fits(page, width)
        page.get_by_role("combobox", name="时区").fill("Europe/London")
        page.locator("form[action='/account/time-zone']").get_by_role("button", name="保存").click()
        expect(page.locator(".flashes")).to_contain_text("Europe/London")
        page.goto(live_server + "/collection/history")
        expect(page.locator("main table")).to_contain_text("2026-06-01 13:00")  # British summer time
        expect(page.locator("main table thead")).to_contain_text("Europe/London")
        assert_fits(page, width)
    finally:
        page.context.close()

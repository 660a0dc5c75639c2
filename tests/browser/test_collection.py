"""The collection in a real browser (CSRF on): fill in a set checklist, watch completion move, +1."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect
from sqlmodel import Session

from tests.conftest import TEST_PASSWORD
from tests.kits.browser import open_page
from webapp.db import get_engine


def test_checklist_completion_and_plus_one(browser: Browser, live_server: str, sample_app, make_user) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "alice")
    page = open_page(browser)
    try:
        page.goto(live_server + "/login")
        page.get_by_label("用户名").fill("alice")
        page.get_by_label("密码").fill(TEST_PASSWORD)
        page.get_by_role("button", name="登录").click()
        page.get_by_role("navigation", name="账号").get_by_role("link", name="我的收藏").click()
        expect(page).to_have_url(live_server + "/collection")
        expect(page.locator(".empty-collection")).to_contain_text("你的收藏还是空的")

        page.get_by_role("link", name="系列完成度").first.click()
        row = page.locator('tr[data-set="M4"]')
        expect(row.locator(".ratio").first).to_have_text("0 / 45")
        row.get_by_role("link", name="M4", exact=True).click()
        expect(page).to_have_url(live_server + "/collection/sets/samsara/M4")

        # Type fast: a number, Tab to the next card (its field's text is selected), a number.
        first = page.locator('li[data-number="M4-001"] input.quantity-input')
        first.fill("2")
        page.keyboard.press("Tab")
        expect(page.locator('li[data-number="M4-002"] input.quantity-input')).to_be_focused()
        page.keyboard.type("1")
        page.get_by_role("button", name="保存").click()
        expect(page.locator(".checklist-changes h2")).to_have_text("已保存 2 处更改")
        expect(page.locator("[data-completion]")).to_have_text("2 / 45")
        expect(page.locator('li[data-number="M4-002"] input.quantity-input')).to_have_value("1")

        page.goto(live_server + "/collection/sets?game=samsara")
        expect(page.locator('tr[data-set="M4"] .ratio').first).to_have_text("2 / 45")

        page.goto(live_server + "/collection")
        item = page.locator("tr[data-printing]", has_text="M4-001")
        expect(item.locator(".quantity")).to_have_text("2")
        item.get_by_role("button", name=re.compile(r"^\+1")).click()
        expect(page).to_have_url(live_server + "/collection")
        expect(page.locator(".flashes")).to_contain_text("已加入收藏：小红帽·森林歌者（M4 M4-001） ×1")
        expect(page.locator("tr[data-printing]", has_text="M4-001").locator(".quantity")).to_have_text("3")
        expect(page.locator('[data-total="cards"]')).to_have_text("4")
    finally:
        page.context.close()


def test_plus_and_minus_on_a_card_page_without_reloading(
    browser: Browser,
    live_server: str,
    sample_app,
    make_user,
) -> None:
    """With JavaScript the card page's +1/−1 post in the background and update "我有 N 张";
    a refused change (the page was stale) shows the reason and keeps the count."""
    from urllib.parse import quote

    from catalog.collection.ledger import adjust
    from tests.kits.collection import NOW, owned, printing_id

    engine = get_engine(sample_app)
    with Session(engine) as session, session.begin():
        alice = make_user(session, "alice").id
        pid = printing_id(session, "M4", "M4-001")
    page = open_page(browser)
    try:
        page.goto(live_server + "/login")
        page.get_by_label("用户名").fill("alice")
        page.get_by_label("密码").fill(TEST_PASSWORD)
        page.get_by_role("button", name="登录").click()
        page.goto(live_server + "/cards/samsara/" + quote("小红帽·森林歌者"))
        url = page.url
        form = page.locator("form.collection-buttons").filter(has=page.locator(f'input[value="{pid}"]'))
        count = form.locator(".owned-count")
        expect(count).to_have_text("我有 0 张")
        form.get_by_role("button", name=re.compile("收藏一张")).click()
        expect(count).to_have_text("我有 1 张")
        form.get_by_role("button", name=re.compile("收藏一张")).click()
        expect(count).to_have_text("我有 2 张")
        assert page.url == url and page.locator(".flashes").count() == 0  # no reload
        with Session(engine) as session:
            assert owned(session, alice, pid) == (2, 0)

        # Meanwhile both copies go (another tab, a trade…): the page still says 2.
        with Session(engine) as session, session.begin():
            adjust(session=session, user_id=alice, printing_id=pid, delta=-2, reason="manual", now=NOW)
        form.get_by_role("button", name=re.compile("从收藏移出")).click()
        expect(form.locator(".collection-error")).to_contain_text("不能")
        expect(count).to_have_text("我有 2 张")
        with Session(engine) as session:
            assert owned(session, alice, pid) == (0, 0)
    finally:
        page.context.close()

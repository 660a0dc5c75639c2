"""Want a card from its page, see it on the want list, make the lists public and read them as an
anonymous visitor: a real browser, CSRF on, with and without JavaScript."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from tests.kits.browser import open_page
from webapp.db import get_engine

PASSWORD = "correct horse battery"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_want_a_card_and_share_the_lists(
    browser: Browser,
    live_server: str,
    sample_app,
    make_user,
    javascript: bool,
) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "悟空", password=PASSWORD)
    page = open_page(browser, javascript=javascript)
    visitor = open_page(browser, javascript=javascript)
    try:
        page.goto(live_server + "/login")
        page.get_by_label("用户名").fill("悟空")
        page.get_by_label("密码").fill(PASSWORD)
        page.get_by_role("button", name="登录").click()
        expect(page.get_by_role("navigation", name="账号").get_by_role("link", name="悟空")).to_be_visible()

        page.goto(live_server + "/cards/samsara/小红帽·狼猎手")
        want = page.locator("form.want-form")
        want.get_by_label("印刷").select_option(label="M4 M4-002")
        want.get_by_label("数量").fill("2")
        want.get_by_label("最差品相").select_option("LP")
        want.get_by_role("button", name="加入需求列表").click()
        expect(page.locator(".flashes")).to_contain_text("已加入需求列表")
        expect(page).to_have_url(re.compile(r"/cards/samsara/"))

        account = page.get_by_role("navigation", name="账号")
        account.get_by_role("link", name="悟空").hover()  # the account menu opens on hover
        account.get_by_role("link", name="需求列表").click()
        expect(page).to_have_url(live_server + "/wants")
        row = page.locator("table.wants tbody tr")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("小红帽·狼猎手")
        expect(row).to_contain_text("M4-002")
        expect(row.get_by_label("「小红帽·狼猎手」的数量")).to_have_value("2")

        # Not public yet: a visitor gets the "not public" page.
        visitor.goto(live_server + "/u/悟空")
        expect(visitor.get_by_role("heading", level=1)).to_have_text("这个用户的列表不公开")

        page.goto(live_server + "/account")
        page.get_by_label("公开我的收藏与求购列表（个人主页可见）").check()
        page.locator("form", has=page.get_by_label("公开我的收藏与求购列表（个人主页可见）")).get_by_role(
            "button", name="保存"
        ).click()
        expect(page.locator(".flashes")).to_contain_text("已公开")

        visitor.goto(live_server + "/u/悟空")
        expect(visitor.get_by_role("heading", level=1)).to_have_text("悟空 的交换与需求列表")
        wants = visitor.locator("table.wants")
        expect(wants).to_contain_text("小红帽·狼猎手")
        expect(wants).to_contain_text("M4-002")
        expect(wants).to_contain_text("LP")
        expect(visitor.get_by_role("navigation", name="账号").get_by_role("link", name="登录")).to_be_visible()
    finally:
        page.context.close()
        visitor.context.close()

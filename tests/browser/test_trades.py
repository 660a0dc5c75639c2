"""The trading journey in a browser: alice finds bob on the matches page, proposes, bob counters (at
phone width, without JavaScript), alice accepts; both collections show the cards moved and
the ledger shows "交易 #id". CSRF is on, as in production."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect
from sqlmodel import Session

from catalog.collection.ledger import adjust
from catalog.collection.wants import set_want
from catalog.models import Printing
from tests.kits.browser import open_page
from tests.kits.collection import NOW, printing_id
from webapp.db import get_engine

PASSWORD = "correct horse battery"


def sign_in(page, server: str, name: str) -> None:
    page.goto(server + "/login")
    page.get_by_label("用户名").fill(name)
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录").click()
    expect(page.get_by_role("navigation", name="账号").get_by_role("link", name=name)).to_be_visible()


def test_alice_and_bob_find_each_other_and_swap(
    browser: Browser,
    live_server: str,
    sample_app,
    make_user,
) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        alice = make_user(session, "alice", password=PASSWORD, lists_public=True).id
        bob = make_user(session, "bob", password=PASSWORD, lists_public=True).id
        singer, hunter = printing_id(session, "M4", "M4-001"), printing_id(session, "M4", "M4-002")
        adjust(session=session, user_id=alice, printing_id=singer, delta=3, trade_delta=2, reason="manual", now=NOW)
        adjust(session=session, user_id=bob, printing_id=hunter, delta=1, trade_delta=1, reason="manual", now=NOW)
        for who, pid in ((alice, hunter), (bob, singer)):
            card = session.get(Printing, pid)
            assert card is not None
            set_want(session=session, user_id=who, card_id=card.card_id, quantity=2, now=NOW)
    page = open_page(browser)
    phone = open_page(browser, javascript=False, width=390)
    try:
        sign_in(page, live_server, "alice")
        page.get_by_role("navigation", name="主导航").get_by_role("link", name=re.compile("^交易")).click()
        page.get_by_role("link", name="寻找交易伙伴").click()
        match = page.locator(".trade-matches li", has_text="bob")
        expect(match).to_contain_text("对方能给你 1 张，你能给对方 2 张")
        match.get_by_role("link", name="用这些卡发起报价").click()
        expect(page.get_by_label("小红帽·狼猎手 的数量")).to_have_value("1")
        expect(page.get_by_label("小红帽·森林歌者 的数量")).to_have_value("2")
        page.get_by_label("小红帽·森林歌者 的数量").fill("1")  # alice offers one for one first
        page.get_by_role("button", name="发出报价").click()
        expect(page.locator(".flashes")).to_contain_text("报价已发出")
        trade_id = int(page.url.rsplit("/", 1)[1])

        sign_in(phone, live_server, "bob")
        expect(phone.locator(".nav-badge")).to_have_text("1")
        phone.goto(live_server + "/trades")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # the inbox too
        phone.get_by_role("link", name=f"交易 #{trade_id}").click()
        phone.get_by_role("link", name="还价 / 修改").click()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # the composer fits a phone
        # exactly what the new version may take: bob's one copy, not 1 + the 1 asked
        expect(phone.get_by_label("小红帽·狼猎手 的数量")).to_have_attribute("max", "1")
        expect(phone.get_by_label("小红帽·森林歌者 的数量")).to_have_attribute("max", "2")
        phone.get_by_label("小红帽·森林歌者 的数量").fill("2")  # bob wants both for-trade copies
        phone.get_by_role("button", name="发出还价").click()
        expect(phone.locator(".flashes")).to_contain_text("还价已发出")
        expect(phone.get_by_role("heading", level=1)).to_contain_text("已还价")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling

        page.reload()
        page.get_by_role("button", name="接受第 2 版").click()
        expect(page.locator(".flashes")).to_contain_text("已接受")
        expect(page.get_by_role("heading", level=1)).to_contain_text("已完成")
        expect(page.locator(".trade-timeline")).to_contain_text("bob：还价")

        page.goto(live_server + "/collection/history")
        expect(page.locator("table").first).to_contain_text(f"交易 #{trade_id}")
        page.goto(live_server + "/collection")
        expect(page.locator("main")).to_contain_text("小红帽·狼猎手")
        phone.goto(live_server + "/collection/history")
        expect(phone.locator("main")).to_contain_text(f"交易 #{trade_id}")
        phone.goto(live_server + "/collection")
        expect(phone.locator("main")).to_contain_text("小红帽·森林歌者")
    finally:
        page.context.close()
        phone.context.close()
    from tests.kits.collection import owned

    with Session(get_engine(sample_app)) as session:
        assert owned(session, alice, singer) == (1, 0) and owned(session, bob, singer) == (2, 0)
        assert owned(session, alice, hunter) == (1, 0) and owned(session, bob, hunter) == (0, 0)

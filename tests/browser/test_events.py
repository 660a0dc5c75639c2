"""A player on a phone (390 px, with and without JavaScript) finds their table on the public
event page and reports the result; the organiser confirms it on the dashboard (CSRF on)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from catalog.events import registration as reg
from catalog.events import running
from tests.kits.browser import open_page
from tests.kits.event import NOW, make_event, staff_store
from webapp.db import get_engine

PASSWORD = "correct horse battery"
PLAYERS = ["阿明", "白露", "陈晨", "丁一", "鄂尔"]


def _sign_in(page, live_server: str, name: str) -> None:
    page.goto(live_server + "/login")
    page.get_by_label("用户名").fill(name)
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录").click()
    expect(page.get_by_role("navigation", name="账号").get_by_role("link", name=name)).to_be_visible()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_phone_finds_its_table_and_reports(
    browser: Browser,
    live_server: str,
    sample_app,
    make_user,
    javascript: bool,
) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        shop = make_user(session, "shop", role="organizer", password=PASSWORD)
        event = make_event(session, organizer_id=shop.id)
        staff_store(session, event.store, "shop")
        users = {name: make_user(session, name, password=PASSWORD) for name in PLAYERS}
        for name, user in users.items():
            reg.register_player(session=session, event=event, player_name=name, now=NOW, user_id=user.id)
        _round, tables = running.pair_next_round(session=session, event=event, seed=11, now=NOW)
        event_id = event.id
        names = {r.id: r.player_name for r in reg.registrations(session=session, event=event)}
        seated = next(m for m in tables if m.player_b_id is not None)
        player, table = names[seated.player_a_id], seated.table_number
    phone = browser.new_context(java_script_enabled=javascript, viewport={"width": 390, "height": 844}).new_page()
    desk = open_page(browser, javascript=javascript)
    try:
        _sign_in(phone, live_server, player)
        phone.locator("label.menu-button").click()  # a phone's links are behind the menu button
        phone.get_by_role("navigation", name="主导航").get_by_role("link", name="赛事").click()
        phone.get_by_role("link", name="十一月月赛").click()
        expect(phone).to_have_url(live_server + f"/events/{event_id}")
        expect(phone.locator(".my-table")).to_contain_text(f"你在第 {table} 桌")
        expect(phone.locator(f"#table-{table}")).to_contain_text(player)
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        form = phone.locator("form.report-form")
        form.locator("input[name=wins_a]").fill("2")
        form.locator("input[name=wins_b]").fill("1")
        form.get_by_role("button", name="提交结果").click()
        expect(phone.locator(".flashes")).to_contain_text("结果已提交，等待主办者确认")

        _sign_in(desk, live_server, "shop")
        desk.goto(live_server + f"/events/{event_id}/manage")
        desk.get_by_role("button", name="确认").click()
        expect(desk.locator(".flashes")).to_contain_text("结果已确认")
        phone.reload()
        expect(phone.locator(f"#table-{table}")).to_contain_text(re.compile(r"2-1-0"))
    finally:
        phone.context.close()
        desk.context.close()

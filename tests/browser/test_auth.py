"""Register, sign out, sign in and create a token in a real browser, with CSRF protection on."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.kits.browser import open_page

PASSWORD = "correct horse battery"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_register_logout_login(browser: Browser, live_server: str, javascript: bool) -> None:
    page = open_page(browser, javascript=javascript)
    try:
        page.goto(live_server + "/cards?q=swk")
        account_nav = page.get_by_role("navigation", name="账号")
        account_nav.get_by_role("link", name="注册").click()
        page.get_by_label("用户名").fill("悟空")
        page.get_by_label("密码", exact=True).fill(PASSWORD)
        page.get_by_label("再次输入密码").fill(PASSWORD)
        page.get_by_role("button", name="注册").click()

        expect(page).to_have_url(live_server + "/account")
        expect(page.locator(".flashes")).to_contain_text("注册成功")
        expect(account_nav.get_by_role("link", name="悟空")).to_be_visible()

        page.get_by_label("令牌名称（可选，例如“手机”）").fill("脚本")
        page.get_by_label("当前密码").fill(PASSWORD)
        page.get_by_role("button", name="创建令牌").click()
        token = page.locator(".token-value").inner_text()
        assert re.fullmatch(r"lz_[A-Za-z0-9_-]{40,}", token)
        page.get_by_role("button", name=re.compile("吊销令牌")).click()
        expect(page.locator("table.tokens")).to_contain_text("已吊销")

        account_nav.get_by_role("link", name="悟空").hover()  # the account menu opens on hover
        account_nav.get_by_role("button", name="退出").click()
        expect(page.locator(".flashes")).to_contain_text("已退出登录")
        expect(account_nav.get_by_role("link", name="登录")).to_be_visible()

        # A search page's sign-in link comes back to the search after signing in.
        page.goto(live_server + "/cards?q=swk")
        account_nav.get_by_role("link", name="登录").click()
        page.get_by_label("用户名").fill("悟空")
        page.get_by_label("密码").fill("wrong password")
        page.get_by_role("button", name="登录").click()
        expect(page.locator(".form-error")).to_have_text("用户名或密码不正确")
        page.get_by_label("密码").fill(PASSWORD)
        page.get_by_role("button", name="登录").click()
        expect(page).to_have_url(re.compile(r"/cards\?q=swk$"))
        expect(account_nav.get_by_role("link", name="悟空")).to_be_visible()

        # The search results' + button (a POST form) carries its token too.
        page.locator("form.deck-buttons").first.get_by_role("button", name=re.compile("加入一张")).click()
        expect(page.locator("form.deck-buttons").first.locator(".deck-copies")).to_contain_text("1")
    finally:
        page.context.close()

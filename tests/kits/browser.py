"""Browser pages (a fresh context per page) and the layout checks at phone and desktop widths."""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from tests.conftest import TEST_PASSWORD

DESKTOP = 1366
PHONE = 390
WIDTHS = [PHONE, DESKTOP]
# The header's height limit: one line on a desktop; brand, menu button and search box on a phone.
HEADER_LIMIT = {DESKTOP: 72, PHONE: 110}


def open_page(browser: Browser, *, javascript: bool = True, width: int = 1280) -> Page:
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def new_page(browser: Browser, width: int, *, javascript: bool = True) -> Page:
    height = 844 if width == PHONE else 900
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def sign_in(page: Page, base: str, username: str = "alice", password: str = TEST_PASSWORD) -> None:
    page.goto(base + "/login")
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(password)
    page.locator("main").get_by_role("button", name="登录").click()
    page.wait_for_url(lambda url: "/login" not in url)


def assert_fits(page: Page, width: int) -> None:
    """Nothing scrolls sideways and the header stays under its limit."""
    page.wait_for_load_state("load")  # the stylesheets are in (a redirect's page may still be loading)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{page.url}: {overflow} px of horizontal overflow at {width} px"
    height = page.evaluate("document.querySelector('.site-header').getBoundingClientRect().height")
    assert height <= HEADER_LIMIT[width], f"{page.url}: header {height} px high at {width} px"

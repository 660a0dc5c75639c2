"""In a real browser at 390 px and 1366 px: the card page in two columns
on a desktop and one on a phone, its forms without JS, and the set page's image grid."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from tests.kits.browser import DESKTOP, WIDTHS, assert_fits, new_page, sign_in
from webapp.db import get_engine

CARD = "/cards/samsara/" + quote("龙人豪杰·赤鳞")  # printed in M1, reprinted in G2


@pytest.fixture
def alice(sample_app, make_user) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "alice")


@pytest.mark.parametrize("width", WIDTHS)
def test_card_page_two_columns_on_desktop_one_on_a_phone(browser: Browser, live_server: str, width: int) -> None:
    page = new_page(browser, width, javascript=False)
    try:
        for lang in ("zh", "en"):
            page.goto(live_server + CARD + f"?lang={lang}")
            assert_fits(page, width)
            image = page.locator(".card-image img").bounding_box()
            main = page.locator(".card-main").bounding_box()
            title = page.get_by_role("heading", level=1).bounding_box()
            assert image and main and title
            if width == DESKTOP:
                # the face on the left, name and details beside it, starting at the top
                assert image["x"] + image["width"] <= main["x"] and image["x"] + image["width"] <= title["x"]
                assert abs(title["y"] - image["y"]) < 60
                assert page.locator(".card-legality").bounding_box()["x"] == main["x"]
            else:
                # one column: name, face, then the details below it, none wider than the screen
                assert title["y"] < image["y"] and image["y"] + image["height"] <= main["y"]
                assert main["x"] + main["width"] <= width
            for part in (".legality", ".card-actions", "table.printings"):
                box = page.locator(part).first.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, part
        expect(page.locator("table.legality tr[data-format=m8] .legality-status")).to_have_text("Legal")
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_card_page_forms_work_without_js(browser: Browser, live_server: str, alice, width: int) -> None:
    page = new_page(browser, width, javascript=False)
    try:
        page.goto(live_server + CARD)
        actions = page.locator(".card-actions")
        expect(actions.get_by_role("link", name="登录")).to_be_visible()
        sign_in(page, live_server)
        page.goto(live_server + CARD)
        assert_fits(page, width)
        # another printing's face, from the prints list
        page.locator("table.printings").get_by_role("link", name="看这张卡图").click()
        expect(page.locator(".card-image figcaption")).to_contain_text("G2 G2-001")
        expect(page.locator(".card-image img")).to_have_attribute("src", re.compile(r"/G2/G2-001\."))
        # add to the deck being built, to the collection (the shown printing preselected), to wants
        actions.get_by_role("button", name="加入卡组").click()
        expect(actions.locator(".deck-copies")).to_have_text("卡组中 1 张")
        expect(page.locator("#collection-printing option:checked")).to_have_text("G2 G2-001")
        page.locator("#collection-delta").fill("2")
        actions.get_by_role("button", name="加入收藏").click()
        expect(page.locator(".flashes li").first).to_contain_text("已加入收藏：龙人豪杰·赤鳞（G2 G2-001） ×2")
        expect(page.locator("table.printings tr", has_text="G2-001").locator(".owned-count")).to_have_text("我有 2 张")
        actions.get_by_role("button", name="加入需求列表").click()
        expect(page.locator(".flashes li").first).to_contain_text("已加入需求列表")
        assert_fits(page, width)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_set_page_image_grid_without_js(browser: Browser, live_server: str, width: int) -> None:
    page = new_page(browser, width, javascript=False)
    try:
        page.goto(live_server + "/sets/samsara/M4")
        page.get_by_role("navigation", name="显示方式").get_by_role("link", name="卡图网格").click()
        expect(page).to_have_url(live_server + "/sets/samsara/M4?view=grid")
        assert_fits(page, width)
        faces = page.locator(".set-grid img")
        expect(faces).to_have_count(45)
        expect(faces.first).to_have_attribute("loading", "lazy")
        # the first row is drawn: a real image, as wide as its cell
        first = faces.first
        first.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('.set-grid img').complete")
        assert first.evaluate("img => img.naturalWidth") > 0
        boxes = [faces.nth(i).bounding_box() for i in range(3)]
        assert all(b and b["x"] >= 0 and b["x"] + b["width"] <= width for b in boxes)
        assert boxes[0]["y"] == boxes[1]["y"] == boxes[2]["y"]  # at least three faces a row, on a phone too
        first.click()
        expect(page.get_by_role("heading", level=1)).to_have_text("小红帽·森林歌者")
    finally:
        page.context.close()

"""In a real browser at 390 px and 1366 px: the header, the collection and
the tables on a phone, success messages, readable controls on search tiles."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from tests.kits.browser import DESKTOP, PHONE, WIDTHS, assert_fits, new_page, sign_in
from webapp.db import get_engine


@pytest.fixture
def alice(sample_app, make_user) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "alice")


@pytest.mark.parametrize("width", WIDTHS)
def test_header_one_line_on_desktop_menu_on_a_phone(browser: Browser, live_server: str, alice, width: int) -> None:
    page = new_page(browser, width, javascript=False)  # the menu must open without JS
    try:
        sign_in(page, live_server)
        for lang in ("zh", "en"):
            page.goto(live_server + f"/collection?lang={lang}")
            assert_fits(page, width)
            nav = page.locator("nav.site-nav")
            sets = nav.locator("a", has_text="系列" if lang == "zh" else "Sets")
            account = page.locator("nav.account-nav")
            if width == DESKTOP:
                # every main link and the account on the same line as the brand
                tops = page.evaluate(
                    "[...document.querySelectorAll('.brand, .site-nav li:not(.home-link) a, .site-search, "
                    ".account-nav .account-name')].map(e => Math.round(e.getBoundingClientRect().top + "
                    "e.getBoundingClientRect().height / 2))"
                )
                assert max(tops) - min(tops) <= 6, tops
                expect(sets).to_be_visible()
                expect(account.locator(".account-name")).to_have_text("alice")
            else:
                expect(sets).to_be_hidden()
                expect(page.locator("#site-search-q")).to_be_visible()
                page.locator("label.menu-button").click()
                expect(sets).to_be_visible()
                expect(account.get_by_role("link", name="我的卡组" if lang == "zh" else "My decks")).to_be_visible()
        sets.click()
        expect(page).to_have_url(live_server + "/sets")
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_collection_sets_and_search_table_fit_with_every_control_on_screen(
    browser: Browser,
    live_server: str,
    alice,
    width: int,
) -> None:
    page = new_page(browser, width)
    try:
        sign_in(page, live_server)
        # the welcome is a success, not an error (item 3)
        flash = page.locator(".flashes li").first
        expect(flash).to_have_class("flash flash-success")
        assert page.evaluate("getComputedStyle(document.querySelector('.flashes li')).backgroundColor") == (
            "rgb(230, 244, 234)"
        )
        page.goto(live_server + "/cards?q=" + quote("孙悟空"))
        tile = page.locator(".tile", has=page.locator(".tile-name", has_text=re.compile(r"^孙悟空$")))
        # item 4: the controls sit under the card on white, not on the coloured frame
        card_box = tile.locator(".tile-link").bounding_box()
        deck_box = tile.locator(".deck-buttons").bounding_box()
        assert card_box and deck_box and deck_box["y"] >= card_box["y"] + card_box["height"]
        colours = page.evaluate(
            "['.deck-buttons', '.collection-buttons'].map(s => getComputedStyle(document.querySelector('.tile ' + s))"
            ".backgroundColor)"
        )
        assert colours == ["rgb(255, 255, 255)", "rgb(255, 255, 255)"]
        tile.get_by_role("button", name="+1 收藏一张「孙悟空」（P2-008）").click()
        expect(tile.locator(".owned-count")).to_have_text("我有 1 张")

        # item 1: the collection row keeps name, quantity, −1/+1 and for-trade on screen
        page.goto(live_server + "/collection")
        assert_fits(page, width)
        row = page.locator("tr[data-printing]").first
        for part in (
            row.locator("a", has_text="孙悟空"),
            row.get_by_role("button", name="+1 孙悟空"),
            row.locator(".quantity"),
            row.locator("input[name=for_trade]"),
        ):
            box = part.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, part
        name_box = row.locator("a", has_text="孙悟空").bounding_box()
        assert name_box and name_box["height"] < 40  # one line, not a character per line
        row.get_by_role("button", name="+1 孙悟空").click()
        expect(page.locator("tr[data-printing]").first.locator(".quantity")).to_have_text("2")

        # item 9: the main game first
        page.goto(live_server + "/collection/sets")
        assert_fits(page, width)
        expect(page.locator("main h2").first).to_have_text("永恒之轮")

        # the set table and the search table: rarity and stats stay on screen
        for path in ("/sets/samsara/M4", "/cards?view=table&q=" + quote("t:战魂 a:火")):
            page.goto(live_server + path)
            assert_fits(page, width)
            first = page.locator("table.printings tbody tr").first
            for cell in (first.locator(".rarity"), first.locator("td.num").last):
                box = cell.bounding_box()
                assert box and box["x"] + box["width"] <= width, (path, cell)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_one_result_goes_to_the_card_and_random_obeys_the_game(browser: Browser, live_server: str, width: int) -> None:
    page = new_page(browser, width, javascript=False)
    try:
        page.goto(live_server + "/sets")
        assert_fits(page, width)
        # item 9: the main game first
        expect(page.locator("main h2").first).to_contain_text("永恒之轮")
        box = page.locator("#site-search-q")
        box.fill("四海龙王")
        box.press("Enter")
        expect(page).to_have_url(live_server + "/cards/longzhiyi/" + quote("四海龍王"))
        expect(page.get_by_role("heading", level=1)).to_have_text("四海龍王")
        assert_fits(page, width)
        page.goto(live_server + "/random?game=keyforge")
        expect(page).to_have_url(re.compile(r"/cards/keyforge/"))
        page.goto(live_server + "/random?game=samsara&q=" + quote("t:载具"))
        expect(page).to_have_url(re.compile(r"/cards/samsara/"))
        expect(page.locator(".type-line")).to_contain_text("载具")
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_deck_plus_keeps_the_place_and_merges_lines(
    browser: Browser,
    live_server: str,
    sample_app,
    width: int,
    javascript: bool,
) -> None:
    page = new_page(browser, width, javascript=javascript)
    try:
        page.goto(live_server + "/cards?q=" + quote("t:战魂 a:火"))
        tile = page.locator(".tile").nth(30)  # well down the page
        plus = tile.locator(".deck-buttons").get_by_role("button", name=re.compile("^加入一张"))
        plus.scroll_into_view_if_needed()
        before = page.evaluate("window.scrollY")
        assert before > 300
        plus.click()
        expect(tile.locator(".deck-copies")).to_have_text("卡组中 1 张")
        if javascript:
            assert page.evaluate("window.scrollY") == before  # updated in place, no reload
        else:
            expect(page).to_have_url(re.compile(r"#hit-\d+$"))  # back at the card
        expect(tile).to_be_in_viewport()
        plus.click()
        expect(tile.locator(".deck-copies")).to_have_text("卡组中 2 张")
        name = tile.locator(".tile-name").inner_text()
        page.goto(live_server + "/decks")
        text = page.get_by_label("卡组列表").input_value()
        assert text.count(name) == 1 and f"2 {name}" in text  # one line of 2, not two lines of 1
        assert_fits(page, width)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_names_for_people_and_english_words(browser: Browser, live_server: str, sample_catalogue, width: int) -> None:
    """Items 11 and 18: no rule codes or format codes in the verdict; English pages in English."""
    small = "名称: 小\n主卡组:\n3 孙悟空\n"
    page = new_page(browser, width, javascript=False)
    try:
        page.goto(live_server + "/decks?" + urlencode({"game": "samsara", "list": small, "lang": "zh"}))
        assert_fits(page, width)
        facts = page.locator(".verdict-facts")
        expect(facts).to_contain_text("永恒之轮 · 标准")
        violation = page.locator('li[data-code="main_too_small"]')
        expect(violation).to_be_visible()
        assert "main_too_small" not in violation.inner_text() and "standard" not in facts.inner_text()

        page.goto(live_server + "/decks?" + urlencode({"game": "samsara", "list": small, "lang": "en"}))
        expect(page.locator(".verdict-facts")).to_contain_text("Eternal Samsara · Standard")
        page.goto(live_server + "/cards/samsara/" + quote("孙悟空") + "?lang=en")
        expect(page.locator(".type-line")).to_have_text("Soul")
        expect(page.locator(".breadcrumbs")).to_contain_text("Eternal Samsara")
        expect(page.get_by_role("heading", level=1)).to_have_text("孙悟空")  # card data as written
        page.goto(live_server + "/?lang=en")
        expect(page.locator("#games-heading")).to_have_text("Games")
        page.goto(live_server + "/rules/samsara?lang=zh")
        expect(page.locator("main")).not_to_contain_text("000_3f4769f9eb2a054d.txt")
    finally:
        page.context.close()


def test_haves_show_stars_and_checklist_fields_select_on_focus(browser: Browser, live_server: str, alice) -> None:
    """Item 17: 龍之弈 rarity as ★★★★, and typing 3 into a "0" field gives 3."""
    page = new_page(browser, PHONE)
    try:
        sign_in(page, live_server)
        page.goto(live_server + "/collection/sets/longzhiyi/LZ1")
        field = page.locator("input.quantity-input").first
        expect(field).to_have_value("0")
        field.click()
        page.keyboard.type("3")
        expect(field).to_have_value("3")
        page.get_by_role("button", name="保存").click()
        page.goto(live_server + "/collection")
        row = page.locator("tr[data-printing]").first
        row.locator("input[name=for_trade]").fill("1")
        row.get_by_role("button", name="保存").click()
        expect(page.locator(".flashes")).to_be_visible()  # posted in place: wait for it
        page.goto(live_server + "/haves")
        rarity = page.locator("table .rarity").first
        expect(rarity).to_contain_text("★")
        assert_fits(page, PHONE)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_undo_of_an_import_asks_first(browser: Browser, live_server: str, alice, width: int, tmp_path) -> None:
    """Item 16: 撤销 leads to a question page (no JS needed); only its button undoes."""
    csv = tmp_path / "mine.csv"
    csv.write_text("set,number,quantity\nM4,M4-001,2\n", encoding="utf-8")
    page = new_page(browser, width, javascript=False)
    try:
        sign_in(page, live_server)
        page.goto(live_server + "/collection/import")
        page.locator("input[type=file]").set_input_files(str(csv))
        page.get_by_role("button", name="预览").click()
        page.get_by_role("button", name="确认导入").click()
        page.goto(live_server + "/collection/imports")
        page.locator("a.undo-link").first.click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("撤销导入")
        assert_fits(page, width)
        page.get_by_role("link", name="不撤销，返回").click()
        expect(page.locator("a.undo-link")).to_have_count(1)  # nothing undone
        page.locator("a.undo-link").first.click()
        page.get_by_role("button", name="确认撤销").click()
        expect(page.locator(".flash-success")).to_contain_text("已撤销导入")
        expect(page.locator("a.undo-link")).to_have_count(0)
    finally:
        page.context.close()

"""At 390 and 1366 px, in Chinese and English: the want and have lists, the search
key table and the collection page fit the screen (tables become stacked cards on a phone, no
cell squeezed to a character a line); the collection's sub-navigation and filters are thumb-sized
(≥ 44 px); a single opened pack shows its cards at the box view's size.

One browser, one signed-in page per width, each page loaded once per language.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from tests.kits.browser import PHONE, WIDTHS, assert_fits, new_page, sign_in
from webapp.db import get_engine

PAGES = ["/wants", "/haves", "/help/search", "/collection"]

# Cells narrower than two characters of their own font whose text wraps onto three lines or more:
# a name one character a line, as /wants showed at 390 px (a short code or badge may be narrow).
SQUEEZED = """() => [...document.querySelectorAll('main td, main th')]
  .filter(cell => cell.offsetParent !== null && cell.innerText.trim().length >= 2)
  .filter(cell => !cell.closest('thead') || getComputedStyle(cell.closest('thead')).position !== 'absolute')
  .filter(cell => {
    const style = getComputedStyle(cell), size = parseFloat(style.fontSize);
    const line = parseFloat(style.lineHeight) || 1.5 * size, box = cell.getBoundingClientRect();
    const inner = box.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    return box.width < 2 * size && inner > 2.5 * line;
  })
  .map(cell => cell.innerText.trim().slice(0, 20))"""


def _seed(sample_app, make_user) -> None:
    from catalog.collection.ledger import DEFAULT_GRADE, adjust
    from catalog.collection.wants import set_want
    from catalog.models import Printing
    from tests.kits.collection import NOW, printing_id

    with Session(get_engine(sample_app)) as session, session.begin():
        alice = make_user(session, "alice").id
        for number, quantity, trade in (("M4-001", 3, 2), ("M4-002", 1, 0)):
            pid = printing_id(session, "M4", number)
            adjust(session=session, user_id=alice, printing_id=pid, grade=DEFAULT_GRADE, delta=quantity,
                   trade_delta=trade, reason="manual", now=NOW)  # fmt: skip
        card_id = session.get(Printing, printing_id(session, "M4", "M4-003")).card_id
        set_want(session=session, user_id=alice, card_id=card_id, quantity=2, min_condition="LP", now=NOW)


def _tall_enough(page: Page, selector: str) -> list[str]:
    return page.eval_on_selector_all(
        selector,
        "els => els.filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)"
        ".map(e => (e.name || e.innerText || e.tagName).slice(0, 20) + ' ' + e.getBoundingClientRect().height)",
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_tables_fit_and_targets_are_thumb_sized(
    browser: Browser, live_server: str, sample_app, make_user, width: int
) -> None:
    _seed(sample_app, make_user)
    page = new_page(browser, width)
    try:
        sign_in(page, live_server)
        for language in ("zh", "en"):
            for path in PAGES:
                page.goto(f"{live_server}{path}?lang={language}")
                assert_fits(page, width)
                assert page.evaluate(SQUEEZED) == [], f"{path} ({language}, {width} px): squeezed cells"
                wide = page.eval_on_selector_all(
                    "main table",
                    f"ts => ts.filter(t => t.getBoundingClientRect().right > {width}).map(t => t.className)",
                )
                assert wide == [], f"{path} ({language}, {width} px): tables wider than the screen: {wide}"
                if path == "/collection" and width == PHONE:
                    assert _tall_enough(page, ".collection-nav a") == []
                    assert _tall_enough(page, ".collection-filter input, .collection-filter select") == []
                    assert _tall_enough(page, ".collection-filter button") == []
            page.goto(f"{live_server}/wants?lang={language}")
            row = page.locator("table.wants tbody tr").first
            for control in ("input[name=quantity]", "select[name=min_condition]", "button"):
                box = row.locator(control).first.bounding_box()
                assert box is not None and box["x"] + box["width"] <= width, f"{control} off screen"
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_single_pack_shows_cards_at_the_box_size(browser: Browser, live_server: str, width: int) -> None:
    page = new_page(browser, width)
    try:
        page.goto(live_server + "/packs/samsara/M4/open?boxes=1&seed=3")
        page.locator(".pack-wrapper").first.click()  # the box view: unseal the first pack
        box_art = page.locator(".pack.opened .card-art").first.bounding_box()
        page.goto(live_server + "/packs/samsara/M4/open?packs=1&seed=3")
        arts = page.locator(".pack .card-art")
        expect(arts.first).to_be_visible()
        single = arts.first.bounding_box()
        assert box_art is not None and single is not None
        assert single["width"] >= box_art["width"] * 0.95, (single, box_art)
        page.get_by_role("button", name="全部翻开").first.click()
        expect(page.locator(".pack-card.face-down")).to_have_count(0)
        assert_fits(page, width)
        assert page.evaluate(
            """() => [...document.querySelectorAll('.pack-card .card-face')]
              .every(face => face.getBoundingClientRect().width >= 2 * parseFloat(getComputedStyle(face).fontSize))"""
        )
    finally:
        page.context.close()

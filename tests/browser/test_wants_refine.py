"""In a real browser at 390 px and 1366 px, in both languages: a printing want
refines the card want, and its "in addition" box on the wants page says and changes that."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.wants import set_want
from catalog.models import Card, CardSet, Printing
from tests.kits.browser import WIDTHS, assert_fits, new_page, sign_in
from tests.kits.trade import NOW
from webapp.db import get_engine

WORDS = {
    "zh": ("另外再要（不算在这张卡任意印刷的需求里）", "另 1 张见指定印刷的需求", "保存", "已齐"),
    "en": (
        "In addition (not counted towards the any-printing want)",
        "1 more in the printing wants below",
        "Save",
        None,
    ),
}


@pytest.fixture
def alice_wants(sample_app, make_user) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        alice = make_user(session, "alice")
        card_id, printing_id = session.execute(
            select(Card.id, Printing.id)
            .join(Printing, Printing.card_id == Card.id)
            .join(CardSet, CardSet.id == Printing.set_id)
            .where(Card.name == "小红帽·狼猎手", Printing.number == "M4-002")
        ).one()
        set_want(session=session, user_id=alice.id, card_id=card_id, quantity=1, min_condition="LP", now=NOW)
        set_want(
            session=session,
            user_id=alice.id,
            card_id=card_id,
            printing_id=printing_id,
            quantity=1,
            min_condition="NM",
            now=NOW,
        )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_in_addition_box_shows_and_changes_how_wants_add_up(
    browser: Browser, live_server: str, alice_wants: None, width: int
) -> None:
    page = new_page(browser, width, javascript=False)
    try:
        sign_in(page, live_server)
        for lang in ("zh", "en"):
            box_label, note, save, done = WORDS[lang]
            page.goto(live_server + f"/wants?lang={lang}")
            assert_fits(page, width)
            rows = page.locator("table.wants tbody tr")
            expect(rows).to_have_count(2)
            card_row, printing_row = rows.nth(0), rows.nth(1)
            expect(printing_row).to_contain_text("M4-002")
            box = printing_row.get_by_label(box_label)
            expect(box).not_to_be_checked()
            expect(card_row.get_by_label(box_label)).to_have_count(0)  # a card want has none
            expect(card_row.locator("td.missing")).to_contain_text(note)  # one copy in all, of M4-002
            expect(printing_row.locator("td.missing")).to_have_text("1")
            if done:
                expect(card_row.locator("td.missing")).to_contain_text(done)

            box.check()
            printing_row.get_by_role("button", name=save).click()
            card_row, printing_row = rows.nth(0), rows.nth(1)
            expect(printing_row.get_by_label(box_label)).to_be_checked()
            expect(card_row.locator("td.missing")).to_have_text("1")  # now two copies: one each
            expect(printing_row.locator("td.missing")).to_have_text("1")
            assert_fits(page, width)

            printing_row.get_by_label(box_label).uncheck()  # back, for the other language
            printing_row.get_by_role("button", name=save).click()
            expect(rows.nth(0).locator("td.missing")).to_contain_text(note)
    finally:
        page.context.close()

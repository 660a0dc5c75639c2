"""A 16-player, 4-round event run from creation to finish on a phone
(Chromium at 390×844): registration with one illegal and one missing list (the deck gate
refuses to pair them until the policy says "play with a flag"), a draw, a drop, an undrop, a
correction, the finish. After every result the next table without a result has its buttons in
view, no page scrolls sideways, and every irreversible action passed a confirmation page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from catalog.events.prizes import check_chests
from catalog.models import ChestBalance, Event, EventAudit
from tests.kits.browser import PHONE, new_page, sign_in
from tests.kits.deck import legal_samsara_list
from tests.kits.event import staff_store
from webapp.db import get_engine

STORE = "卡牌竞技场"


def _fits(page: Page) -> None:
    page.wait_for_load_state("load")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{page.url}: {overflow} px sideways"


def _confirm(page: Page, expected: str) -> None:
    """An irreversible action: a confirmation page stating the consequences, then confirm."""
    expect(page.locator(".confirm-page")).to_be_visible()
    expect(page.locator(".consequences")).to_contain_text(expected)
    _fits(page)
    page.locator(".confirm-buttons button[type=submit]").click()


def _next_open_buttons_in_view(page: Page) -> bool:
    """Whether the first table without a result has its result buttons inside the viewport."""
    return page.evaluate(
        """() => {
          const card = [...document.querySelectorAll('.round-card')].find(c => !c.classList.contains('reported'));
          if (!card) return true;
          const box = card.querySelector('.result-buttons').getBoundingClientRect();
          return box.top >= 0 && box.bottom <= window.innerHeight;
        }"""
    )


def _report_round(page: Page, *, draw_once: bool = False) -> int:
    """Tap a result on every table without one, checking the next table is in view each time."""
    submitted = 0
    while True:
        open_cards = page.locator(".round-card:not(.reported)")
        if open_cards.count() == 0:
            return submitted
        card = page.locator("#" + str(open_cards.first.get_attribute("id")))
        score = "1-1-1" if draw_once and submitted == 0 else ("2-1" if submitted % 2 else "2-0")
        buttons = card.locator(".result-buttons button")
        for size in buttons.evaluate_all("bs => bs.map(b => [b.offsetWidth, b.offsetHeight])"):
            assert min(size) >= 44, size
        card.locator(f'.result-buttons button[value^="{score}"]').click()
        expect(card).to_have_class("round-card reported")
        assert card.locator("[data-result]").inner_text().startswith(score)
        submitted += 1
        page.wait_for_load_state("load")  # without JavaScript: the page came back at #table-N
        assert _next_open_buttons_in_view(page), f"table after {submitted} not in view"
        _fits(page)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_sixteen_player_event_from_a_phone(browser: Browser, live_server: str, sample_app: Any, make_user: Any,
                                             javascript: bool) -> None:  # fmt: skip
    engine = get_engine(sample_app)
    with Session(engine) as session, session.begin():
        make_user(session, "shop", role="organizer")
        staff_store(session, STORE, "shop")
    legal = legal_samsara_list(engine)
    page = new_page(browser, PHONE, javascript=javascript)
    try:
        sign_in(page, live_server, "shop")
        page.goto(live_server + "/events/new")
        _fits(page)
        page.locator("#name").fill("十二月月赛")
        page.locator("#rounds").fill("4")
        page.locator("#store").select_option(STORE)
        page.locator("main button[type=submit]").last.click()
        page.wait_for_url(lambda url: "/manage" in url)
        event_id = int(page.url.split("/events/")[1].split("/")[0])
        base = live_server + f"/events/{event_id}/manage"

        page.goto(base + "?tab=players")
        for i in range(16):
            page.locator("#walk-name").fill(f"选手{i + 1:02d}")
            deck = legal if i < 14 else ("主卡组:\n3 不存在的卡\n" if i == 14 else "")
            page.locator("#walk-deck").fill(deck)
            page.locator("#walk-name").press("Tab")
            page.get_by_role("button", name="添加选手").click()
            expect(page.locator(".flashes")).to_contain_text("已添加选手")
        _fits(page)
        expect(page.locator(".deck-flags")).to_contain_text("1 份卡组不合法，1 名选手没有卡组")

        # The deck gate: legal lists are required to be paired, so pairing is refused (after its
        # confirmation) and the organiser switches the policy to "play with a flag" before round 1.
        page.goto(base)
        page.get_by_role("button", name="配对下一轮").click()
        _confirm(page, "本赛事要求合法卡组：配对会被拒绝")
        expect(page.locator(".flashes")).to_contain_text("1 名选手没有卡组")
        page.goto(base + "?tab=settings")
        _fits(page)
        page.locator("#edit-policy").select_option("flag")
        page.get_by_role("button", name="保存设置").click()
        expect(page.locator(".flashes")).to_contain_text("赛事设置已保存")

        for number in (1, 2, 3, 4):
            page.goto(base)
            page.get_by_role("button", name="配对下一轮").click()
            _confirm(page, "1 份卡组不合法，1 名选手没有卡组")
            expect(page.locator(".flashes")).to_contain_text(f"第 {number} 轮已配对")
            _fits(page)
            expect(page.locator(".list-flag").first).to_be_visible()
            assert _report_round(page, draw_once=number == 1) >= 7
            expect(page.locator("[data-left-count]")).to_contain_text("还有 0 桌没有结果")
            if number == 2:  # a correction of a reported table (exact entry)
                card = page.locator(".round-card").first
                card.locator("details.exact-entry summary").click()
                card.locator("input[name=wins_a]").fill("0")
                card.locator("input[name=wins_b]").fill("2")
                card.locator("input[name=draws]").fill("0")
                card.locator(".result-form button").click()
                expect(page.locator("#" + str(card.get_attribute("id")) + " [data-result]")).to_have_text("0-2-0")
            if number == 1:  # a drop taken back, then a drop that stands
                page.goto(base + "?tab=players")
                page.get_by_role("button", name="选手03 退赛").click()
                _confirm(page, "第 2 轮配对前可以撤销")
                page.get_by_role("button", name="选手03 撤销退赛").click()
                expect(page.locator(".flashes")).to_contain_text("选手03 已撤销退赛")
                page.get_by_role("button", name="选手04 退赛").click()
                _confirm(page, "选手04 从第 2 轮起不再配对")
                expect(page.locator(".flashes")).to_contain_text("选手04 已退赛")

        page.goto(base)
        page.get_by_role("button", name="结束赛事并发放白银宝箱").click()
        expect(page.locator(".consequences")).to_contain_text("名选手获得白银宝箱")
        flagged = page.locator("input[name=flagged][value=award]")
        if flagged.count():
            flagged.check()
        _confirm(page, "结束后可以重新开放")
        expect(page.locator(".flashes")).to_contain_text("赛事已结束，白银宝箱已发放")
        page.goto(live_server + f"/events/{event_id}")
        expect(page.locator(".final-placings")).to_be_visible()
        _fits(page)
        page.goto(live_server + f"/events/{event_id}/standings")
        _fits(page)
        page.goto(base + "?tab=log")
        _fits(page)
    finally:
        page.context.close()
    with Session(engine) as session:
        event = session.exec(select(Event).where(Event.id == event_id)).one()
        assert event.state == "finished" and event.chests_awarded
        actions = [a.action for a in session.exec(select(EventAudit).where(EventAudit.event_id == event_id))]
        assert actions.count("pair") == 4 and "undrop" in actions and "correct" in actions and actions[-1] == "finish"
        assert sum(b.chests for b in session.exec(select(ChestBalance))) > 0 and check_chests(session) == []


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_event_pages_fit_a_phone_in_both_languages(browser: Browser, live_server: str, sample_app: Any,
                                                       make_user: Any, language: str) -> None:  # fmt: skip
    from catalog.events import registration as reg
    from catalog.events import running
    from tests.kits.event import NOW, make_event

    engine = get_engine(sample_app)
    with Session(engine) as session, session.begin():
        make_user(session, "shop", role="organizer")
        staff_store(session, STORE, "shop")
        event = make_event(session, name="十二月月赛（周末场）Winter Weekend Championship", rounds=3)
        for i in range(9):
            reg.register_player(session=session, event=event, player_name=f"很长的选手名字Player{i:02d}", now=NOW)
        running.pair_next_round(session=session, event=event, seed=3, now=NOW)
        event_id = event.id
    page = new_page(browser, PHONE)
    try:
        sign_in(page, live_server, "shop")
        suffix = "lang=en" if language == "en" else "lang=zh"
        pages = [
            f"/events/{event_id}/manage?tab={tab}&{suffix}" for tab in ("round", "players", "decks", "settings", "log")
        ]
        pages += [f"/events/{event_id}?{suffix}", f"/events/{event_id}/standings?{suffix}", f"/events/new?{suffix}"]
        for path in pages:
            page.goto(live_server + path)
            _fits(page)
            if language == "en" and "/manage" in path:  # English complete: the tabs in English
                expect(page.locator(".manage-tabs")).to_have_text(re.compile("Round and results.*Settings.*Log", re.S))
        page.goto(live_server + f"/events/{event_id}/manage?tab=players&{suffix}")
        page.locator(".player-actions button").first.click()
        _fits(page)  # the confirmation page
    finally:
        page.context.close()

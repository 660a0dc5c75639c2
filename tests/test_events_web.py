"""Events through the pages (Flask test client): a whole 8-player event end to end, the deck
lock, the deck check at the table, authorization (only the event's organiser or an admin
manages it; players see the public parts and their own list until lists are published)."""

from __future__ import annotations

import io
import re
from typing import Any

from openpyxl import load_workbook
from sqlmodel import Session, select

from catalog.events.prizes import check_chests
from catalog.models import ChestBalance, Event, Match, Registration
from tests.kits.deck import legal_samsara_list
from tests.kits.event import staff_store
from webapp.db import get_engine

PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]


def _engine(app: Any) -> Any:
    with app.app_context():
        return get_engine()


def _create(client: Any, login: Any, organiser: str = "shop", **fields: str) -> int:
    login(client, organiser, role="organizer")
    with Session(_engine(client.application)) as session:
        staff_store(session, fields.get("store", "卡牌竞技场") or "卡牌竞技场", organiser)
        session.commit()
    form = {"name": "十一月月赛", "game": "samsara", "format": "standard", "date": "2026-11-28", "store": "卡牌竞技场",
            "city": "上海", "round_minutes": "50", "top_cut": "0", "kind": "monthly",
            "deck_policy": "flag"} | fields  # fmt: skip
    response = client.post("/events/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    return int(re.search(r"/events/(\d+)/manage", response.headers["Location"]).group(1))


def _tables(app: Any, event_id: int, number: int) -> list[Match]:
    with Session(_engine(app)) as session:
        return list(
            session.exec(
                select(Match)
                .where(Match.event_id == event_id, Match.round_number == number)
                .order_by(Match.table_number)
            )
        )


def test_an_eight_player_event_end_to_end_through_the_pages(sample_app: Any, login: Any) -> None:
    deck = legal_samsara_list(_engine(sample_app))
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    players = {}
    for name in PLAYERS:
        client = sample_app.test_client()
        login(client, name)
        response = client.post(f"/events/{event_id}/register", data={"deck": deck})
        assert response.status_code == 303
        players[name] = client
    dashboard = shop.get(f"/events/{event_id}/manage?tab=players").get_data(as_text=True)
    assert dashboard.count("badge-ok") == 8 and "共 8 名选手" in dashboard and "MTR 附录 E：3 轮" in dashboard
    assert shop.post(f"/events/{event_id}/manage/close", data={"confirm": "1"}).status_code == 303
    for number in (1, 2, 3):
        pair = {"seed": str(100 + number), "confirm": "1"}
        response = shop.post(f"/events/{event_id}/manage/pair", data=pair, follow_redirects=True)
        assert f"第 {number} 轮已配对（种子 {100 + number}）" in response.get_data(as_text=True)
        tables = _tables(sample_app, event_id, number)
        assert len(tables) == 4
        # Alice reads her table on the public page (phone), then reports; the organiser confirms
        # that one and types the others in.
        with Session(_engine(sample_app)) as session:
            names = {r.id: r.player_name for r in session.exec(select(Registration))}
        page = players["alice"].get(f"/events/{event_id}").get_data(as_text=True)
        alice_table = next(m for m in tables if "alice" in (names[m.player_a_id], names[m.player_b_id]))
        assert f"你在第 {alice_table.table_number} 桌" in page and 'id="table-4"' in page
        assert "/ 标准 ·" in page and "standard" not in page  # the format's name, not its code
        reported = players["alice"].post(
            f"/events/{event_id}/report", data={"table": alice_table.table_number, "wins_a": 2, "wins_b": 1, "draws": 0}
        )
        assert reported.status_code == 303
        dashboard = shop.get(f"/events/{event_id}/manage").get_data(as_text=True)
        report_id = re.search(r'name="report" value="(\d+)"', dashboard).group(1)
        assert shop.post(f"/events/{event_id}/manage/confirm", data={"report": report_id}).status_code == 303
        for m in tables:
            if m.id != alice_table.id:
                data = {"round": number, "table": m.table_number, "wins_a": 2, "wins_b": 0, "draws": 0}
                assert shop.post(f"/events/{event_id}/manage/result", data=data).status_code == 303
    public = sample_app.test_client().get(f"/events/{event_id}").get_data(as_text=True)
    assert "第 3 轮 / 共 3 轮" in public and "第 3 轮后排名" in public
    by_name = sample_app.test_client().get(f"/events/{event_id}/pairings?round=2&by=name").get_data(as_text=True)
    assert all(name in by_name for name in PLAYERS)
    assert sample_app.test_client().get(f"/events/{event_id}/slips?round=1").status_code == 200
    after_one = sample_app.test_client().get(f"/events/{event_id}/standings?round=1").get_data(as_text=True)
    assert "第 1 轮后排名" in after_one
    finish = shop.post(f"/events/{event_id}/manage/finish", data={"confirm": "1"}, follow_redirects=True)
    finished = finish.get_data(as_text=True)
    assert "白银宝箱已发放" in finished
    with Session(_engine(sample_app)) as session:
        chests = sorted((b.chests for b in session.exec(select(ChestBalance))), reverse=True)
        assert chests == [9, 7, 5, 4, 4, 4, 4, 4]
        assert check_chests(session) == []
        assert session.exec(select(Event)).one().state == "finished"
    sheet = shop.get(f"/events/{event_id}/export.xlsx")
    assert sheet.status_code == 200
    book = load_workbook(io.BytesIO(sheet.data))
    assert book.sheetnames == ["选手与卡组", "第1轮", "第2轮", "第3轮", "排名", "奖励"]
    assert [book["奖励"].cell(row=r, column=4).value for r in range(2, 10)] == [9, 7, 5, 4, 4, 4, 4, 4]
    mine = players["alice"].get("/events/mine").get_data(as_text=True)
    assert "十一月月赛" in mine and "卡牌竞技场" in mine
    assert re.search(r"\+\d+ 十一月月赛 第 \d 名", mine)  # the chest ledger row


def test_the_list_cannot_change_after_the_deadline(sample_app: Any, login: Any) -> None:
    deck = legal_samsara_list(_engine(sample_app))
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    player = sample_app.test_client()
    login(player, "alice")
    player.post(f"/events/{event_id}/register", data={"deck": deck})
    changed = deck + "1 无之法力石\n"
    assert player.post(f"/events/{event_id}/deck", data={"deck": changed}).status_code == 303
    shop.post(f"/events/{event_id}/manage/close", data={"confirm": "1"})
    response = player.post(f"/events/{event_id}/deck", data={"deck": deck}, follow_redirects=True)
    assert "卡组已锁定" in response.get_data(as_text=True)
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(Registration)).one().deck_text == changed


def test_deck_check_at_the_table_shows_the_difference(sample_app: Any, login: Any) -> None:
    deck = legal_samsara_list(_engine(sample_app))
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    shop.post(f"/events/{event_id}/manage/walk_in", data={"name": "路人甲", "deck": deck})
    with Session(_engine(sample_app)) as session:
        walk_in = session.exec(select(Registration)).one()
    page = shop.post(
        f"/events/{event_id}/manage/check", data={"player": walk_in.id, "deck": deck + "2 无之法力石\n"}
    ).get_data(as_text=True)
    assert "路人甲：与锁定的卡组不同" in page and "无之法力石" in page
    same = shop.post(f"/events/{event_id}/manage/check", data={"player": walk_in.id, "deck": deck}).get_data(
        as_text=True
    )
    assert "路人甲：与锁定的卡组一致" in same


def test_only_the_organiser_or_an_admin_manages_the_event(sample_app: Any, login: Any) -> None:
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    other_shop = sample_app.test_client()
    login(other_shop, "othershop", role="organizer")
    player = sample_app.test_client()
    login(player, "alice")
    anonymous = sample_app.test_client()
    for client in (other_shop, player):
        assert client.get(f"/events/{event_id}/manage").status_code == 403
        assert client.post(f"/events/{event_id}/manage/close", data={"confirm": "1"}).status_code == 403
        assert client.get(f"/events/{event_id}/export.xlsx").status_code == 403
    assert player.get("/events/new").status_code == 403
    assert anonymous.get(f"/events/{event_id}/manage").status_code == 302  # sign in first
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(Event)).one().state == "open"
    admin = sample_app.test_client()
    login(admin, "root", role="admin")
    assert admin.get(f"/events/{event_id}/manage").status_code == 200
    assert anonymous.get(f"/events/{event_id}").status_code == 200  # the public page


def test_players_see_only_their_own_list_until_published(sample_app: Any, login: Any) -> None:
    deck = legal_samsara_list(_engine(sample_app))
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    alice, bob = sample_app.test_client(), sample_app.test_client()
    login(alice, "alice")
    login(bob, "bob")
    alice.post(f"/events/{event_id}/register", data={"deck": deck})
    bob.post(f"/events/{event_id}/register", data={"deck": deck + "1 无之法力石\n"})
    page = alice.get(f"/events/{event_id}/decks").get_data(as_text=True)
    assert "alice" in page and "bob" not in page
    assert "bob" not in sample_app.test_client().get(f"/events/{event_id}/decks").get_data(as_text=True)
    shop.post(f"/events/{event_id}/manage/publish", data={"published": "1"})
    page = alice.get(f"/events/{event_id}/decks").get_data(as_text=True)
    assert "alice" in page and "bob" in page


def test_bad_form_input_is_explained_and_changes_nothing(sample_app: Any, login: Any) -> None:
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    bad = shop.post("/events/new", data={"name": "", "game": "samsara", "date": "2026-11-28"}, follow_redirects=True)
    assert "请填写赛事名称" in bad.get_data(as_text=True)
    bad = shop.post("/events/new", data={"name": "x", "game": "samsara", "date": "28/11"}, follow_redirects=True)
    assert "日期应为 YYYY-MM-DD" in bad.get_data(as_text=True)
    bad = shop.post("/events/new", data={"name": "x", "game": "samsara", "date": "2026-11-28", "tiebreakers": "nope"},
                    follow_redirects=True)  # fmt: skip
    assert "未知的破同分方式" in bad.get_data(as_text=True)
    buchholz = _create(shop, login, name="布赫霍尔茨杯", tiebreakers="buchholz")
    assert "布赫霍尔茨" in shop.get(f"/events/{buchholz}").get_data(as_text=True)
    player = sample_app.test_client()
    login(player, "alice")
    response = player.post(f"/events/{event_id}/register", data={"deck": "主卡组:\n3x"}, follow_redirects=True)
    assert response.status_code == 200
    pairing = shop.post(f"/events/{event_id}/manage/pair", data={"seed": "1", "confirm": "1"}, follow_redirects=True)
    assert "至少需要两名选手" in pairing.get_data(as_text=True)
    with Session(_engine(sample_app)) as session:
        assert session.get(Event, event_id).state == "open"
        assert len(session.exec(select(Event)).all()) == 2  # and the Buchholz one


def test_event_pages_are_listed_and_linked_from_the_header(sample_app: Any, login: Any) -> None:
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    home = sample_app.test_client().get("/").get_data(as_text=True)
    assert 'href="/events"' in home
    listing = sample_app.test_client().get("/events").get_data(as_text=True)
    assert f"/events/{event_id}" in listing and "十一月月赛" in listing


def test_a_deadline_from_the_form_locks_the_list(sample_app: Any, login: Any) -> None:
    deck = legal_samsara_list(_engine(sample_app))
    shop = sample_app.test_client()
    event_id = _create(shop, login, deadline="2020-01-01T10:00")  # already passed
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(Event)).one().deadline is not None
    player = sample_app.test_client()
    login(player, "alice")
    player.post(f"/events/{event_id}/register", data={"deck": deck})
    refused = player.post(f"/events/{event_id}/deck", data={"deck": deck + "1 无之法力石\n"}, follow_redirects=True)
    assert "卡组已锁定" in refused.get_data(as_text=True)
    bad = shop.post("/events/new", data={"name": "x", "game": "samsara", "date": "2026-11-28", "deadline": "soon"},
                    follow_redirects=True)  # fmt: skip
    assert "截止时间应为" in bad.get_data(as_text=True)


def test_seasons_exchange_lists_and_redemptions_through_the_pages(sample_app: Any, login: Any) -> None:
    shop = sample_app.test_client()
    login(shop, "shop", role="organizer")
    created = shop.post("/seasons/new", data={"code": "SH-16", "name": "上海 2015–16", "cut_top": "2"})
    assert created.status_code == 303 and created.headers["Location"].endswith("/seasons/SH-16")
    event_id = _create(shop, login, season="SH-16")
    for name in ("路人甲", "路人乙"):
        shop.post(f"/events/{event_id}/manage/walk_in", data={"name": name})
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "3", "confirm": "1"})
    (table,) = _tables(sample_app, event_id, 1)
    shop.post(f"/events/{event_id}/manage/result", data={"round": 1, "table": 1, "wins_a": 2, "wins_b": 1})
    # 2 players (MTR Appendix E gives 1 round), walk-ins without lists: their chests need a choice
    shop.post(f"/events/{event_id}/manage/finish", data={"confirm": "1", "flagged": "award"})
    season = sample_app.test_client().get("/seasons/SH-16").get_data(as_text=True)
    assert "积分晋级" in season and "路人甲" in season
    store = "/stores/卡牌竞技场/exchange"
    shop.post(store, data={"name": "M8 补充包", "price": "5", "valid_from": "2020-01-01"})
    page = shop.get(store).get_data(as_text=True)
    item = re.search(r'name="item"><option value="(\d+)">M8 补充包', page).group(1)
    with Session(_engine(sample_app)) as session:
        winner = next(b for b in session.exec(select(ChestBalance)) if b.chests == 9)
    spent = shop.post(store, data={"action": "redeem", "player": winner.player_key, "item": item, "quantity": "1"},
                      follow_redirects=True)  # fmt: skip
    assert "已兑换" in spent.get_data(as_text=True)
    too_much = shop.post(store, data={"action": "redeem", "player": winner.player_key, "item": item, "quantity": "1"},
                         follow_redirects=True)  # fmt: skip
    assert "白银宝箱不够" in too_much.get_data(as_text=True)
    with Session(_engine(sample_app)) as session:
        assert session.get(ChestBalance, winner.id).chests == 4
        assert check_chests(session) == []
    player = sample_app.test_client()
    login(player, "alice")
    assert player.post(store, data={"name": "x", "price": "1"}).status_code == 403
    assert table.player_b_id is not None


def test_the_event_pages_in_english(sample_app: Any, login: Any) -> None:
    from tests.kits.web import ensure_translations_compiled

    ensure_translations_compiled()
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    shop.post(f"/events/{event_id}/manage/walk_in", data={"name": "路人甲", "deck": "主卡组:\n3 不存在的卡"})
    shop.post(f"/events/{event_id}/manage/walk_in", data={"name": "路人乙"})
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "2", "confirm": "1"})
    page = shop.get(f"/events/{event_id}?lang=en").get_data(as_text=True)
    assert (
        "Round 1 of 1" in page and "Standings after round 0" in page
    )  # round 1 is being played and "Manage this event" in page
    dashboard = shop.get(f"/events/{event_id}/manage?lang=en&tab=decks").get_data(as_text=True)
    assert "Deck check at the table" in dashboard and "names no card of this game" in dashboard


def test_every_event_page_renders_in_both_languages(sample_app: Any, login: Any) -> None:
    from tests.kits.web import ensure_translations_compiled

    ensure_translations_compiled()
    shop = sample_app.test_client()
    login(shop, "shop", role="organizer")
    shop.post("/seasons/new", data={"code": "S1", "name": "赛季一"})
    event_id = _create(shop, login, season="S1")
    for name in ("甲", "乙", "丙"):
        shop.post(f"/events/{event_id}/manage/walk_in", data={"name": name})
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "2", "confirm": "1"})
    shop.post("/stores/卡牌竞技场/exchange", data={"name": "卡套", "price": "3"})
    pages = [
        "/events", "/events/new", "/events/mine", f"/events/{event_id}", f"/events/{event_id}/manage",
        f"/events/{event_id}/pairings", f"/events/{event_id}/pairings?by=name", f"/events/{event_id}/slips",
        f"/events/{event_id}/standings", f"/events/{event_id}/standings?round=1", f"/events/{event_id}/decks",
        "/seasons/S1", "/stores/卡牌竞技场/exchange",
    ]  # fmt: skip
    for lang in ("zh", "en"):
        for path in pages:
            response = shop.get(path + ("&" if "?" in path else "?") + f"lang={lang}")
            assert response.status_code == 200, (path, lang)
    for path in ("/seasons/S1/export.xlsx", "/seasons/S1/export.csv", f"/events/{event_id}/export.csv"):
        assert shop.get(path).status_code == 200
    assert shop.get("/seasons/nope").status_code == 404
    assert shop.get(f"/events/{event_id}/pairings?round=9").status_code == 404
    assert shop.get("/events/999").status_code == 404


def test_a_seed_of_19_digits_is_accepted_by_the_pairing_form(sample_app: Any, login: Any) -> None:
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    for name in ("甲", "乙"):
        shop.post(f"/events/{event_id}/manage/walk_in", data={"name": name})
    seed = str(2**63 - 1)  # the largest seed: 19 digits
    paired = shop.post(f"/events/{event_id}/manage/pair", data={"seed": seed, "confirm": "1"}, follow_redirects=True)
    assert f"种子 {seed}" in paired.get_data(as_text=True)


def test_the_dashboard_pairs_with_the_seed_it_offers(sample_app: Any, login: Any) -> None:
    shop = sample_app.test_client()
    event_id = _create(shop, login)
    for name in ("甲", "乙", "丙"):
        shop.post(f"/events/{event_id}/manage/walk_in", data={"name": name})
    offered = re.search(r'name="seed" value="(\d+)"', shop.get(f"/events/{event_id}/manage").get_data(as_text=True))
    seed = offered.group(1)
    paired = shop.post(f"/events/{event_id}/manage/pair", data={"seed": seed, "confirm": "1"}, follow_redirects=True)
    assert f"第 1 轮已配对（种子 {seed}）" in paired.get_data(as_text=True)
    again = shop.post(f"/events/{event_id}/manage/result", data={"round": "1", "table": "1", "wins_a": "x"},
                      follow_redirects=True)  # fmt: skip
    assert "「wins_a」应为整数" in again.get_data(as_text=True)

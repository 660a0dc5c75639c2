"""Players know where to sit: the public page says when it was generated and when
the round was posted, and changes its version when a round or a result comes in; "after round
N" counts completed rounds only; after the finish it shows final placings and chests, not a
table; one pending report per player per table, conflicting reports flagged; QR codes (SVG)
on the dashboard and on printed pairings."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from catalog.events import running
from catalog.models import Event, Registration, ResultReport
from tests.kits.event import NOW, make_event, staff_store
from webapp.db import get_engine

PLAYERS = ["alice", "bob", "carol", "dave"]


def _setup(app: Any, login: Any) -> tuple[Any, dict[str, Any], int]:
    shop = app.test_client()
    login(shop, "shop", role="organizer")
    clients = {}
    for name in PLAYERS:
        clients[name] = app.test_client()
        login(clients[name], name)
    with Session(get_engine(app)) as session, session.begin():
        staff_store(session, "卡牌竞技场", "shop")
        event = make_event(session, rounds=2)
        from catalog.accounts import get_user_by_name
        from catalog.events import registration as reg

        for name in PLAYERS:
            user = get_user_by_name(session=session, username=name)
            reg.register_player(session=session, event=event, player_name=name, now=NOW, user_id=user.id)
        event_id = int(event.id)
    return shop, clients, event_id


def _tables(app: Any, event_id: int, number: int) -> list[tuple[int, str, str]]:
    with Session(get_engine(app)) as session:
        names = {r.id: r.player_name for r in session.exec(select(Registration))}
        event = session.get(Event, event_id)
        return [(m.table_number, names[m.player_a_id], names[m.player_b_id])
                for m in running.matches(session=session, event=event, round_number=number)]  # fmt: skip


def test_the_public_page_follows_the_round_and_ends_on_final_placings(sample_app: Any, login: Any) -> None:
    shop, clients, event_id = _setup(sample_app, login)
    version = lambda: clients["alice"].get(f"/events/{event_id}/version").get_json()["version"]  # noqa: E731
    before = version()
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "1", "confirm": "1"})
    assert version() != before
    page = clients["alice"].get(f"/events/{event_id}").get_data(as_text=True)
    assert "本页生成于" in page and "第 1 轮公布于" in page and f'href="/events/{event_id}"' in page
    for table, _a, _b in _tables(sample_app, event_id, 1):
        shop.post(f"/events/{event_id}/manage/result", data={"round": 1, "table": table, "score": "2-0-0"})
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "2", "confirm": "1"})
    page = clients["alice"].get(f"/events/{event_id}").get_data(as_text=True)
    assert "第 1 轮后排名" in page and "第 2 轮后排名" not in page  # round 2 is being played
    after_one = version()
    table, _a, _b = _tables(sample_app, event_id, 2)[0]
    shop.post(f"/events/{event_id}/manage/result", data={"round": 2, "table": table, "score": "2-1-0"})
    assert version() != after_one
    for table, _a, _b in _tables(sample_app, event_id, 2)[1:]:
        shop.post(f"/events/{event_id}/manage/result", data={"round": 2, "table": table, "score": "2-1-0"})
    assert shop.post(f"/events/{event_id}/manage/finish", data={"confirm": "1", "flagged": "award"}).status_code == 303
    page = clients["alice"].get(f"/events/{event_id}").get_data(as_text=True)
    assert "最终名次" in page and "你获得第" in page and "个白银宝箱" in page and "你在第" not in page
    assert "第 2 轮后排名" in page


def test_one_pending_report_per_player_and_conflicts_flagged(sample_app: Any, login: Any) -> None:
    shop, clients, event_id = _setup(sample_app, login)
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "1", "confirm": "1"})
    table, a, b = _tables(sample_app, event_id, 1)[0]
    for wins in ((2, 0), (2, 1), (2, 0), (2, 1), (2, 0)):
        clients[a].post(f"/events/{event_id}/report", data={"table": table, "wins_a": wins[0], "wins_b": wins[1]})
    with Session(get_engine(sample_app)) as session:
        pending = session.exec(select(ResultReport).where(ResultReport.status == "pending")).all()
        assert [(r.wins_a, r.wins_b) for r in pending] == [(2, 0)]  # the last one replaced the others
    dashboard = shop.get(f"/events/{event_id}/manage").get_data(as_text=True)
    assert "两位选手报告的结果不一致" not in dashboard
    clients[b].post(f"/events/{event_id}/report", data={"table": table, "wins_a": 0, "wins_b": 2})
    dashboard = shop.get(f"/events/{event_id}/manage").get_data(as_text=True)
    assert dashboard.count("两位选手报告的结果不一致") == 2  # both reports of that table


def test_qr_codes_on_the_dashboard_and_printed_pairings(sample_app: Any, login: Any) -> None:
    shop, _clients, event_id = _setup(sample_app, login)
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "1", "confirm": "1"})
    url = f"http://localhost/events/{event_id}"
    for page in (f"/events/{event_id}/manage", f"/events/{event_id}/pairings"):
        html = shop.get(page).get_data(as_text=True)
        assert "<svg" in html and f"<title>{url}</title>" in html, page

"""Events in the API: public reads (event, pairings, standings), registration and results with a
token (organiser records, a player reports), errors as JSON that change nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, select

from catalog.accounts import get_user_by_name, issue_token
from catalog.events import running
from catalog.events.registration import get_event
from catalog.models import ResultReport, User
from tests.kits.db import table_counts
from tests.kits.deck import legal_samsara_list
from tests.kits.event import make_event, staff_store
from webapp.db import get_engine


def _token(app: Any, make_user: Any, name: str, role: str = "user") -> str:
    with app.app_context(), Session(get_engine()) as session, session.begin():
        user = make_user(session, name, role=role)
        _row, token = issue_token(session=session, user=user, now=datetime(2026, 1, 1, tzinfo=UTC))
    return token


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _event(app: Any, organiser_id: int | None = None) -> int:
    with app.app_context(), Session(get_engine()) as session, session.begin():
        event = make_event(session, organizer_id=organiser_id)
        if organiser_id is not None:
            staff_store(session, event.store, session.get(User, organiser_id).username)
        return int(event.id)


def test_register_pair_report_and_read_through_the_api(sample_app: Any, client: Any, make_user: Any) -> None:
    shop = _token(sample_app, make_user, "shop", "organizer")
    with sample_app.app_context(), Session(get_engine()) as session:
        shop_id = get_user_by_name(session=session, username="shop").id
    event_id = _event(sample_app, shop_id)
    deck = legal_samsara_list(get_engine(sample_app))
    tokens = {name: _token(sample_app, make_user, name) for name in ("alice", "bob", "carol", "dave")}
    for name, token in tokens.items():
        response = client.post(f"/api/v1/events/{event_id}/registrations", json={"deck": deck}, headers=_auth(token))
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["legal"] is True and response.get_json()["player"] == name
    walk_in = client.post(f"/api/v1/events/{event_id}/registrations", json={"player": "路人"}, headers=_auth(shop))
    assert walk_in.status_code == 201
    refused = client.post(
        f"/api/v1/events/{event_id}/registrations", json={"player": "x"}, headers=_auth(tokens["bob"])
    )
    assert refused.status_code == 403
    event = client.get(f"/api/v1/events/{event_id}").get_json()
    assert event["players"] == 5 and event["state"] == "open" and event["rounds"] == 3
    with sample_app.app_context(), Session(get_engine()) as session, session.begin():
        running.pair_next_round(session=session, event=get_event(session=session, event_id=event_id), seed=5,
                                now=datetime(2026, 11, 28, tzinfo=UTC))  # fmt: skip
    pairings = client.get(f"/api/v1/events/{event_id}/pairings").get_json()
    assert pairings["round"] == 1 and len(pairings["pairings"]) == 3 and pairings["pairings"][-1]["player_b"] is None
    table = next(p for p in pairings["pairings"] if p["player_b"] and p["player_a"] in tokens)
    player_token = tokens[table["player_a"]]
    locked = client.post(f"/api/v1/events/{event_id}/registrations", json={"deck": deck}, headers=_auth(player_token))
    assert locked.status_code == 409 and locked.get_json()["error"]["code"] == "deck_locked"
    body = {"round": 1, "table": table["table"], "wins_a": 2, "wins_b": 1, "draws": 0}
    reported = client.post(f"/api/v1/events/{event_id}/results", json=body, headers=_auth(player_token))
    assert reported.status_code == 202 and reported.get_json()["status"] == "reported"
    for p in pairings["pairings"]:
        if p["player_b"]:
            body = {"round": 1, "table": p["table"], "wins_a": 2, "wins_b": 1}
            recorded = client.post(f"/api/v1/events/{event_id}/results", json=body, headers=_auth(shop))
            assert recorded.status_code == 200
    with sample_app.app_context(), Session(get_engine()) as session:
        assert session.exec(select(ResultReport)).one().status == "confirmed"  # the same result as reported
    standings = client.get(f"/api/v1/events/{event_id}/standings").get_json()
    assert standings["round"] == 1 and [s["points"] for s in standings["standings"]][:3] == [3, 3, 3]
    assert all(0 <= s["omw"] <= 1 and 0 <= s["gw"] <= 1 for s in standings["standings"])
    listing = client.get("/api/v1/events").get_json()
    assert [e["id"] for e in listing["events"]] == [event_id]


def test_api_errors_are_json_and_change_nothing(sample_app: Any, client: Any, make_user: Any) -> None:
    token = _token(sample_app, make_user, "alice")
    event_id = _event(sample_app)
    before = table_counts(get_engine(sample_app))
    assert client.get("/api/v1/events/999").status_code == 404
    assert client.get(f"/api/v1/events/{event_id}/pairings?round=3").status_code == 404
    assert client.get(f"/api/v1/events/{event_id}/standings?round=x").status_code == 400
    assert client.post(f"/api/v1/events/{event_id}/registrations", json={"deck": "x"}).status_code == 401
    bad = client.post(f"/api/v1/events/{event_id}/registrations", data="nope", headers=_auth(token))
    assert bad.status_code == 400 and bad.get_json()["error"]["message_en"]
    unreadable = client.post(f"/api/v1/events/{event_id}/registrations", json={"deck": 5}, headers=_auth(token))
    assert unreadable.status_code == 400
    result = {"round": 1, "table": 1, "wins_a": 2, "wins_b": 0}
    no_table = client.post(f"/api/v1/events/{event_id}/results", json=result, headers=_auth(token))
    assert no_table.status_code == 404
    after = table_counts(get_engine(sample_app))
    assert {k: v for k, v in after.items() if k != "api_token"} == {k: v for k, v in before.items() if k != "api_token"}

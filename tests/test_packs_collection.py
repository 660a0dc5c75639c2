"""A booster opening into the signed-in user's collection: the packs page's form and the API."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.accounts import issue_token
from catalog.boosters import open_packs
from catalog.collection.openings import OpeningAlreadyAdded, add_opening_once, opening_added
from catalog.models import CollectionItem, LedgerEntry
from tests.kits.collection import NOW, committed_user
from tests.kits.db import table_counts
from webapp.db import get_engine

OPEN = "/packs/samsara/M4/open"
ADD = "/packs/samsara/M4/open/collection"


def ledger(engine: Engine, user_id: int) -> list[tuple[str, str, int]]:
    with Session(engine) as session:
        rows = session.execute(
            select(LedgerEntry.reason, LedgerEntry.ref, LedgerEntry.delta).where(LedgerEntry.user_id == user_id)
        )
        return [tuple(row) for row in rows]


def copies(engine: Engine, user_id: int) -> int:
    with Session(engine) as session:
        return session.scalar(
            select(func.coalesce(func.sum(CollectionItem.quantity), 0)).where(CollectionItem.user_id == user_id)
        )


# ---- the domain guard ---------------------------------------------------------------------------------


def test_the_same_set_and_seed_is_added_once(sample_catalogue: Engine, make_user: Any) -> None:
    alice = committed_user(sample_catalogue, make_user)
    bob = committed_user(sample_catalogue, make_user, "bob")
    with catalog_db.transaction(sample_catalogue, write=True) as session:
        opening = open_packs(session=session, set_code="M4", packs=2, seed=42)
        assert not opening_added(session=session, user_id=alice, opening=opening)
        changes = add_opening_once(session=session, user_id=alice, opening=opening, now=NOW)
        assert sum(c.delta for c in changes) == len(opening.all_cards())
        assert opening_added(session=session, user_id=alice, opening=opening)
    with catalog_db.transaction(sample_catalogue, write=True) as session, pytest.raises(OpeningAlreadyAdded) as error:
        # Another count with the same seed starts with the same packs: refused as well.
        box = open_packs(session=session, set_code="M4", boxes=1, seed=42)
        add_opening_once(session=session, user_id=alice, opening=box, now=NOW)
    assert "种子 42" in error.value.message.zh
    with catalog_db.transaction(sample_catalogue, write=True) as session:
        other_seed = open_packs(session=session, set_code="M4", packs=2, seed=43)
        add_opening_once(session=session, user_id=alice, opening=other_seed, now=NOW)
        # Bob's ledger is his own: the same seed is new to him.
        add_opening_once(session=session, user_id=bob, opening=opening, now=NOW)
    assert {ref for _r, ref, _d in ledger(sample_catalogue, alice)} == {"M4 seed 42", "M4 seed 43"}
    assert copies(sample_catalogue, alice) == 2 * len(opening.all_cards())


# ---- the packs page --------------------------------------------------------------------------------------


def test_signed_in_user_adds_an_opening_once(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    page = client.get(OPEN, query_string={"packs": 3, "seed": 7}).get_data(as_text=True)
    form = re.search(r'<form class="add-to-collection"[^>]*action="([^"]+)".*?</form>', page, re.S)
    assert form is not None and form.group(1) == ADD
    assert 'name="seed" value="7"' in form.group(0) and 'name="packs" value="3"' in form.group(0)
    assert "加入我的收藏" in form.group(0)

    response = client.post(ADD, data={"seed": "7", "packs": "3"})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"{OPEN}?seed=7&packs=3")
    engine = get_engine(sample_app)
    rows = ledger(engine, alice.id)
    with Session(engine) as session:
        expected = len(open_packs(session=session, set_code="M4", packs=3, seed=7).all_cards())
    assert {(reason, ref) for reason, ref, _d in rows} == {("pack", "M4 seed 7")}
    assert sum(d for _r, _ref, d in rows) == expected == copies(engine, alice.id)
    shown = client.get(response.headers["Location"]).get_data(as_text=True)
    assert f"已把 {expected} 张卡加入你的收藏" in shown
    assert "这次开包已经加入你的收藏" in shown and 'class="add-to-collection"' not in shown

    # A double-click (or a replayed form) adds nothing more and says why.
    before = table_counts(engine)
    again = client.post(ADD, data={"seed": "7", "packs": "3"}, follow_redirects=True)
    assert again.status_code == 200
    assert "已经加入过你的收藏" in again.get_data(as_text=True)
    assert table_counts(engine) == before


def test_the_form_needs_a_sign_in_and_a_csrf_token(sample_app: Any, login: Any) -> None:
    anonymous = sample_app.test_client()
    page = anonymous.get(OPEN, query_string={"packs": 1, "seed": 5}).get_data(as_text=True)
    assert 'class="add-to-collection"' not in page and "后可以把开出的卡加入收藏" in page
    response = anonymous.post(ADD, data={"seed": "5", "packs": "1"})
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    sample_app.config["WTF_CSRF_ENABLED"] = True
    client = sample_app.test_client()
    alice = login(client, "alice")
    assert client.post(ADD, data={"seed": "5", "packs": "1"}).status_code == 400  # no token
    assert ledger(get_engine(sample_app), alice.id) == []


@pytest.mark.parametrize(
    "form",
    [{"packs": "1"}, {"seed": "x", "packs": "1"}, {"seed": "1", "packs": "0"}, {"seed": "1", "boxes": "1000"}],
)
def test_bad_forms_change_nothing(sample_app: Any, client: Any, login: Any, form: dict[str, str]) -> None:
    login(client, "alice")
    before = table_counts(get_engine(sample_app))
    assert client.post(ADD, data=form).status_code == 400
    assert table_counts(get_engine(sample_app)) == before


def test_unknown_set_is_404(sample_app: Any, client: Any, login: Any) -> None:
    login(client, "alice")
    assert client.post("/packs/samsara/ZZ9/open/collection", data={"seed": "1", "packs": "1"}).status_code == 404


def test_simultaneous_clicks_add_once(sample_app: Any, login: Any) -> None:
    """Two clients of one user post the same opening at once: exactly one adds it."""
    clients = [sample_app.test_client() for _ in range(4)]
    alice = None
    for client in clients:
        alice = login(client, "alice")
    assert alice is not None
    statuses: list[str] = []
    lock = threading.Lock()

    def click(client: Any) -> None:
        text = client.post(ADD, data={"seed": "99", "boxes": "1"}, follow_redirects=True).get_data(as_text=True)
        with lock:
            statuses.append("added" if "张卡加入你的收藏。" in text else "refused")

    threads = [threading.Thread(target=click, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == ["added", "refused", "refused", "refused"]
    with Session(get_engine(sample_app)) as session:
        expected = len(open_packs(session=session, set_code="M4", boxes=1, seed=99).all_cards())
    assert copies(get_engine(sample_app), alice.id) == expected


# ---- POST /api/v1/packs/open with add_to_collection ---------------------------------------------------------


def test_api_open_can_add_to_the_callers_collection(sample_app: Any, client: Any, make_user: Any) -> None:
    engine = get_engine(sample_app)
    with Session(engine) as session, session.begin():
        alice = make_user(session, "alice")
        _row, token = issue_token(session=session, user=alice, now=NOW)
        alice_id = alice.id
    body = {"set": "M4", "packs": 2, "seed": 11, "add_to_collection": True}
    assert client.post("/api/v1/packs/open", json=body).status_code == 401  # a write needs the token
    headers = {"Authorization": f"Bearer {token}"}
    response = client.post("/api/v1/packs/open", json=body, headers=headers)
    assert response.status_code == 200
    answer = response.get_json()
    cards = sum(len(p["cards"]) for box in answer["boxes"] for p in box["packs"])
    assert answer["collection"] == {"added": cards, "ref": "M4 seed 11"}
    assert copies(engine, alice_id) == cards
    assert {(r, ref) for r, ref, _d in ledger(engine, alice_id)} == {("pack", "M4 seed 11")}
    again = client.post("/api/v1/packs/open", json=body, headers=headers)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "opening_already_added"
    assert copies(engine, alice_id) == cards
    plain = client.post("/api/v1/packs/open", json={**body, "add_to_collection": False}, headers=headers)
    assert plain.status_code == 200 and "collection" not in plain.get_json()
    assert client.post("/api/v1/packs/open", json={**body, "add_to_collection": "yes"}).status_code == 400

"""The search language meets the signed-in user: own/want/trade on /cards, the help page and
GET /api/v1/cards, and ``printing_ids_matching`` filtering a collection."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import unquote

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.accounts import issue_token
from catalog.collection import adjust
from catalog.collection.reads import collection_page
from catalog.search import QueryError, printing_ids_matching
from tests.kits.collection import NOW, committed_user, printing_id
from webapp.db import get_engine


def give(engine: Engine, user_id: int, *numbers: str) -> None:
    with catalog_db.transaction(engine, write=True) as session:
        for number in numbers:
            pid = printing_id(session, "M4", number)
            adjust(session=session, user_id=user_id, printing_id=pid, delta=1, reason="manual", now=NOW)


# ---- printing_ids_matching and collection_page ------------------------------------------------------


def test_printing_ids_matching_is_the_prints_mode_of_search(sample_catalogue: Engine, make_user: Any) -> None:
    alice = committed_user(sample_catalogue, make_user)
    give(sample_catalogue, alice, "M4-001", "M4-008")
    with Session(sample_catalogue) as session:
        ids = set(session.scalars(printing_ids_matching(session=session, text="r>=UR set:M4", user_id=None)))
        numbers = {n for n in session.scalars(select_numbers(ids))}
        assert numbers and all(n.startswith("M4-") for n in numbers)
        assert "M4-008" in numbers and "M4-001" not in numbers
        owned = set(session.scalars(printing_ids_matching(session=session, text="own>0", user_id=alice)))
        assert owned == {printing_id(session, "M4", "M4-001"), printing_id(session, "M4", "M4-008")}
        everything = set(session.scalars(printing_ids_matching(session=session, text="", user_id=None)))
        assert len(everything) > len(ids)
        other_game = printing_ids_matching(session=session, text="", user_id=None, game="longzhiyi")
        longzhiyi = set(session.scalars(other_game))
        assert longzhiyi and longzhiyi < everything and not longzhiyi & ids
        # Directives are accepted (and change nothing); bad queries fail as search() fails.
        with_order = printing_ids_matching(session=session, text="r>=UR set:M4 order:cost unique:cards", user_id=None)
        assert set(session.scalars(with_order)) == ids


def select_numbers(ids: set[int]) -> Any:
    from catalog.models import Printing

    return select(Printing.number).where(Printing.id.in_(ids))


@pytest.mark.parametrize(
    ("query", "fragment"),
    [("own>0", "需要登录"), ("r>>UR", ""), ("order:sideways", "排序"), ("nokey:1", "")],
)
def test_printing_ids_matching_raises_query_errors(sample_catalogue: Engine, query: str, fragment: str) -> None:
    with Session(sample_catalogue) as session, pytest.raises(QueryError) as caught:
        printing_ids_matching(session=session, text=query, user_id=None)
    assert fragment in caught.value.message.zh


def test_collection_page_takes_a_search_filter(sample_catalogue: Engine, make_user: Any) -> None:
    alice = committed_user(sample_catalogue, make_user)
    give(sample_catalogue, alice, "M4-001", "M4-002", "M4-008", "M4-010")
    with Session(sample_catalogue) as session:

        def numbers(text: str, **kwargs: Any) -> list[str]:
            ids = printing_ids_matching(session=session, text=text, user_id=alice)
            page = collection_page(session=session, user_id=alice, printing_ids=ids, **kwargs)
            assert page.total == len(page.items) or "page" in kwargs
            return [row.number for row in page.items]

        assert numbers("r>=UR") == ["M4-008", "M4-010"]
        assert numbers("a:火 or r:R") == sorted(set(numbers("a:火") + numbers("r:R")))
        assert numbers("r>=UR", query="仙女") == ["M4-010"]  # the old name filter still narrows
        assert numbers("r>=UR", per_page=1, page=2) == ["M4-010"]
        # The existing signature keeps working without the new argument.
        assert collection_page(session=session, user_id=alice).total == 4


# ---- /cards and /help/search -----------------------------------------------------------------------


def test_cards_page_counts_the_signed_in_users_collection(sample_app: Any, login: Any) -> None:
    client = sample_app.test_client()
    alice = login(client, "alice")
    give(get_engine(sample_app), alice.id, "M4-010")
    response = client.get("/cards", query_string={"q": "own>0"})
    assert response.status_code == 302  # the one card owned: its page
    assert unquote(response.location).endswith("/cards/samsara/仙女教母")
    bob = sample_app.test_client()
    login(bob, "bob")
    assert "找到 0 张卡牌" in bob.get("/cards", query_string={"q": "own>0"}).get_data(as_text=True)


def test_anonymous_own_is_a_clear_400_with_a_sign_in_link(sample_app: Any, client: Any) -> None:
    response = client.get("/cards", query_string={"q": "t:战魂 own>0"})
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    assert "需要登录" in text
    assert 'class="sign-in-hint"' in text and "/login?next=" in text
    # Another bad query gets no sign-in link.
    other = client.get("/cards", query_string={"q": "cost>>1"}).get_data(as_text=True)
    assert 'class="sign-in-hint"' not in other


def test_help_page_links_account_examples_only_when_signed_in(sample_app: Any, login: Any) -> None:
    anonymous = sample_app.test_client().get("/help/search").get_data(as_text=True)
    link = f'href="/cards?q={html.escape("own%3E0")}"'
    assert link not in anonymous and "<code>own&gt;0</code>" in anonymous and "（登录后可用）" in anonymous
    client = sample_app.test_client()
    login(client, "alice")
    signed_in = client.get("/help/search").get_data(as_text=True)
    assert link in signed_in and "（登录后可用）" not in signed_in
    assert client.get("/cards?q=own%3E0").status_code == 200


# ---- GET /api/v1/cards ------------------------------------------------------------------------------


def test_api_search_uses_the_bearer_or_the_session_and_stays_open(sample_app: Any, make_user: Any, login: Any) -> None:
    engine = get_engine(sample_app)
    with Session(engine) as session, session.begin():
        alice = make_user(session, "alice")
        _row, token = issue_token(session=session, user=alice, now=NOW)
        alice_id = alice.id
    give(engine, alice_id, "M4-008")
    client = sample_app.test_client()
    body = client.get("/api/v1/cards", query_string={"q": "own>0"}, headers={"Authorization": f"Bearer {token}"})
    assert body.status_code == 200
    assert [c["name"] for c in body.get_json()["cards"]] == ["灰姑娘·水晶王妃"]

    anonymous = client.get("/api/v1/cards", query_string={"q": "own>0"})
    assert anonymous.status_code == 400
    assert "需要登录" in anonymous.get_json()["error"]["message"]
    assert client.get("/api/v1/cards", query_string={"q": "swk"}).status_code == 200  # no 401 for anyone
    bad = client.get("/api/v1/cards", query_string={"q": "swk"}, headers={"Authorization": "Bearer lz_revoked"})
    assert bad.status_code == 401

    session_client = sample_app.test_client()
    login(session_client, "alice")
    via_cookie = session_client.get("/api/v1/cards", query_string={"q": "own>0"}).get_json()
    assert [c["name"] for c in via_cookie["cards"]] == ["灰姑娘·水晶王妃"]

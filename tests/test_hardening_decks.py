"""the deck checker's work is bounded whatever the catalogue and the list.

The card pool is cached per catalogue version (a value in the database that every import
changes, so several app servers agree), suggestions come from a bounded index, and a list has
at most so many characters and card lines.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog import db as catalog_db
from catalog.decks import check
from catalog.decks.check import check_decklist, load_pool, pool_card
from catalog.decks.lists import MAX_LINES, MAX_TEXT_CHARS, SUGGESTED_LINES, DecklistError, parse_decklist
from catalog.fuzzy import CANDIDATES, NameIndex
from catalog.ingest import import_catalogue
from catalog.models import Card, CardSet, Game, Printing
from tests.conftest import SAMPLE


def _statements(engine: Engine) -> list[str]:
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    return seen


def test_the_card_pool_is_loaded_once_per_catalogue_version(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        first = load_pool(session, "samsara")
    seen = _statements(sample_catalogue)
    with Session(sample_catalogue) as session:
        again = load_pool(session, "samsara")
        check_decklist(session=session, text="3 不存在的卡\n", game="samsara")
    assert again is first
    assert not [s for s in seen if "FROM printing" in s or "FROM card " in s]  # no card read twice

    with catalog_db.transaction(sample_catalogue) as session:  # an import (even unchanged) is a new version
        import_catalogue(session=session, paths=[SAMPLE / "samsara"])
    with Session(sample_catalogue) as session:
        assert load_pool(session, "samsara") is not first


def test_an_uncommitted_import_never_reaches_other_sessions(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        before = load_pool(session, "samsara")
    with Session(sample_catalogue) as importing:
        import_catalogue(session=importing, paths=[SAMPLE / "samsara"])
        assert load_pool(importing, "samsara") is not before  # the import's own view
        importing.rollback()
    with Session(sample_catalogue) as session:
        assert load_pool(session, "samsara") is before


def test_the_pool_decodes_each_json_text_once_and_matches_the_cards(sample_catalogue: Engine) -> None:
    # read as json, PostgreSQL's driver decoded each of the 3.6 million JSON values of
    # a million printings into its own object (a third of the first check's CPU). The pool reads
    # them as text and decodes each distinct text once, on every database.
    check._pools.clear()
    with Session(sample_catalogue) as session:
        pool = load_pool(session, "samsara")
        game = session.exec(select(Game).where(Game.slug == "samsara")).one()
        codes: dict[int, set[str]] = {}
        for card_id, code in session.exec(
            select(Printing.card_id, CardSet.code).join(CardSet).where(CardSet.game_id == game.id)
        ):
            codes.setdefault(card_id, set()).add(code)
        cards = list(session.exec(select(Card).where(Card.game_id == game.id)))
    assert len(pool.cards) == len(cards)
    for card in cards:  # the same snapshot as the card page's, read from the ORM object
        assert card.id is not None
        expected, got = pool_card(card, codes.get(card.id, set())), pool.cards[card.id]
        assert {f.name: getattr(got, f.name) for f in fields(got)} == {
            f.name: getattr(expected, f.name) for f in fields(expected)
        }
    by_text: dict[str, list[Any]] = {}
    for got in pool.cards.values():
        if got.keywords:
            by_text.setdefault(json.dumps(got.keywords, sort_keys=True), []).append(got.keywords)
    shared = [group for group in by_text.values() if len(group) > 1]
    assert shared  # the sample has cards with the same keywords
    for group in shared:  # one decoded value per distinct text, shared between the cards
        assert all(k is group[0][0] for keywords in group for k in keywords[:1])


@pytest.mark.parametrize(
    ("text", "readable"),
    [
        ("".join(f"1 卡{i}\n" for i in range(MAX_LINES)), True),
        ("".join(f"1 卡{i}\n" for i in range(MAX_LINES + 1)), False),
        ("1 卡\n" + "#" * (MAX_TEXT_CHARS - 4), True),
        ("1 卡\n" + "#" * (MAX_TEXT_CHARS - 3), False),
        ('{"main": [' + ",".join(f'"卡{i}"' for i in range(MAX_LINES + 1)) + "]}", False),
    ],
)
def test_a_decklist_has_at_most_so_many_lines_and_characters(text: str, readable: bool) -> None:
    if readable:
        assert parse_decklist(text).lines
    else:
        with pytest.raises(DecklistError, match="卡组太长"):
            parse_decklist(text)


def test_only_the_first_unknown_lines_get_suggestions(sample_catalogue: Engine) -> None:
    text = "".join(f"1 小红帽森林歌者{i}\n" for i in range(SUGGESTED_LINES + 5))
    with Session(sample_catalogue) as session:
        verdict = check_decklist(session=session, text=text, game="samsara").verdict
    unknown = [v for v in verdict.violations if v.code == "unknown_card"]
    assert len(unknown) == SUGGESTED_LINES + 5
    assert all(v.suggestions for v in unknown[:SUGGESTED_LINES])
    assert not any(v.suggestions for v in unknown[SUGGESTED_LINES:])


def test_name_index_scores_a_bounded_number_of_names() -> None:
    # 10,000 names sharing "龙" and a digit: a query scores at most CANDIDATES of them.
    names = [f"龙{i:05d}" for i in range(10_000)] + ["火焰龙王"]
    index = NameIndex(names)
    assert index.nearest("火焰龍王".replace("龍", "龙"))[0] == "火焰龙王"
    assert index.nearest("完全无关") == []
    assert len(index.nearest("龙00001", limit=CANDIDATES + 10)) <= CANDIDATES


def test_the_api_refuses_a_huge_decklist_body_before_reading_it(sample_app: Any, client: Any) -> None:
    body = ("1 卡\n" * 200_000).encode()  # 1.6 MB
    response = client.post("/api/v1/decks/check?game=samsara", data=body, content_type="text/plain")
    assert response.status_code == 413 and response.json["error"]["code"] == "too_large"
    long = "1 卡\n" + "#" * MAX_TEXT_CHARS
    response = client.post("/api/v1/decks/check?game=samsara", data=long.encode(), content_type="text/plain")
    assert response.status_code == 400 and "卡组太长" in response.json["error"]["message"]

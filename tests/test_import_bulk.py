"""The importer's bulk SQL (catalog.ingest.bulk) on the database under test: lookups by a list of
values in one statement, ids reserved before an insert; the JSON its inserts write."""

from __future__ import annotations

import json

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog.ingest.bulk import bulk_insert, reserve_ids, select_in, to_json
from catalog.models import Card, Game, table_of


def _card(game_id: int, name: str, **values: object) -> dict[str, object]:
    return {
        "game_id": game_id,
        "name": name,
        "name_en": "",
        "name_key": name,
        "pinyin": "",
        "initials": "",
        "type": "战魂",
        "subtype": "",
        "attributes": "",
        "attr_mask": 0,
        "faction": "",
        "cost_text": "",
        "cost": None,
        "cost_total": None,
        "attack": None,
        "defense": None,
        "level": None,
        "life": None,
        "traits": [],
        "keywords": [],
        "text": "",
        "text_key": "",
        "extra": {},
        "rules_hash": f"h-{name}",
        **values,
    }


def test_select_in_finds_the_rows_of_the_values_named_and_no_other(engine: Engine) -> None:
    names = ["孙悟空", "O'Brien", 'say "hi"', "a,b", "%_", "龙 龍"]
    with Session(engine) as session, session.begin():
        games = [Game(slug=f"g{i}", name=f"G{i}") for i in range(2)]
        session.add_all(games)
        session.flush()
        one, other = (g.id for g in games)
        assert one is not None and other is not None
        bulk_insert(session, table_of(Card), [_card(one, name) for name in [*names, "unasked"]])
        bulk_insert(session, table_of(Card), [_card(other, name) for name in names])
        table = table_of(Card)
        asked = [*names, "absent", "孙悟"]
        for _ in range(8):  # past the driver's threshold for preparing a statement it runs again
            found = select_in(session, table, ("name", "rules_hash"), {"game_id": one}, "name", asked)
            assert sorted(found) == sorted((name, f"h-{name}") for name in names)
        assert select_in(session, table, ("name",), {"game_id": one}, "name", []) == []
        assert select_in(session, table, ("name",), {"game_id": other}, "name", ["unasked"]) == []


def test_reserved_ids_are_the_ones_the_database_would_have_given(engine: Engine) -> None:
    """Rows inserted with reserved ids get the ids they would have had without them, and a row
    inserted afterwards without an id takes the next one (the sequence / rowid moved on)."""
    table = table_of(Card)
    with Session(engine) as session, session.begin():
        game = Game(slug="g", name="G")
        session.add(game)
        session.flush()
        assert game.id is not None
        bulk_insert(session, table, [_card(game.id, "first")])
        (first,) = session.scalars(select(Card.id).where(Card.name == "first"))
        assert first is not None
        assert reserve_ids(session, table, 0) == []
        reserved = reserve_ids(session, table, 3)
        assert reserved == [first + 1, first + 2, first + 3]
        bulk_insert(session, table, [_card(game.id, f"r{n}", id=i) for n, i in enumerate(reserved, start=1)])
        bulk_insert(session, table, [_card(game.id, "after")])
        ids = {
            name: card_id
            for name, card_id in session.execute(select(Card.name, Card.id).where(Card.game_id == game.id))
        }
    assert ids == {"first": first, "r1": first + 1, "r2": first + 2, "r3": first + 3, "after": first + 4}


@pytest.mark.parametrize(
    "value",
    [
        [],
        {},
        ["星武装机"],
        ["a", "b"],
        {"光": 2, "无": 3},
        [{"kind": "guard", "value": None, "subject": None, "label": "防守"}],
        [{"kind": "legion", "value": 4, "subject": "『童话』", "label": "军团(4)"}],
        {"amber": 1, "nested": {"x": [1.5, True, False, None]}},
        ['quote " and \\ backslash', "\x1f control", "\u2028"],
    ],
)
def test_column_json_is_what_json_dumps_writes(value: object) -> None:
    assert to_json(value) == json.dumps(value, ensure_ascii=False)

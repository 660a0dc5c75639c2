"""a card is found the way people write it, the same in a collection file and a
decklist (one resolver, catalog/lookup.py): numbers with or without padding and set prefix, the
set by code in any case or by name in either script, names in Chinese (either script), English,
pinyin. Both databases."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.collection import import_collection
from catalog.decks.check import check_decklist
from tests.kits.collection import NOW, committed_user

FORMS = [
    # game, set, number, name → the printing meant
    ("keyforge", "SMP", "1", "", "SMP-001"),
    ("keyforge", "smp", "001", "", "SMP-001"),
    ("keyforge", "Smp", "smp-001", "", "SMP-001"),
    ("keyforge", "熔钥秘境 样本卡集", "1", "", "SMP-001"),
    ("keyforge", "熔鑰秘境 樣本卡集", "01", "", "SMP-001"),
    ("keyforge", "", "", "Summit Fist Champion", "SMP-001"),
    ("keyforge", "", "", "summit fist champion", "SMP-001"),
    ("keyforge", "SMP", "", "Potlid Goblin", "SMP-002"),
    ("keyforge", "", "", "山嶽拳王", "SMP-001"),
    ("samsara", "m4", "1", "", "M4-001"),
    ("samsara", "奇幻征途", "M4-001", "", "M4-001"),
    ("samsara", "P2", "8", "", "P2-008"),
    ("samsara", "", "", "孫悟空", "P2-008"),
    ("samsara", "", "", "sunwukong", "P2-008"),
    ("samsara", "", "", "Sun Wukong", "P2-008"),
    ("samsara", "P2", "008", "sun wukong", "P2-008"),
]


def _deck_line(set_text: str, number: str, name: str) -> str:
    if set_text and number:
        return f"1 {name} ({set_text}) {number}".replace("1  (", "1 (")
    if set_text:
        return f"1 {name} ({set_text})"
    return f"1 {name}"


@pytest.mark.parametrize(("game", "set_text", "number", "name", "expected"), FORMS)
def test_the_same_words_find_the_same_card_in_a_collection_file_and_a_decklist(
    sample_catalogue: Engine, make_user, game: str, set_text: str, number: str, name: str, expected: str
) -> None:
    user_id = committed_user(sample_catalogue, make_user)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["set", "number", "name", "quantity"])
    writer.writerow([set_text, number, name, 1])
    with Session(sample_catalogue) as session:
        report = import_collection(
            session=session, user_id=user_id, data=out.getvalue().encode(), dry_run=True, now=NOW
        )
        assert [c["number"] for c in report.changes] == [expected]
        card_name = report.changes[0]["name"]
        checked = check_decklist(session=session, text=_deck_line(set_text, number, name), game=game)
        assert [e.card.name for e in checked.deck.entries] == [card_name], checked.verdict

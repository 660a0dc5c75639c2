"""A fifth game is one package + its data: the made-up 水墨 (``tests/fakegame/``) is added to the
registry and then imported, searched, checked, drawn and shown like the four real games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.decks.check import check_decklist
from catalog.games import GAMES
from catalog.ingest import import_catalogue
from catalog.search import search
from tests.fakegame import DATA, SHUIMO


@pytest.fixture
def shuimo(monkeypatch: pytest.MonkeyPatch, engine: Engine) -> Engine:
    """The registry with 水墨 in it, and its catalogue imported."""
    monkeypatch.setitem(GAMES, SHUIMO.slug, SHUIMO)
    with catalog_db.transaction(engine) as session:
        report = import_catalogue(session=session, paths=[Path(DATA)])
    assert (report.games, report.printings.added, report.formats.added) == (["shuimo"], 3, 1)
    return engine


@pytest.mark.parametrize(
    ("text", "legal", "codes"),
    [
        ("2 松风\n2 竹影\n2 远山卷\n", True, []),
        ("3 松风\n2 竹影\n1 远山卷\n", False, ["too_many_copies"]),
        ("2 松风\n2 竹影\n", False, ["deck_too_small"]),
        ("2 松风\n2 竹影\n3 远山卷\n", False, ["deck_too_large", "too_many_copies"]),
        # an unknown line counts with its copies: 7 cards as the player meant them
        ("2 松风\n2 竹影\n2 远山卷\n1 不存在\n", False, ["deck_too_large", "unknown_card"]),
        ("2 松风\n2 竹影\n1 远山卷\n1 不存在\n", False, ["unknown_card"]),
    ],
)
def test_its_decks_are_checked_by_its_own_rules(shuimo: Engine, text: str, legal: bool, codes: list[str]) -> None:
    with Session(shuimo) as session:
        check = check_decklist(session=session, text=text, game="shuimo", format_code="duel")
    assert check.verdict.legal is legal
    assert sorted(v.code for v in check.verdict.violations) == sorted(codes)


def test_its_cards_are_searched_with_its_vocabulary(shuimo: Engine) -> None:
    with Session(shuimo) as session:
        assert [hit.card.name for hit in search(session=session, text="g:shuimo t:卷").hits] == ["远山卷"]
        assert [hit.card.name for hit in search(session=session, text="r>=灰", game="shuimo").hits] == [
            "远山卷",
            "竹影",
        ]
        assert search(session=session, text="songfeng").total == 1  # pinyin keys, as for every game


def test_its_pages_rules_and_faces_are_served(shuimo: Engine, app: Any, client: Any) -> None:
    assert "水墨" in client.get("/").get_data(as_text=True)
    card = client.get("/cards/shuimo/松风")
    assert card.status_code == 200 and "抽一张牌。" in card.get_data(as_text=True)
    rules = client.get("/rules/shuimo")
    assert rules.status_code == 200 and "同名卡最多 2 张" in rules.get_data(as_text=True)
    face = client.get("/images/shuimo/SM1/SM1-001.small.png")
    assert face.status_code == 200 and face.mimetype == "image/png"
    odds = client.get("/decks", query_string={"game": "shuimo", "list": "2 松风\n2 竹影\n2 远山卷\n"})
    assert odds.status_code == 200 and "起手 3 张" in odds.get_data(as_text=True)

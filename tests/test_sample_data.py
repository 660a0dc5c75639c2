"""The shipped sample catalogue covers what the seeds describe (issue: foundation, item 6)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.games.samsara import SAMSARA
from catalog.games.samsara.vocabulary import KEYWORDS
from catalog.models import Card, CardKeyword, CardSet, Format, Game, Printing

EL_SETS = ["S8", "S9", "S10", "S12", "S13", *(f"M{i}" for i in range(1, 15)), "G1", "G2", "P1", "P2", "P3"]
BOOSTERS = ["M4", "M5", "M6", "M7", "M8", "P1", "P2", "G2"]


def _set_rarities(session: Session, code: str) -> list[str]:
    return list(
        session.scalars(
            select(Printing.rarity)
            .join(CardSet, CardSet.id == Printing.set_id)
            .join(Game, Game.id == CardSet.game_id)
            .where(Game.slug == "samsara", CardSet.code == code)
        )
    )


def test_every_el_set_of_the_seed_is_there(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        codes = set(session.scalars(select(CardSet.code).join(Game).where(Game.slug == "samsara")))
        assert set(EL_SETS) <= codes
        for card_set in session.scalars(select(CardSet).join(Game).where(Game.slug == "samsara")):
            assert card_set.series in "SMPG" and card_set.description and card_set.sample


@pytest.mark.parametrize("code", BOOSTERS)
def test_booster_sets_span_all_rarities(sample_catalogue: Engine, code: str) -> None:
    with Session(sample_catalogue) as session:
        rarities = _set_rarities(session, code)
    assert len(rarities) >= 40
    assert set(rarities) == set(SAMSARA.rarity.codes)


def test_g2_reprints_m1_to_m3_cards(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        reprinted = session.scalars(
            select(Card.name)
            .join(Printing, Printing.card_id == Card.id)
            .join(CardSet, CardSet.id == Printing.set_id)
            .where(CardSet.code.in_(["M1", "M2", "M3", "G2"]))
            .group_by(Card.id, Card.name)
            .having(func.count(func.distinct(CardSet.code)) >= 2)
        ).all()
    assert len(reprinted) >= 12


def test_mana_stones_of_every_attribute(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        stones = session.scalars(
            select(Card.attributes).join(Game).where(Game.slug == "samsara", Card.type == "法力石")
        ).all()
    assert {"火", "水", "风", "地", "光", "暗"} <= set(stones)


def test_every_keyword_of_the_glossary_is_used(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        kinds = set(session.scalars(select(CardKeyword.kind).join(Card).join(Game).where(Game.slug == "samsara")))
    assert {k.kind for k in KEYWORDS} <= kinds


@pytest.mark.parametrize(
    ("game", "formats"),
    [
        ("samsara", {"standard"}),
        ("longzhiyi", {"casual", "tournament"}),
        ("zhutian", {"casual", "competitive"}),
        ("keyforge", {"archon"}),
    ],
)
def test_each_game_has_cards_and_formats(sample_catalogue: Engine, game: str, formats: set[str]) -> None:
    with Session(sample_catalogue) as session:
        game_row = session.scalars(select(Game).where(Game.slug == game)).one()
        cards = session.scalar(select(func.count()).select_from(Card).where(Card.game_id == game_row.id))
        codes = set(session.scalars(select(Format.code).where(Format.game_id == game_row.id)))
    assert cards >= 40
    assert formats <= codes

"""Every real KeyForge set in one catalogue: open vocabularies, errata, multi-house
cards, names as people write them. Uses ../shared/realdata when it is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.models import Card, CardSet, Game, Printing
from tests.conftest import REALDATA
from tests.kits.db import table_counts

SETS = ("CotA", "AoA", "WC", "MM", "DT", "WoE", "AS", "PV", "CC", "ToC", "MG24")
FILES = [REALDATA / f"keyforge-{code}.json" for code in SETS]
DECKS = REALDATA / "keyforge-standalone-decks.json"
needs_sets = pytest.mark.skipif(
    not all(f.is_file() for f in FILES), reason=f"needs the 11 real KeyForge sets in {REALDATA} (absent here)"
)


def _import(engine: Engine, paths: list[Path]):
    with catalog_db.transaction(engine) as session:
        return import_catalogue(session=session, paths=paths)


@pytest.fixture(scope="module")
def all_sets(tmp_path_factory: pytest.TempPathFactory):
    """One database holding all 11 sets, imported in one run (shared by the read-only tests)."""
    if not all(f.is_file() for f in FILES):
        pytest.skip(f"needs the 11 real KeyForge sets in {REALDATA} (absent here)")
    from catalog.db import make_engine

    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('kf') / 'kf.db'}")
    catalog_db.upgrade(engine)
    report = _import(engine, [*FILES, DECKS] if DECKS.is_file() else FILES)
    return engine, report


@needs_sets
def test_all_sets_import_in_one_run(all_sets) -> None:
    engine, report = all_sets
    assert report.printings.added == 4574
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(CardSet)) == 11
        # a reprint is one card: Anger is printed in several sets
        anger = session.scalars(select(Card).where(Card.name_en == "Anger")).one()
        sets = session.scalars(
            select(CardSet.code).join(Printing, Printing.set_id == CardSet.id).where(Printing.card_id == anger.id)
        ).all()
        assert len(sets) > 1


@needs_sets
def test_new_vocabulary_reported_once_per_word_and_searchable(all_sets) -> None:
    engine, report = all_sets
    words = {(column, word): count for (_game, column, word), count in report.new_words.items()}
    assert words[("keywords", "treachery")] == 14
    assert words[("type", "token creature")] == 84
    assert words[("rarity", "Evil Twin")] == 49
    assert words[("house", "keyraken")] == 27
    with Session(engine) as session:
        vocabulary = session.scalars(select(Game.vocabulary)).one()
        assert "keyraken" in vocabulary["houses"] and "token creature" in vocabulary["types"]
    from catalog.search import search

    with Session(engine) as session:
        for query in ("kw:treachery", "t:token creature", "house:keyraken", "r:Token"):
            query = query if " " not in query else 't:"token creature"'
            result = search(session=session, text=query, game="keyforge")
            assert result.total > 0, query


@needs_sets
def test_errata_newest_set_wins_older_wording_kept(all_sets) -> None:
    engine, report = all_sets
    assert report.errata > 0
    with Session(engine) as session:
        oxtet = session.scalars(select(Card).where(Card.name_en == "Lesser Oxtet")).one()
        assert "After Reap:" in oxtet.text  # ToC (newest) words it so; WC said "Reap:"
        older = session.scalars(select(Printing.printed_text).where(Printing.card_id == oxtet.id)).all()
        assert any(t.startswith("Elusive. Play: Purge each card in your hand. Reap:") for t in older)
        # markup, U+202F and private-use icons are normalised: no erratum from them
        lava = session.scalars(select(Card).where(Card.name_en == "Lava Ball")).one()
        assert "\u202f" not in lava.text and "<D>" not in lava.text and "\uf361" not in lava.text


@needs_sets
def test_reimport_is_a_no_op(all_sets) -> None:
    engine, _report = all_sets
    before = table_counts(engine)
    assert not _import(engine, FILES).changed
    assert table_counts(engine) == before


@needs_sets
def test_spreadsheet_error_refused_as_name_and_zhhant_kept(all_sets) -> None:
    engine, report = all_sets
    assert any("#N/A" in str(note) and "WC" in str(note) for note in report.notes)
    with Session(engine) as session:
        assert session.scalars(select(Card).where(Card.name == "#N/A")).first() is None
        anger = session.scalars(select(Card).where(Card.name_en == "Anger")).one()
        assert anger.extra["zhhant"] == "怒火中燒"
    from catalog.search import search

    with Session(engine) as session:
        # the official Traditional name differs from the Simplified one: search finds it too
        found = search(session=session, text="古戰場", game="keyforge")
        assert "远古战场" in [hit.card.name for hit in found.hits]


@needs_sets
def test_multi_house_card_is_one_card_in_every_house(all_sets) -> None:
    engine, _report = all_sets
    from catalog.search import search

    with Session(engine) as session:
        vault = session.scalars(select(Card).where(Card.name_en == "Dark Æmber Vault")).one()
        houses = vault.faction.split("|")
        assert len(houses) == 7
        for house in ("dis", "saurian", "logos", "untamed"):
            result = search(session=session, text=f"f:{house} {vault.name}", game="keyforge")
            assert result.total == 1, house


@needs_sets
@pytest.mark.parametrize("order", [SETS, tuple(reversed(SETS))])
def test_sets_one_at_a_time_in_any_order(engine: Engine, all_sets, order: tuple[str, ...]) -> None:
    for code in order:
        _import(engine, [REALDATA / f"keyforge-{code}.json"])
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(Printing)) == 4574
        oxtet = session.scalars(select(Card).where(Card.name_en == "Lesser Oxtet")).one()
        assert "After Reap:" in oxtet.text
    # the same catalogue as one run gives: every card's rules, houses, ids and Traditional name
    # (only a card whose Chinese name changed between sets keeps the one met first)
    one_run, here = _cards(all_sets[0]), _cards(engine)
    assert one_run.keys() == here.keys()
    assert {k for k in one_run if one_run[k][1:] != here[k][1:]} == set()
    assert {k for k in one_run if one_run[k][0] != here[k][0]} <= _renamed_between_sets()


def _renamed_between_sets() -> set[str]:
    names: dict[str, set[str]] = {}
    for path in FILES:
        for card in json.loads(path.read_text(encoding="utf-8"))["cards"]:
            english = " ".join(card["name"].split())
            chinese = " ".join(((card.get("locale") or {}).get("zhhans") or {}).get("name", "").split())
            if chinese and chinese != english:
                names.setdefault(english, set()).add(chinese)
    return {english for english, found in names.items() if len(found) > 1}


def _cards(engine: Engine) -> dict[str, tuple]:
    with Session(engine) as session:
        return {
            c.name_en: (
                c.name,
                c.text,
                c.faction,
                tuple(c.traits),
                repr(c.keywords),
                c.attack,
                c.defense,
                repr(sorted(c.extra.items())),
                c.type,
            )
            for c in session.scalars(select(Card))
        }


def test_new_words_and_malformed_values(engine: Engine, tmp_path: Path) -> None:
    """Without the real files: a later set's new words are accepted, a malformed one refused."""
    card = {
        "id": "x",
        "name": "Test Card",
        "number": "001",
        "house": "newhouse",
        "keywords": ["glimmer:2"],
        "traits": ["robot"],
        "type": "creature",
        "rarity": "Mythic",
        "amber": 0,
        "armor": None,
        "power": 3,
        "text": "Play: Gain 1<A>.",
        "locale": {"zhhans": {"name": "#REF!"}, "zhhant": {"name": "測試卡"}},
    }
    path = tmp_path / "NEW.json"
    path.write_text(json.dumps({"ids": ["999"], "code": "NEW", "name": "New", "cards": [card]}), encoding="utf-8")
    report = _import(engine, [path])
    assert {w for (_g, _c, w) in report.new_words} == {"newhouse", "glimmer", "Mythic"}
    assert any("#REF!" in str(n) for n in report.notes)
    with Session(engine) as session:
        stored = session.scalars(select(Card)).one()
        assert stored.name == "Test Card" and stored.defense == 0 and stored.text == "Play: Gain 1A."
    assert not _import(engine, [path]).new_words  # reported once: now the words are known


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        ("with\u202f2D", "with 2D", "第 5 个字符：U+202F ≠ U+0020"),
        ("Elf", "elf", "第 1 个字符：U+0045 ≠ U+0065"),
        ("\ufeffPlay", "Play", "第 1 个字符：U+FEFF ≠ U+0050"),
    ],
)
def test_messages_show_the_code_points_of_strings_that_look_equal(a: str, b: str, shown: str) -> None:
    from catalog.ingest.differences import describe as _describe

    message = _describe(["text"], {"text": a}, {"text": b})
    assert shown in message


def test_messages_use_the_files_words() -> None:
    from catalog.games import get_game
    from catalog.ingest.differences import describe as _describe

    message = _describe(
        ["defense", "faction"], {"defense": 0, "faction": "a"}, {"defense": 1, "faction": "b"}, get_game("keyforge")
    )
    assert message.startswith("armor「0」≠「1」；house「a」≠「b」")


@needs_sets
def test_card_page_shows_every_house_and_the_older_wording(client) -> None:
    from urllib.parse import quote

    from webapp.db import get_engine

    engine = get_engine(client.application)
    catalog_db.upgrade(engine)
    _import(engine, FILES)
    with Session(engine) as session:
        oxtet = session.scalars(select(Card).where(Card.name_en == "Lesser Oxtet")).one().name
        vault = session.scalars(select(Card).where(Card.name_en == "Dark Æmber Vault")).one()
    page = client.get(f"/cards/keyforge/{quote(oxtet)}").get_data(as_text=True)
    assert "此版措辞不同" in page and "Reap: Keys cost +3A" in page
    page = client.get(f"/cards/keyforge/{quote(vault.name)}").get_data(as_text=True)
    assert "、".join(vault.faction.split("|")) in page

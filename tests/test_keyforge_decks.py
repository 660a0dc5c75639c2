"""KeyForge decks as objects: keyteki's deck JSON (one or a list), Master
Vault's shape, pasted text with a heading per house and markers; mavericks and multi-house cards
count in the house they play for; tokens and other non-deck cards count in none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.decks.check import check_decklists
from catalog.games.keyforge.rules import assign_houses
from catalog.ingest import import_catalogue
from catalog.models import Card
from tests.conftest import REALDATA

SETS = ("CotA", "AoA", "WC", "MM", "DT", "WoE", "AS", "PV", "CC", "ToC", "MG24")
FILES = [REALDATA / f"keyforge-{code}.json" for code in SETS]
DECKS = REALDATA / "keyforge-standalone-decks.json"
HAVE = all(f.is_file() for f in FILES) and DECKS.is_file()
REASON = f"needs the real KeyForge sets and standalone decks in {REALDATA} (absent here)"


@pytest.fixture(scope="module")
def kf(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    if not HAVE:
        pytest.skip(REASON)
    engine = catalog_db.make_engine(f"sqlite:///{tmp_path_factory.mktemp('kfdecks') / 'kf.db'}")
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=FILES)
    return engine


def _mm_houses() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    if HAVE:
        for card in json.loads((REALDATA / "keyforge-MM.json").read_text(encoding="utf-8"))["cards"]:
            found.setdefault(card["id"], []).append(card["house"])
    return found


MM_HOUSES = _mm_houses()


def _decks() -> list[dict[str, Any]]:
    return json.loads(DECKS.read_text(encoding="utf-8"))


def _check(engine: Engine, text: str):
    with Session(engine) as session:
        return check_decklists(session=session, text=text, game="keyforge")


def _cards_by_slug(engine: Engine) -> dict[str, Card]:
    with Session(engine) as session:
        found: dict[str, Card] = {}
        for card in session.scalars(select(Card)):
            for slug in card.extra.get("ids") or ():
                found[slug] = card
        session.expunge_all()
        return found


def _as_text(engine: Engine, deck: dict[str, Any], *, chinese: bool) -> str:
    """A standalone deck as people paste it: name, houses, a heading per house (each card under
    the house it plays for in the deck read from keyteki's JSON), markers."""
    from catalog.games import GAMES

    houses = GAMES["keyforge"].houses
    (check,) = _check(engine, json.dumps(deck))
    english = {houses.resolve(h): h for h in deck["houses"]}
    lines = [f"name: {deck['name']}", "game: 熔钥秘境", f"houses: {', '.join(deck['houses'])}"]
    by_house: dict[str, list[str]] = {h: [] for h in english}
    for entry, house in assign_houses(check.deck):
        markers = (" [变节]" if chinese else " [maverick]") if entry.maverick else ""
        if entry.enhancements:
            markers += f" [{'强化' if chinese else 'enhanced'}: {', '.join(entry.enhancements)}]"
        name = entry.card.name if chinese else entry.card.name_en
        by_house[house].append(f"{entry.count} {name}{markers}")
    for house, cards in by_house.items():
        lines += [f"{house if chinese else english[house].title()}:", *cards]
    return "\n".join(lines)


@pytest.mark.skipif(not HAVE, reason=REASON)
def test_the_14_standalone_decks_are_legal_as_keyteki_json(kf: Engine) -> None:
    checks = _check(kf, DECKS.read_text(encoding="utf-8"))
    assert len(checks) == 14
    for check in checks:
        assert check.verdict.legal, (check.deck.name, [v.message for v in check.verdict.violations])
        assert check.verdict.counts["main"] == 36
        assert not check.verdict.violations  # no house_size warning either


@pytest.mark.skipif(not HAVE, reason=REASON)
def test_deck_4_maverick_counts_in_sanctum(kf: Engine) -> None:
    deck = _decks()[3]
    (check,) = _check(kf, json.dumps(deck))
    per_house: dict[str, int] = {}
    for entry, house in assign_houses(check.deck):
        per_house[house] = per_house.get(house, 0) + entry.count
    assert per_house == {"冥界": 12, "圣所": 12, "星际联盟": 12}
    mavericks = [e for e in check.deck.entries if e.maverick]
    assert {e.house for e in mavericks} == {"圣所", "星际联盟"}
    assert any(e.enhancements == ("capture", "draw") for e in check.deck.entries)


@pytest.mark.skipif(not HAVE, reason=REASON)
@pytest.mark.parametrize("chinese", [False, True], ids=["English names", "Chinese names"])
def test_the_14_decks_pasted_as_text_are_legal(kf: Engine, chinese: bool) -> None:
    for deck in _decks():
        (check,) = _check(kf, _as_text(kf, deck, chinese=chinese))
        assert check.verdict.legal, (deck["name"], [v.message for v in check.verdict.violations])
        assert not check.verdict.violations, (deck["name"], [v.message for v in check.verdict.violations])


@pytest.mark.skipif(not HAVE, reason=REASON)
def test_master_vault_shaped_deck(kf: Engine) -> None:
    deck = _decks()[3]
    by_slug = _cards_by_slug(kf)
    linked, ids, icons = {}, [], []
    for n, entry in enumerate(deck["cards"]):
        card = by_slug[entry["id"]]
        card_id = f"c{n}"
        house = entry.get("maverick") or next(h for h in deck["houses"] if h in MM_HOUSES[entry["id"]])
        linked[card_id] = {
            "id": card_id,
            "card_title": card.name_en,
            "house": house,
            "is_maverick": bool(entry.get("maverick")),
        }
        ids += [card_id] * entry["count"]
        if entry.get("enhancements"):
            icons.append({"card_id": card_id, "bonus_icons": entry["enhancements"]})
    data = {
        "data": {
            "name": deck["name"],
            "id": deck["uuid"],
            "_links": {"houses": deck["houses"], "cards": ids},
            "bonus_icons": icons,
        },
        "_linked": {"cards": list(linked.values())},
    }
    (check,) = _check(kf, json.dumps(data))
    assert check.verdict.legal and not check.verdict.violations
    assert check.deck.metadata["id"] == deck["uuid"]


@pytest.mark.skipif(not HAVE, reason=REASON)
@pytest.mark.parametrize("written", ["CotA-001", "cota-001", "COTA 1", "CoTa 001"])
def test_set_codes_in_any_case(kf: Engine, written: str) -> None:
    (check,) = _check(kf, f"1x {written}")
    assert [e.card.name_en for e in check.deck.entries] == ["Anger"]


@pytest.mark.skipif(not HAVE, reason=REASON)
def test_multi_house_card_counts_in_the_house_it_plays_for_and_tokens_in_none(kf: Engine) -> None:
    with Session(kf) as session:
        vault = session.scalars(select(Card).where(Card.name_en == "Dark Æmber Vault")).one()
        token = session.scalars(select(Card).where(Card.type == "token creature")).first()
        assert token is not None
        names = {"dis": [], "logos": [], "untamed": []}
        for card in session.scalars(select(Card).where(Card.type == "生物")):
            for house in names:
                if (
                    card.faction == {"dis": "冥界", "logos": "逻格斯", "untamed": "野性"}[house]
                    and len(names[house]) < 12
                ):
                    names[house].append(card.name)
    text = ["houses: dis, logos, untamed"]
    names["dis"] = names["dis"][:11]
    for house, cards in names.items():
        text += [f"{house}:", *(f"1 {n}" for n in cards)]
    text.insert(2, f"1 {vault.name}")  # under the Dis heading: plays for Dis
    text.append(f"1 {token.name}")  # not a deck card: counted nowhere
    (check,) = _check(kf, "\n".join(text))
    assert check.verdict.legal, [v.message for v in check.verdict.violations]
    assert not check.verdict.violations
    assert check.verdict.counts["main"] == 37  # as written; the rule counts 36 deck cards


def test_unknown_marker_is_a_clear_error(tmp_path: Path) -> None:
    from catalog.decks.lists import DecklistError, parse_decklists

    with pytest.raises(DecklistError) as error:
        parse_decklists("1 Anger [shiny]", houses=True)
    assert "未知的标记「[shiny]」" in str(error.value.message.zh)
    (deck,) = parse_decklists("Sanctum:\n1 Anger [maverick] [enhanced: draw, 捕获]", houses=True)
    line = deck.lines[0]
    assert (line.house, line.maverick, line.enhancements, line.name) == ("Sanctum", True, ("draw", "capture"), "Anger")


@pytest.mark.skipif(not HAVE, reason=REASON)
def test_cli_deck_check_gives_one_verdict_per_deck(runner, engine: Engine) -> None:
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=FILES)
    result = runner.invoke(args=["deck", "check", str(DECKS), "--game", "keyforge", "--json"])
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.output)
    assert [v["deck"] for v in verdicts] == [d["name"] for d in _decks()]
    assert all(v["legal"] and v["counts"]["main"] == 36 for v in verdicts)
    one = runner.invoke(args=["deck", "check", "-", "--game", "keyforge", "--json"], input=json.dumps(_decks()[3]))
    assert one.exit_code == 0 and json.loads(one.output)["legal"] is True  # one deck: one verdict, as before

"""Read-only catalogue queries for pages and the API: games, sets, a set's printings, a card."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from catalog.games import GAMES, GameModule, module_of
from catalog.lookup import UnknownPrinting, find_card
from catalog.models import Card, CardKeyword, CardSet, Game, PackTemplate, Printing
from catalog.text import fold


@dataclass
class GameSummary:
    game: Game
    module: GameModule
    sets: int
    cards: int
    printings: int


def _counts(rows: Any) -> dict[int, int]:
    return {key: count for key, count in rows}


def game_summaries(session: Session) -> list[GameSummary]:
    """Every imported game with its counts, in registry order."""
    sets = _counts(session.execute(select(CardSet.game_id, func.count()).group_by(col(CardSet.game_id))))
    cards = _counts(session.execute(select(Card.game_id, func.count()).group_by(col(Card.game_id))))
    printings = _counts(
        session.execute(
            select(CardSet.game_id, func.count())
            .join(Printing, col(Printing.set_id) == col(CardSet.id))
            .group_by(col(CardSet.game_id))
        )
    )
    games = {g.slug: g for g in session.scalars(select(Game))}
    return [
        GameSummary(
            games[slug],
            module,
            sets.get(games[slug].id or 0, 0),
            cards.get(games[slug].id or 0, 0),
            printings.get(games[slug].id or 0, 0),
        )
        for slug, module in GAMES.items()
        if slug in games
    ]


def imported_games(session: Session) -> list[GameModule]:
    """The game modules that have a row in the database (anything imported), in registry order."""
    rows = {g.slug: g for g in session.scalars(select(Game))}
    # each with the catalogue's declared vocabulary (its own rarity ladder, manifest [vocabulary])
    return [module_of(rows[slug]) for slug in GAMES if slug in rows]


def get_game_row(session: Session, slug: str) -> Game | None:
    return session.scalars(select(Game).where(Game.slug == slug)).first()


@dataclass
class SetSummary:
    card_set: CardSet
    printings: int
    rarities: dict[str, int]


def sets_by_series(session: Session, game: Game) -> list[tuple[str, list[SetSummary]]]:
    """The game's sets grouped by series (manifest order), each with its rarity counts."""
    counts = _rarity_counts(session, game.id)
    sets = session.scalars(
        select(CardSet).where(CardSet.game_id == game.id).order_by(col(CardSet.position), col(CardSet.code))
    )
    return _grouped(module_of(game), sets, counts)


def every_set_by_series(session: Session) -> list[tuple[Game, list[tuple[str, list[SetSummary]]]]]:
    """:func:`sets_by_series` of every imported game (registry order) in one statement, not
    two per game: each set joined to its rarity counts (a row per set and rarity, one row with
    no rarity for a set without printings)."""
    counts_of = (
        select(
            col(Printing.set_id).label("set_id"),
            col(Printing.rarity).label("rarity"),
            func.count().label("printings"),
        )
        .group_by(col(Printing.set_id), col(Printing.rarity))
        .subquery()
    )
    counts: dict[int, dict[str, int]] = {}
    per_game: dict[str, tuple[Game, dict[int, CardSet]]] = {}
    for card_set, game, rarity, printings in session.execute(
        select(CardSet, Game, counts_of.c.rarity, counts_of.c.printings)
        .join(Game, col(Game.id) == col(CardSet.game_id))
        .outerjoin(counts_of, counts_of.c.set_id == col(CardSet.id))
        .order_by(col(CardSet.position), col(CardSet.code), col(CardSet.id))
    ):
        per_game.setdefault(game.slug, (game, {}))[1].setdefault(card_set.id or 0, card_set)
        if rarity is not None:
            counts.setdefault(card_set.id or 0, {})[rarity] = printings
    return [
        (per_game[slug][0], _grouped(module_of(per_game[slug][0]), per_game[slug][1].values(), counts))
        for slug in GAMES
        if slug in per_game
    ]


def _rarity_counts(session: Session, game_id: int | None) -> dict[int, dict[str, int]]:
    """set id → rarity → printings, of one game or (``None``) of all."""
    statement = select(Printing.set_id, Printing.rarity, func.count()).group_by(
        col(Printing.set_id), col(Printing.rarity)
    )
    if game_id is not None:
        statement = statement.join(CardSet, col(CardSet.id) == col(Printing.set_id)).where(CardSet.game_id == game_id)
    counts: dict[int, dict[str, int]] = {}
    for set_id, rarity, count in session.execute(statement):
        counts.setdefault(set_id, {})[rarity] = count
    return counts


def _grouped(module: GameModule, sets: Any, counts: dict[int, dict[str, int]]) -> list[tuple[str, list[SetSummary]]]:
    groups: dict[str, list[SetSummary]] = {}
    for card_set in sets:
        rarities = counts.get(card_set.id or 0, {})
        ordered = {r: rarities[r] for r in module.rarity.codes if r in rarities}  # the catalogue's ladder
        groups.setdefault(card_set.series or "", []).append(SetSummary(card_set, sum(ordered.values()), ordered))
    return list(groups.items())


@dataclass
class SetPage:
    card_set: CardSet
    template: PackTemplate | None
    rows: list[tuple[Printing, Card]]
    rarities: dict[str, int]


def _number_sort_key(number: str) -> tuple[Any, ...]:
    """Collector numbers sort by their digits: M4-2 before M4-10."""
    import re

    parts = re.split(r"(\d+)", number)
    return tuple(int(p) if p.isdigit() else p for p in parts)


def set_page(session: Session, game: Game, code: str) -> SetPage | None:
    """A set with its printings by collector number, or ``None`` (code folded: m4 = M4)."""
    card_set = session.scalars(
        select(CardSet).where(CardSet.game_id == game.id, CardSet.code_key == fold(code))
    ).first()
    if card_set is None:
        return None
    # Rows unpack like tuples (Result.tuples() is deprecated since SQLAlchemy 2.1).
    rows = [
        (printing, card)
        for printing, card in session.execute(
            select(Printing, Card)
            .join(Card, col(Card.id) == col(Printing.card_id))
            .where(Printing.set_id == card_set.id)
        )
    ]
    rows.sort(key=lambda pc: _number_sort_key(pc[0].number))
    module = module_of(game)  # the catalogue's declared rarity ladder, if any
    rarities: dict[str, int] = {}
    for printing, _card in rows:
        rarities[printing.rarity] = rarities.get(printing.rarity, 0) + 1
    ordered = {r: rarities[r] for r in module.rarity.codes if r in rarities}
    template = session.get(PackTemplate, card_set.pack_template_id) if card_set.pack_template_id else None
    return SetPage(card_set, template, rows, ordered)


@dataclass
class CardPage:
    card: Card
    printings: list[tuple[Printing, CardSet]]


def card_page(session: Session, game: Game, name: str) -> CardPage | None:
    try:
        card = find_card(session=session, game=game.slug, name=name)
    except UnknownPrinting:
        return None
    printings = [
        (printing, card_set)
        for printing, card_set in session.execute(
            select(Printing, CardSet)
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .where(Printing.card_id == card.id)
            .order_by(col(CardSet.position), col(Printing.number))
        )
    ]
    return CardPage(card, printings)


def first_printing(printings: list[tuple[Printing, CardSet]]) -> Printing | None:
    """The card's first printing: in the set released first (sets without a date last, then in
    manifest order); every other printing is a reprint (``is:reprint``)."""
    if not printings:
        return None
    return min(printings, key=lambda pair: (pair[1].release or "9999", pair[1].position, pair[0].number))[0]


def random_card(session: Session, game: Game | None = None) -> Card | None:
    query = select(Card).order_by(func.random()).limit(1)
    if game is not None:
        query = query.where(Card.game_id == game.id)
    return session.scalars(query).first()


@dataclass
class KeywordUse:
    """How a game's cards use one glossary keyword: how many have it, and how it is written."""

    cards: int
    labels: list[str]


def keyword_uses(session: Session, game: Game, *, labels: int = 6) -> dict[str, KeywordUse]:
    """Per keyword kind of the game: the number of cards having it and a few of its labels
    as printed (军团(5), 『悟空』唯一), most common first. Kinds no card has are absent."""
    counts: dict[str, int] = {
        kind: count
        for kind, count in session.execute(
            select(CardKeyword.kind, func.count(func.distinct(CardKeyword.card_id)))
            .join(Card, col(Card.id) == col(CardKeyword.card_id))
            .where(Card.game_id == game.id)
            .group_by(col(CardKeyword.kind))
        )
    }
    written: dict[str, list[tuple[int, str]]] = {}
    for kind, label, count in session.execute(
        select(CardKeyword.kind, CardKeyword.label, func.count())
        .join(Card, col(Card.id) == col(CardKeyword.card_id))
        .where(Card.game_id == game.id)
        .group_by(col(CardKeyword.kind), col(CardKeyword.label))
    ):
        written.setdefault(kind, []).append((-count, label))
    return {
        kind: KeywordUse(count, [label for _n, label in sorted(written.get(kind, []))[:labels]])
        for kind, count in counts.items()
    }


def find_printings(session: Session, game: Game, query: str) -> list[tuple[Printing, Card, CardSet]]:
    """Printings of a card named ``query`` (exact or folded), else with collector number ``query``."""
    try:
        card: Card | None = find_card(session=session, game=game.slug, name=query)
    except UnknownPrinting:
        card = None
    condition = Printing.card_id == card.id if card is not None else Printing.number_key == fold(query)
    return [
        (printing, found, card_set)
        for printing, found, card_set in session.execute(
            select(Printing, Card, CardSet)
            .join(Card, col(Card.id) == col(Printing.card_id))
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .where(CardSet.game_id == game.id, condition)
            .order_by(col(CardSet.position), col(Printing.id))
        )
    ]

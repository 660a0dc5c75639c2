"""Deck checking use case: load a game's cards and a format, resolve a decklist, run the rules.

:func:`check_decklist` is what the CLI, the API and the pages call. For many decks against
one catalogue, load once with :func:`load_pool` / :func:`load_format` and call
:func:`check_parsed` per deck (pure Python, no database).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Text, cast
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from catalog.caching import LRU
from catalog.decks.lists import CardPool, DeckList, parse_decklists, resolve
from catalog.errors import LunzangError, Message
from catalog.games import GAMES, get_game
from catalog.models import BanEntry, Card, CardSet, Format, Game, Printing
from catalog.pauses import collector_paused
from catalog.rules import Deck, FormatSpec, PoolCard, Verdict, evaluate
from catalog.text import fold


class DeckCheckError(LunzangError):
    """The game or format asked for does not exist (or the game has no cards yet)."""

    code = "bad_request"


@dataclass
class DeckCheck:
    decklist: DeckList
    deck: Deck
    verdict: Verdict
    pool: CardPool
    format: FormatSpec


def game_slug(word: str | None) -> str:
    """The registry slug for a game word (slug, Chinese or English name), or an error."""
    module = get_game((word or "").strip()) or get_game(fold(word or ""))
    if module is None:
        known = "、".join(f"{g.slug}（{g.name}）" for g in GAMES.values())
        raise DeckCheckError(
            Message(
                f"未知的游戏「{word}」，可用：{known}" if word else f"请指定游戏，可用：{known}",
                f"unknown game '{word}'; known: {', '.join(GAMES)}" if word else f"name the game: {', '.join(GAMES)}",
            )
        )
    return module.slug


def _game_row(session: Session, slug: str) -> Game:
    game = session.scalars(select(Game).where(Game.slug == slug)).first()
    if game is None:
        raise DeckCheckError(
            Message(f"数据库里还没有{GAMES[slug].name}的卡牌：请先导入", f"no {slug} cards imported yet")
        )
    return game


# Card pools by (database, game, catalogue version): loading a game's every card costs seconds on
# a 100,000-printing catalogue, so each process keeps the pools it has built. The key
# is the ``catalogue_version`` the database holds (a new value on every import), read in the
# caller's transaction: a server never serves a pool older than what its transaction sees, and
# several servers need not agree on anything held in memory (DESIGN §9). A few pools at most.
POOL_CACHE_SIZE = 4
_pools: LRU[tuple[str, int, str], CardPool] = LRU(POOL_CACHE_SIZE)


def load_pool(session: Session, slug: str) -> CardPool:
    """Every card of the game with the set codes of its printings, indexed for lookups.

    Cached per catalogue version (see :data:`POOL_CACHE_SIZE`); the pool is shared, so callers
    must not change it."""
    game = _game_row(session, slug)
    assert game.id is not None
    bind = session.get_bind()
    url = bind.engine.url if isinstance(bind, Connection) else bind.url
    key = (url.render_as_string(hide_password=False), game.id, game.catalogue_version)
    pool = _pools.get(key)
    if pool is not None:
        return pool
    with collector_paused():  # 90,000 cards at 100,000 printings
        pool = _read_pool(session, slug, game)
    _pools.put(key, pool)
    return pool


# The columns of Card a pool reads, in the order _read_pool unpacks them (row[0] … row[12]).
_POOL_COLUMNS = (
    *("id", "name", "name_key", "type", "subtype", "attributes", "faction", "cost_total", "level", "text"),
    *("name_en", "pinyin", "initials"),
)
_POOL_JSON = ("cost", "traits", "keywords", "extra")  # row[13] … row[16]
_POOL_NUMBERS = ("attack", "defense")  # row[17], row[18]: a deck's figures (KeyForge power, armor)


class _JsonTexts(dict[str, Any]):
    """JSON column values decoded once per distinct text: costs, traits and keywords repeat
    across thousands of cards (77 distinct texts among the 360,000 values of the synthetic
    100,000-printing catalogue). The query casts the columns to text on the server: read as
    ``json``, psycopg decoded every value itself into a fresh object (3.6 million at a million
    printings, a third of the first check's CPU on PostgreSQL;). SQL NULL passes
    through as ``None``. The decoded values are shared between cards, like the pool itself:
    nothing may change them."""

    def __missing__(self, text: str) -> Any:
        value = self[text] = json.loads(text)
        return value

    def of(self, value: Any) -> Any:
        return self[value] if isinstance(value, str) else value


def _read_pool(session: Session, slug: str, game: Game) -> CardPool:
    # Plain rows, not ORM objects, and the JSON columns as their text: building 90,000 Card
    # instances and decoding 360,000 JSON values (most of them "[]" or "{}") was most of the
    # first check after an import on the 100,000-printing catalogue.
    query = core_select(col(CardSet.id), col(CardSet.code), col(CardSet.name)).where(col(CardSet.game_id) == game.id)
    sets: dict[int, str] = {}
    set_names: dict[str, str] = {}  # a set by its name, as a collection file may name it (catalog.lookup)
    for set_id, code, set_name in session.execute(query):
        sets[set_id] = code
        set_names[fold(set_name)] = code
    printed: dict[int, set[str]] = {}
    numbers: dict[str, list[tuple[int, str, str]]] = {}
    for card_id, set_id, number, number_key in session.execute(
        core_select(col(Printing.card_id), col(Printing.set_id), col(Printing.number), col(Printing.number_key)).where(
            col(Printing.set_id).in_(list(sets))
        )
    ):
        code = sets[set_id]
        printed.setdefault(card_id, set()).add(code)
        numbers.setdefault(number_key, []).append((card_id, code, number))
    cards: dict[int, PoolCard] = {}
    pinyin: dict[int, tuple[str, str]] = {}
    cards_query = core_select(
        *(col(getattr(Card, name)) for name in _POOL_COLUMNS),
        *(cast(getattr(Card, name), Text) for name in _POOL_JSON),  # text: see _JsonTexts
        *(col(getattr(Card, name)) for name in _POOL_NUMBERS),
    ).where(col(Card.game_id) == game.id)
    decoded = _JsonTexts()
    for row in session.execute(cards_query):
        cards[row[0]] = _pool_card_of(row, printed.get(row[0], _EMPTY), decoded.of)
        pinyin[row[0]] = (row[11], row[12])
    set_codes = {**set_names, **{fold(code): code for code in sets.values()}}
    return CardPool(slug, cards, numbers, set_codes, pinyin)


def pool_card(card: Card, set_codes: Iterable[str]) -> PoolCard:
    """What the rules know of one card: a snapshot detached from the session, with the codes of
    the sets it is printed in."""
    row = (
        *(getattr(card, name) for name in _POOL_COLUMNS),
        *(getattr(card, name) for name in _POOL_JSON),
        *(getattr(card, name) for name in _POOL_NUMBERS),
    )
    return _pool_card_of(row, set_codes, lambda value: value)


_EMPTY: frozenset[str] = frozenset()


def _pool_card_of(row: Sequence[Any], set_codes: Iterable[str], decode: Callable[[Any], Any]) -> PoolCard:
    """A :class:`PoolCard` from the values of ``_POOL_COLUMNS`` then ``_POOL_JSON`` (``decode``
    turns a JSON column's value into Python: text on SQLite, as-is from an ORM object)."""
    (card_id, name, name_key, type_, subtype, attributes, faction, cost_total, level, text, name_en) = row[:11]
    traits, keywords = decode(row[14]) or (), decode(row[15]) or ()
    return PoolCard(
        id=card_id,
        name=name,
        name_key=name_key,
        type=type_,
        subtype=subtype,
        attributes=attributes,
        faction=faction,
        cost=dict(decode(row[13]) or {}),
        cost_total=cost_total,
        level=level,
        traits=tuple(traits),
        trait_keys=frozenset(fold(t) for t in traits) if traits else _EMPTY,
        keywords=tuple(keywords),
        extra=dict(decode(row[16]) or {}),
        set_codes=frozenset(set_codes),
        text=text,
        name_en=name_en,
        attack=row[17] if len(row) > 17 else None,
        defense=row[18] if len(row) > 18 else None,
    )


def load_format(session: Session, slug: str, code: str | None, pool: CardPool | None = None) -> FormatSpec:
    """A manifest format by code, else a rule kind of the game, else the game's first kind.

    A bare rule kind (or no ``--format``) means all sets legal and no ban list (DESIGN §5).
    """
    module = GAMES[slug]
    kinds = dict(module.rule_kinds)
    catalogue = {"factions": pool.factions()} if pool is not None else {}
    game = _game_row(session, slug)
    row = None
    if code:
        row = session.scalars(select(Format).where(Format.game_id == game.id, Format.code == code)).first()
        if row is None:
            row = next(
                (
                    f
                    for f in session.scalars(select(Format).where(Format.game_id == game.id))
                    if fold(code) in (fold(f.code), fold(f.name))  # m8 = M8 = "M8 新环境"
                ),
                None,
            )
    if row is not None:
        kind = row.rules if row.rules in kinds else next(iter(kinds))
        params = dict(kinds[kind]) | {k: v for k, v in row.params.items() if v is not None}
        bans = {b.card_id: b.limit for b in session.scalars(select(BanEntry).where(BanEntry.format_id == row.id))}
        return FormatSpec(slug, row.code, kind, row.name, params, tuple(row.legal_sets), bans, catalogue)
    if code and fold(code) not in {fold(k) for k in kinds}:
        known = [f.code for f in session.scalars(select(Format).where(Format.game_id == game.id))]
        choices = ", ".join(dict.fromkeys([*known, *kinds]))
        raise DeckCheckError(
            Message(
                f"{module.name}没有赛制「{code}」，可用：{choices}", f"{slug} has no format '{code}'; known: {choices}"
            )
        )
    kind = next((k for k in kinds if code and fold(k) == fold(code)), next(iter(kinds)))
    return FormatSpec(slug, kind, kind, module.kind_name(kind), dict(kinds[kind]), ("*",), {}, catalogue)


def check_parsed(decklist: DeckList, pool: CardPool, fmt: FormatSpec) -> tuple[Deck, Verdict]:
    """Resolve and judge one parsed decklist against a loaded pool (no database)."""
    deck, problems = resolve(decklist, pool)
    deck.format = fmt.code
    return deck, evaluate(deck, fmt, GAMES[fmt.game].rule_set(fmt.kind), before=problems)


def check_decklist(
    *, session: Session, text: str, game: str | None = None, format_code: str | None = None
) -> DeckCheck:
    """Read a decklist (text or JSON) and judge it: every problem at once.

    ``game`` / ``format_code`` win over the decklist's own ``game:`` / ``format:`` lines.
    Raises :class:`~catalog.decks.lists.DecklistError` when the text is unreadable and
    :class:`DeckCheckError` for an unknown game or format.
    """
    return check_decklists(session=session, text=text, game=game, format_code=format_code)[0]


_GAME_LINE = re.compile(r"^\s*(?:game|游戏|遊戲)\s*[:：]\s*(?P<game>\S+)", re.IGNORECASE | re.MULTILINE)


def has_houses(text: str, game: str | None) -> bool:
    """Whether the decklist is of a game whose decks are headed by house (KeyForge): a heading
    that is no section word is then a house."""
    found = _GAME_LINE.search(text[:2000]) if not game else None
    module = get_game((game or (found["game"] if found else "")).strip())
    houses = getattr(module, "houses", None)
    return houses is not None and bool(houses.canonical)


def check_decklists(
    *, session: Session, text: str, game: str | None = None, format_code: str | None = None
) -> list[DeckCheck]:
    """Every deck of a file judged (a game's own deck JSON may hold several: keyteki's list of
    decks), each as :func:`check_decklist` judges one."""
    checks: list[DeckCheck] = []
    pools: dict[str, tuple[CardPool, FormatSpec]] = {}
    for decklist in parse_decklists(text, houses=has_houses(text, game)):
        slug = game_slug(game or decklist.game)
        if slug not in pools:
            pool = load_pool(session, slug)
            pools[slug] = (pool, load_format(session, slug, format_code or decklist.format, pool))
        pool, fmt = pools[slug]
        deck, verdict = check_parsed(decklist, pool, fmt)
        checks.append(DeckCheck(decklist, deck, verdict, pool, fmt))
    return checks


@dataclass
class FormatChoice:
    game: str
    game_name: str
    formats: list[tuple[str, str]]  # (code, name): the manifest formats, then bare rule kinds


def _with_kinds(slug: str, formats: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The manifest formats, then the game's bare rule kinds no manifest format is coded as."""
    module = GAMES[slug]
    codes = {c for c, _n in formats}
    return formats + [(kind, module.kind_name(kind)) for kind in module.rule_kinds if kind not in codes]


def format_choices(session: Session) -> list[FormatChoice]:
    """Per imported game, the formats a deck can be checked against (for the deck page's select)."""
    games = {g.id: g for g in session.scalars(select(Game))}
    by_game: dict[str, list[tuple[str, str]]] = {}
    for fmt in session.scalars(select(Format).order_by(col(Format.id))):
        game = games.get(fmt.game_id)
        if game is not None:
            by_game.setdefault(game.slug, []).append((fmt.code, fmt.name))
    choices = []
    for slug, module in GAMES.items():
        if slug not in {g.slug for g in games.values()}:
            continue
        choices.append(FormatChoice(slug, module.name, _with_kinds(slug, by_game.get(slug, []))))
    return choices


def every_format(session: Session, game: Game) -> list[FormatSpec]:
    """Every format of ``game`` as :func:`load_format` loads each, in :func:`game_formats`'
    order, in one statement (the formats with their ban entries) rather than three per format."""
    module = GAMES[game.slug]
    kinds = dict(module.rule_kinds)
    formats: dict[int, Format] = {}
    bans: dict[int, dict[int, int]] = {}
    for row, ban in session.execute(
        select(Format, BanEntry)
        .outerjoin(BanEntry, col(BanEntry.format_id) == col(Format.id))
        .where(Format.game_id == game.id)
        .order_by(col(Format.id))
    ):
        formats.setdefault(row.id or 0, row)
        if ban is not None:
            bans.setdefault(ban.format_id, {})[ban.card_id] = ban.limit
    rows = list(formats.values())
    specs = []
    for row in rows:
        kind = row.rules if row.rules in kinds else next(iter(kinds))
        params = dict(kinds[kind]) | {k: v for k, v in row.params.items() if v is not None}
        specs.append(
            FormatSpec(
                game.slug, row.code, kind, row.name, params, tuple(row.legal_sets), bans.get(row.id or 0, {}), {}
            )
        )
    codes = {row.code for row in rows}
    for kind in module.rule_kinds:
        if kind not in codes:
            specs.append(FormatSpec(game.slug, kind, kind, module.kind_name(kind), dict(kinds[kind]), ("*",), {}, {}))
    return specs


def game_formats(session: Session, slug: str) -> list[tuple[str, str]]:
    """One game's formats as :func:`format_choices` lists them: (code, name), manifest order."""
    game = _game_row(session, slug)
    rows = session.scalars(select(Format).where(Format.game_id == game.id).order_by(col(Format.id)))
    return _with_kinds(slug, [(f.code, f.name) for f in rows])

"""Running a query: the games and sets in scope, the one statement that pages and counts, the
order, and the hits (a representative printing per card). The package face is
:mod:`catalog.search`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from catalog.db import UNPREPARED_ALIAS, unprepared
from catalog.errors import Message
from catalog.games import GAMES, get_game
from catalog.models import Card, CardSet, Game, Printing, table_of
from catalog.search.compile import ORDERS, compile_node, directive_of
from catalog.search.keys import KEYS, Context, error
from catalog.search.parser import And, Node, Query, QueryError, Term, parse
from catalog.search.sql import among, byte_order
from catalog.text import fold

PER_PAGE = 60
MAX_PER_PAGE = 175
MAX_PAGE = 1_000_000  # keeps OFFSET inside a 64-bit integer on PostgreSQL

__all__ = [
    "KEYS",
    "MAX_PER_PAGE",
    "PER_PAGE",
    "QueryError",
    "SearchHit",
    "SearchResult",
    "printing_ids_matching",
    "search",
]


@dataclass
class SearchHit:
    card: Card
    printing: Printing
    card_set: CardSet
    game: str  # slug


@dataclass
class SearchResult:
    query: str
    total: int
    page: int
    per_page: int
    order: str
    direction: str
    unique: str  # "cards" or "prints"
    hits: list[SearchHit] = field(default_factory=list)
    own_order: bool = False  # the query itself said order:/direction: (it wins over arguments)
    # game slug → its catalogue_version (a new value on every import), read in the search's
    # transaction: the key of what a results page keeps per card until the next import
    catalogue_versions: dict[str, str] = field(default_factory=dict)
    # the query counted the user's own copies, wants or trades (own/want/trade): its hits are
    # that user's alone, never kept for anyone else (webapp/answers.py)
    personal: bool = False

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_more(self) -> bool:
        return self.page < self.pages


def _split_directives(query: Query) -> tuple[Node | None, dict[str, Term]]:
    """Take order:/unique:/direction: out of the top-level AND."""
    directives: dict[str, Term] = {}
    root = query.root
    items = list(root.items) if isinstance(root, And) else ([root] if root is not None else [])
    kept: list[Node] = []
    for item in items:
        if isinstance(item, Term) and item.key and (name := directive_of(item)) is not None:
            directives[name] = item
        else:
            kept.append(item)
    if not kept:
        return None, directives
    return (kept[0] if len(kept) == 1 else And(tuple(kept))), directives


GAME_ROWS = select(col(Game.slug), col(Game.id), col(Game.vocabulary), col(Game.catalogue_version))
GameRow = tuple[str, int, Any, str]  # slug, id, vocabulary, catalogue_version


def _game_scope(
    session: Session,
    root: Node | None,
    game: str | None,
    versions: dict[str, str] | None = None,
    known: Sequence[GameRow] | None = None,
) -> tuple[list[Any], dict[str, int]]:
    """The games a query searches (module with its catalogue's vocabulary, id) and every game's
    id by slug. ``versions``, when given, gets each game's ``catalogue_version`` from the same
    statement (what a results page keys its kept tiles by: a round trip less than reading it apart).
    ``known``: those rows (:data:`GAME_ROWS`) as the caller already has them in this transaction."""
    rows = list(known) if known is not None else list(session.execute(GAME_ROWS))
    all_games = {slug: gid for slug, gid, _v, _c in rows}
    if versions is not None:
        versions.update((slug, version) for slug, _gid, _v, version in rows)
    # each game as its catalogue speaks it (a declared rarity ladder, extra houses)
    modules = {slug: GAMES[slug].with_vocabulary(vocabulary) for slug, _gid, vocabulary, _c in rows if slug in GAMES}
    scope = [slug for slug in GAMES if slug in all_games]
    wanted: set[str] = set()
    if game:
        module = get_game(game)
        if module is None or module.slug not in all_games:
            names = "、".join(slug for slug in all_games)
            raise QueryError(
                Message(f"未知的游戏：{game}，可用：{names}", f"unknown game: {game}"), position=0, term=game
            )
        wanted.add(module.slug)
    # g: terms at the top level narrow which vocabularies the other words resolve against.
    items = root.items if isinstance(root, And) else ((root,) if root is not None else ())
    for item in items:
        if isinstance(item, Term) and fold(item.key) in ("g", "game", "游戏", "遊戲") and item.op in (":", "="):
            module = get_game(item.value) or get_game(item.value.lower())
            if module is not None:
                wanted.add(module.slug)
    if wanted:
        scope = [slug for slug in scope if slug in wanted]
    return [(modules[slug], all_games[slug]) for slug in scope], all_games


def _set_index(session: Session) -> dict[str, list[tuple[int, int]]]:
    index: dict[str, list[tuple[int, int]]] = {}
    for set_id, code_key, game_id in session.execute(
        select(col(CardSet.id), col(CardSet.code_key), col(CardSet.game_id))
    ):
        index.setdefault(code_key, []).append((set_id, game_id))
    return index


def _directive_values(directives: dict[str, Term]) -> tuple[str, str, str]:
    order, direction, unique = "name", "asc", "cards"
    if (term := directives.get("order")) is not None:
        word = fold(term.value)
        for name, aliases in ORDERS.items():
            if word in {fold(a) for a in aliases}:
                order = name
                break
        else:
            raise error(
                term,
                f"「{term.text}」：未知的排序，可用：{'、'.join(ORDERS)}",
                f"unknown order; use {', '.join(ORDERS)}",
            )
    if (term := directives.get("direction")) is not None:
        word = fold(term.value)
        if word in ("asc", "升序", "正序"):
            direction = "asc"
        elif word in ("desc", "降序", "倒序"):
            direction = "desc"
        else:
            raise error(term, f"「{term.text}」：顺序只能是 asc 或 desc", f"'{term.text}': direction is asc or desc")
    if (term := directives.get("unique")) is not None:
        word = fold(term.value)
        if word in ("prints", "printings", "印刷"):
            unique = "prints"
        elif word in ("cards", "卡牌"):
            unique = "cards"
        else:
            raise error(
                term, f"「{term.text}」：unique 只能是 cards 或 prints", f"'{term.text}': unique is cards or prints"
            )
    return order, direction, unique


def _order_columns(order: str, direction: str, ctx: Context) -> list[Any]:
    """ORDER BY for ``order:``/``direction:``, always ending in a unique tie-break (name, id)
    so pages never overlap or skip."""
    return [
        _sorted_by(expression, descending, last) for expression, descending, last in _order_keys(order, direction, ctx)
    ]


def _sorted_by(expression: Any, descending: bool, nulls_last: bool) -> Any:
    clause = expression.desc() if descending else expression.asc()
    return clause.nulls_last() if nulls_last else clause


def _order_keys(order: str, direction: str, ctx: Context) -> list[tuple[Any, bool, bool]]:
    """The sort keys of :func:`_order_columns` as (expression, descending, nulls last)."""
    cs = ctx.cs
    printing = table_of(Printing)
    sets = table_of(CardSet)
    if ctx.mode == "prints":
        p = ctx.p
        set_position = select(sets.c.position).where(sets.c.id == p.c.set_id).scalar_subquery()
        keys: dict[str, list[Any]] = {
            "rarity": [p.c.rarity_rank],
            "set": [set_position, byte_order(p.c.number)],
            "number": [byte_order(p.c.number)],
        }
        row_id = p.c.id
    else:
        best_rank = select(func.max(printing.c.rarity_rank)).where(printing.c.card_id == cs.c.card_id).scalar_subquery()
        first_set = (
            select(func.min(sets.c.position))
            .select_from(printing.join(sets, sets.c.id == printing.c.set_id))
            .where(printing.c.card_id == cs.c.card_id)
            .scalar_subquery()
        )
        first_number = (
            select(func.min(byte_order(printing.c.number))).where(printing.c.card_id == cs.c.card_id).scalar_subquery()
        )
        keys = {"rarity": [best_rank], "set": [first_set, first_number], "number": [first_number]}
        row_id = cs.c.card_id
    name = [byte_order(cs.c.sort_key), byte_order(cs.c.name)]
    keys |= {"name": name, "cost": [cs.c.cost_total], "atk": [cs.c.attack], "def": [cs.c.defense]}
    descending = direction == "desc"
    primary = [(c, descending, True) for c in keys[order]]
    tie = [(row_id, descending, False)] if order == "name" else [(c, False, False) for c in (*name, row_id)]
    return [*primary, *tie]


def search(
    *,
    session: Session,
    text: str,
    game: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
    order: str | None = None,
    direction: str | None = None,
    user_id: int | None = None,
    games: Sequence[GameRow] | None = None,
) -> SearchResult:
    """Run a query: one page of hits (a representative printing per card unless
    ``unique:prints``) and the total count. ``order``/``direction`` (a page's sort controls)
    apply unless the query says ``order:``/``direction:`` itself. ``user_id`` is the signed-in
    user that ``own``/``want``/``trade`` count for. ``games``: every game's :data:`GAME_ROWS`
    when the caller read them in this transaction already (a statement less). Raises
    :class:`QueryError` on a bad query."""
    query = parse(text)
    root, directives = _split_directives(query)
    own_order = "order" in directives or "direction" in directives
    query_order, query_direction, unique = _directive_values(directives)
    if own_order or order is None:
        order = query_order
    if own_order or direction is None:
        direction = query_direction
    if order not in ORDERS or direction not in ("asc", "desc"):
        raise ValueError(f"order must be one of {list(ORDERS)} and direction asc or desc")
    versions: dict[str, str] = {}
    scope_games, all_games = _game_scope(session, root, game, versions, games)
    page = max(1, min(page, MAX_PAGE))
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    ctx = Context(
        games=scope_games, all_games=all_games, load_sets=lambda: _set_index(session), mode=unique, user_id=user_id
    )
    cs = ctx.cs
    # Only a narrowing scope becomes a condition: "every game" would only steer the planner
    # to the (game_id, type) index and a row lookup per card (measured slower than a scan).
    scope = cs.c.game_id.in_([gid for _m, gid in scope_games]) if len(scope_games) < len(all_games) else None
    if unique == "prints":
        ctx.p = table_of(Printing).alias("p")
        condition = compile_node(root, ctx) if root is not None else None
        statement = select(ctx.p.c.id, cs.c.card_id).select_from(ctx.p.join(cs, cs.c.card_id == ctx.p.c.card_id))
    else:
        condition = compile_node(root, ctx) if root is not None else None
        statement = select(cs.c.card_id)
    if scope is not None:
        statement = statement.where(scope)
    if condition is not None:
        statement = statement.where(condition)
    ids, total = _page_and_total(session, statement, ctx, order, direction, page, per_page)
    result = SearchResult(
        text,
        total,
        page,
        per_page,
        order,
        direction,
        unique,
        own_order=own_order,
        catalogue_versions=versions,
        personal=ctx.personal,
    )
    slugs = {gid: slug for slug, gid in all_games.items()}
    if unique == "prints":
        result.hits = _hits_for_printings(session, ids, slugs)
    else:
        result.hits = _hits_for_cards(session, ids, root, ctx, slugs)
    return result


def random_hit(
    *, session: Session, text: str, game: str | None = None, rng: Random, user_id: int | None = None
) -> SearchHit | None:
    """One card the query matches, drawn uniformly with ``rng`` (None when nothing matches).

    Two bounded queries: the count, then the one row at a random offset."""
    first = search(session=session, text=text, game=game, page=1, per_page=1, user_id=user_id)
    if first.total == 0:
        return None
    pick = rng.randrange(first.total) + 1
    if pick == 1:
        return first.hits[0]
    return search(session=session, text=text, game=game, page=pick, per_page=1, user_id=user_id).hits[0]


def printing_ids_matching(*, session: Session, text: str, user_id: int | None, game: str | None = None) -> Any:
    """A SQL ``SELECT`` of the ids of every printing the query matches (``unique:prints`` mode,
    no order, no paging), for filtering other lists — a collection — with the search language.

    ``order:``/``direction:``/``unique:`` are checked but have no effect; ``own``/``want``/
    ``trade`` count for ``user_id``. An empty query matches every printing (of ``game``).
    Raises :class:`QueryError` on a bad query, as :func:`search` does.
    """
    root, directives = _split_directives(parse(text))
    _directive_values(directives)
    games, all_games = _game_scope(session, root, game)
    ctx = Context(
        games=games,
        all_games=all_games,
        load_sets=lambda: _set_index(session),
        mode="prints",
        # planned for its words wherever it runs, alone or inside another statement (catalog/db.py)
        p=table_of(Printing).alias(UNPREPARED_ALIAS),
        user_id=user_id,
    )
    cs = ctx.cs
    statement = select(ctx.p.c.id).select_from(ctx.p.join(cs, cs.c.card_id == ctx.p.c.card_id))
    if len(games) < len(all_games):
        statement = statement.where(cs.c.game_id.in_([gid for _m, gid in games]))
    if root is not None:
        statement = statement.where(compile_node(root, ctx))
    return statement


# How many matches one statement collects before the page and the count go back to two
# statements: a memory bound for huge catalogues, far above 100,000 cards.
MATCH_CAP = int(os.environ.get("LUNZANG_SEARCH_MATCH_CAP", "1000000"))


def _page_and_total(
    session: Session, statement: Any, ctx: Context, order: str, direction: str, page: int, per_page: int
) -> tuple[list[int], int]:
    """The ids on the page and the number of matches.

    The expensive part of most queries is evaluating the condition over every card (a scan:
    substring tests, semi-joins). One statement collects the matches once into a materialized
    CTE, then both counts them and sorts them for the page. Measured on 100,000 printings
    (SQLite, the 20 benchmark queries) against a page statement plus a count statement,
    which evaluate the condition twice: ``龙王`` 16 against 27 ms, ``o:风属`` 31 against 42,
    ``r:SR t:战魂`` 17 against 24; only a broad, cheap query (``t:战魂 or t:载具``, 63,000
    matches) is slower this way (37 against 31 ms). The matches carry their sort keys, so the
    page is a sort of the collected rows: re-reading them by primary key instead cost
    PostgreSQL 160 ms for ``o:抽一张牌`` (90,000 matches; 384 → 97 ms in all). A cap that
    falls back to two statements for broad queries lost more than it saved, because the
    capped attempt is wasted work; a window ``COUNT(*) OVER ()`` sorts every match (79 ms).
    """
    id_column = ctx.p.c.id if ctx.mode == "prints" else ctx.cs.c.card_id
    order_by = _order_columns(order, direction, ctx)
    offset = (page - 1) * per_page
    if MATCH_CAP > 0:
        # The matches carry their sort keys, so the page is sorted from the collected rows
        # alone (re-reading 90,000 matches by primary key cost PostgreSQL 160 ms).
        keys = _order_keys(order, direction, ctx)
        columns = [id_column.label("id"), *(key.label(f"k{i}") for i, (key, _d, _n) in enumerate(keys))]
        matches = statement.with_only_columns(*columns).limit(MATCH_CAP).cte("matches")
        matches = matches.prefix_with("MATERIALIZED")
        counted = select(func.count()).select_from(matches).scalar_subquery()
        paged = (
            select(matches.c.id, counted.label("total"))
            .order_by(*(_sorted_by(matches.c[f"k{i}"], d, n) for i, (_k, d, n) in enumerate(keys)))
            .limit(per_page)
            .offset(offset)
        )
        rows = session.execute(unprepared(paged)).all()  # planned for its words (catalog/db.py)
        if rows:
            total = rows[0][1]
        elif page == 1:
            total = 0
        else:
            total = session.scalar(unprepared(select(func.count()).select_from(matches))) or 0
        if total < MATCH_CAP:
            return [row[0] for row in rows], total
    rows = session.execute(unprepared(statement.order_by(*order_by).limit(per_page).offset(offset))).all()
    # A first page that is not full already is the count.
    if page == 1 and len(rows) < per_page:
        return [row[0] for row in rows], len(rows)
    total = session.scalar(unprepared(select(func.count()).select_from(statement.subquery()))) or 0
    return [row[0] for row in rows], total


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


def _hits_for_printings(session: Session, printing_ids: list[int], slugs: dict[int, str]) -> list[SearchHit]:
    if not printing_ids:
        return []
    found = {
        printing.id: (printing, card, card_set)
        for printing, card, card_set in session.execute(
            select(Printing, Card, CardSet)
            .join(Card, col(Card.id) == col(Printing.card_id))
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .where(among(col(Printing.id), printing_ids, dialect=_dialect(session)))
        )
    }
    return [
        SearchHit(found[pid][1], found[pid][0], found[pid][2], slugs[found[pid][1].game_id]) for pid in printing_ids
    ]


def _hits_for_cards(
    session: Session, card_ids: list[int], root: Node | None, ctx: Context, slugs: dict[int, str]
) -> list[SearchHit]:
    """Cards with a representative printing each: the first (by set order) that satisfies
    the query on its own — so ``r:SR`` shows the SR printing — else the card's first. The
    extra query runs only when the query has printing conditions."""
    if not card_ids:
        return []
    dialect = _dialect(session)
    # The cards with their printings in one statement (a card always has one): a statement
    # less per page than reading the cards apart.
    printing_rows = session.execute(
        select(Printing, CardSet, Card)
        .join(CardSet, col(CardSet.id) == col(Printing.set_id))
        .join(Card, col(Card.id) == col(Printing.card_id))
        .where(among(col(Printing.card_id), card_ids, dialect=dialect))
        .order_by(col(CardSet.position), col(Printing.number))
    ).all()
    cards = {card.id: card for _printing, _set, card in printing_rows}
    matching: set[int] = set()
    if root is not None and ctx.uses_printings:
        print_ctx = Context(
            ctx.games,
            ctx.all_games,
            lambda: ctx.sets,
            mode="prints",
            p=table_of(Printing).alias("p"),
            user_id=ctx.user_id,
        )
        statement = (
            select(print_ctx.p.c.id)
            .select_from(print_ctx.p.join(print_ctx.cs, print_ctx.cs.c.card_id == print_ctx.p.c.card_id))
            .where(among(print_ctx.p.c.card_id, card_ids, dialect=dialect), compile_node(root, print_ctx))
        )
        matching = set(session.scalars(unprepared(statement)))
    chosen: dict[int, tuple[Printing, CardSet]] = {}
    for printing, card_set, _card in printing_rows:
        current = chosen.get(printing.card_id)
        if current is None or (printing.id in matching and current[0].id not in matching):
            chosen[printing.card_id] = (printing, card_set)
    return [
        SearchHit(cards[cid], chosen[cid][0], chosen[cid][1], slugs[cards[cid].game_id])
        for cid in card_ids
        if cid in chosen
    ]

"""Matching: trade partners ranked by two-sided coverage.

For me and every other user whose lists are public:
- what they can give that I still miss: per want, want − owned (a printing-specific want counts
  copies of that printing, a card want copies of any printing), from their copies available for
  trade (for trade − held by their open offers) in an acceptable condition (the want's worst
  acceptable condition or better) and, when the want names a language and/or a finish, in
  that language/finish only: such a want's "owned" counts only copies in them too (a want for
  闪 is not covered by a 普通 copy, neither as a match nor as owned); a printing want refines
  the card want of its card unless wanted in addition, and each card's copies
  go to its wants by an exact assignment, a maximum flow;
- what I can give that they still miss, the same way round.
Keep-N is honoured: a user's copies of a printing offered beyond "total − keep N" for its rarity
are not counted, whatever the for-trade numbers say. Ranked by the smaller side first (a
two-sided match beats a one-sided one), then the total; a few bulk queries, no per-user query:
an upper bound per partner first, the exact coverage only for the best candidates.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Integer, String, and_, case, cast, func, literal, literal_column, or_, select
from sqlmodel import Session

from catalog.collection.grades import CONDITIONS, ItemGrade, condition_rank
from catalog.collection.wants import refines
from catalog.models import CardSet, CollectionItem, Game, Printing, User, WantItem, table_of
from catalog.models.columns import GAME, ITEM, PRINTING, SET, USER, WANT
from catalog.trading.assignment import Copy, Want, assign
from catalog.trading.reservation import Key, LineSpec, held_by

MAX_PARTNERS = 50
RANK = {code: condition_rank(code) for code in CONDITIONS}


@dataclass
class Match:
    user_id: int
    username: str
    they_give: list[LineSpec] = field(default_factory=list)  # their copies I still miss
    i_give: list[LineSpec] = field(default_factory=list)  # my copies they still miss

    @property
    def they_give_count(self) -> int:
        return sum(line.quantity for line in self.they_give)

    @property
    def i_give_count(self) -> int:
        return sum(line.quantity for line in self.i_give)

    @property
    def rank_key(self) -> tuple[int, int, str]:
        a, b = self.they_give_count, self.i_give_count
        return (-min(a, b), -(a + b), self.username)


Wants = dict[int, list[Want]]  # card → the wants of one user for it


def _wants(
    session: Session,
    *,
    user_id: int | None = None,
    cards_of_public: tuple[set[int], int] | None = None,
    among: list[int] | None = None,
) -> dict[int, Wants]:
    """user → card → wants still missing (want − owned): the wants of ``user_id``, or those for
    ``cards_of_public = (cards, me)`` of every user with public lists but me (of those ``among``
    them when given).

    want − owned is one grouped query: a printing-specific want counts the copies of that
    printing, a card want those of any printing of the card, and a want naming a language/finish
    counts only copies in them (a want for 闪 is not met by a 普通 copy); satisfied wants never
    leave the database.
    """
    owned = func.coalesce(func.sum(ITEM.quantity), 0)
    query = (
        select(WANT.user_id, WANT.card_id, WANT.printing_id, WANT.quantity - owned, WANT.min_condition)
        .add_columns(WANT.language, WANT.finish, WANT.in_addition)
        .select_from(table_of(WantItem))
        .outerjoin(
            table_of(Printing),
            and_(PRINTING.card_id == WANT.card_id, or_(WANT.printing_id.is_(None), PRINTING.id == WANT.printing_id)),
        )
        .outerjoin(
            table_of(CollectionItem),
            and_(
                ITEM.printing_id == PRINTING.id,
                ITEM.user_id == WANT.user_id,
                ITEM.quantity > 0,
                or_(WANT.language.is_(None), ITEM.language == WANT.language),
                or_(WANT.finish.is_(None), ITEM.finish == WANT.finish),
            ),
        )
        # (card, id) rather than id alone: the card and the (user, card) indexes both hand the
        # wants over in that order, where grouping by id made SQLite walk every want in id order.
        .group_by(WANT.card_id, WANT.id)
        .having(WANT.quantity > owned)
    )
    if user_id is not None:
        query = query.where(WANT.user_id == user_id)
    if cards_of_public is not None:
        cards, me = cards_of_public
        # By card (its index), public users joined: an IN over a thousand users made SQLite
        # probe the (user, card) index once per pair.
        query = query.join(table_of(User), USER.id == WANT.user_id).where(
            WANT.card_id.in_(sorted(cards)), USER.lists_public.is_(True), USER.id != me
        )
        if among is not None:
            query = query.where(WANT.user_id.in_(sorted(among)))
    out: dict[int, Wants] = defaultdict(lambda: defaultdict(list))
    for uid, card_id, pid, need, worst, language, finish, extra in session.execute(query):
        out[uid][card_id].append(Want(card_id, pid, int(need), RANK[worst], language, finish, bool(extra)))
    for wants in out.values():
        for card_id in [card for card, of_card in wants.items() if len(of_card) > 1]:
            if not (refined := _refine(wants[card_id])):
                del wants[card_id]
            else:
                wants[card_id] = refined
    return out


def _refine(of_card: list[Want]) -> list[Want]:
    """The wants for one card once the printing wants refining the card want count towards it:
    the card want misses only what they do not ask for already.

    Printing wants met already never leave the database, and count 0 here, as they should.
    """
    card = next((w for w in of_card if w.printing_id is None), None)
    if card is None:
        return of_card
    covered = sum(
        w.need
        for w in of_card
        if w.printing_id is not None
        and refines((w.in_addition, w.language, w.finish, w.worst), (card.language, card.finish, card.worst))
    )
    rest = [w for w in of_card if w is not card]
    return [*rest, replace(card, need=card.need - covered)] if card.need > covered else rest


def _tradable(
    session: Session,
    *,
    user_id: int | None = None,
    public_except: int | None = None,
    among: list[int] | None = None,
    card_ids: set[int],
    now: datetime,
) -> dict[int, list[Copy]]:
    """user → copies they can trade of these cards: for trade − held, capped by their keep-N rules.

    The copies of ``user_id``, or those of every user with public lists but ``public_except``
    (of those ``among`` them when given).
    """
    # Two steps, each on an index: the printings of these cards, then their items; public users
    # are joined rather than named by an IN over every user.
    printings = {
        pid: (card_id, rarity, game)
        for pid, card_id, rarity, game in session.execute(
            select(PRINTING.id, PRINTING.card_id, PRINTING.rarity, GAME.slug)
            .join(CardSet, SET.id == PRINTING.set_id)
            .join(Game, GAME.id == SET.game_id)
            .where(PRINTING.card_id.in_(sorted(card_ids)))
        )
    }
    if not printings:
        return {}
    query = select(ITEM.user_id, ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish, ITEM.for_trade).where(
        ITEM.printing_id.in_(sorted(printings)), ITEM.quantity > 0, ITEM.for_trade > 0
    )
    if user_id is not None:
        query = query.where(ITEM.user_id == user_id)
    else:
        query = query.join(table_of(User), USER.id == ITEM.user_id).where(
            USER.lists_public.is_(True), USER.id != public_except
        )
        if among is not None:
            query = query.where(ITEM.user_id.in_(sorted(among)))
    rows = session.execute(query).all()
    traders = sorted({r[0] for r in rows})
    holds = held_by(session, giver_ids=traders, now=now)
    keep_rules = {
        uid: rules
        for uid, rules in session.execute(select(USER.id, USER.keep_rules).where(USER.id.in_(traders)))
        if rules
    }
    out: dict[int, list[Copy]] = defaultdict(list)
    kept = []
    for uid, pid, cond, lang, fin, for_trade in rows:
        card_id, rarity, game = printings[pid]
        if uid in keep_rules and isinstance((keep_rules[uid].get(game) or {}).get(rarity), int):
            kept.append((uid, pid, cond, lang, fin, for_trade))
            continue
        grade = ItemGrade(cond, lang, fin)
        left = for_trade - holds.get(uid, {}).get((pid, grade), 0)
        if left > 0:
            out[uid].append(Copy(pid, card_id, grade, left, RANK[cond]))
    if kept:
        _keep_capped(session, kept, printings, keep_rules, holds, out)
    return out


def _keep_capped(
    session: Session,
    kept: list[tuple[int, int, str, str, str, int]],
    printings: dict[int, tuple[int, str, str]],
    keep_rules: dict[int, Any],
    holds: dict[int, dict[Key, int]],
    out: dict[int, list[Copy]],
) -> None:
    """The copies of printings a keep-N rule covers: at most total − N of them, worst condition
    first (as the keep rule offers them), whatever the for-trade numbers say."""
    users = sorted({r[0] for r in kept})
    totals: dict[tuple[int, int], int] = defaultdict(int)
    for uid, pid, q in session.execute(
        select(ITEM.user_id, ITEM.printing_id, ITEM.quantity).where(
            ITEM.user_id.in_(users), ITEM.printing_id.in_(sorted({r[1] for r in kept})), ITEM.quantity > 0
        )
    ):
        totals[(uid, pid)] += int(q)
    spare: dict[tuple[int, int], int] = {}
    for uid, pid, cond, lang, fin, for_trade in sorted(kept, key=lambda r: (r[0], r[1], -RANK[r[2]], r[3], r[4])):
        card_id, rarity, game = printings[pid]
        grade = ItemGrade(cond, lang, fin)
        left = for_trade - holds.get(uid, {}).get((pid, grade), 0)
        keep = keep_rules[uid][game][rarity]
        cap = spare.setdefault((uid, pid), max(0, totals[(uid, pid)] - keep))
        left = min(left, cap)
        spare[(uid, pid)] = cap - max(0, left)
        if left > 0:
            out[uid].append(Copy(pid, card_id, grade, left, RANK[cond]))


def _index(copies: list[Copy]) -> dict[int, list[Copy]]:
    """Copies by card, best condition first (built once, reused for every partner)."""
    by_card: dict[int, list[Copy]] = defaultdict(list)
    for copy in sorted(copies, key=lambda c: (c.rank, c.printing_id, c.grade)):
        by_card[copy.card_id].append(copy)
    return by_card


def _cover(wants: Wants, by_card: dict[int, list[Copy]]) -> list[LineSpec]:
    """Lines of the indexed copies meeting ``wants``: the most copies that can be given, exactly.

    Copies serve the wants of their own card only, so each card shared by both sides is assigned
    on its own (:func:`_assign`), and only those are visited: a partner holds a dozen of my 200
    wanted cards, and walking all 200 for each of a thousand partners was most of the matching
    time. Each copy is one item (printing + grade), so what is taken is counted per copy.
    """
    taken: list[tuple[Copy, int]] = []  # each copy (one item) once: a card's copies are its own
    small, large = (wants, by_card) if len(wants) <= len(by_card) else (by_card, wants)
    for card in small:
        if card in large:
            taken += assign(wants[card], by_card[card])
    # Unsorted: only the partners shown get their lines sorted (find_matches), since sorting
    # (printing, grade) keys for each of a thousand candidate partners cost more than covering.
    return [LineSpec(copy.printing_id, copy.grade, n) for copy, n in taken]


def _sorted(lines: list[LineSpec]) -> list[LineSpec]:
    return sorted(lines, key=lambda line: (line.printing_id, line.grade))


def _bound_they_give(session: Session, me: int, needs: dict[int, int]) -> dict[int, tuple[str, int]]:
    """partner → (name, an upper bound of what they can give me): Σ over my wanted cards of
    min(what I still miss of it, their for-trade copies of it).

    Holds, keep-N, conditions, languages and printing-specific wants can only lower the exact
    figure. One grouped query read from the partial covering index of tradable items; nothing
    per copy leaves the database.
    """
    wanted = _counts_table(session, needs)
    per_card = (
        select(ITEM.user_id.label("user_id"), wanted.c.need.label("need"), func.sum(ITEM.for_trade).label("n"))
        .select_from(wanted)
        .join(table_of(Printing), PRINTING.card_id == wanted.c.card_id)
        .join(table_of(CollectionItem), ITEM.printing_id == PRINTING.id)
        # A literal 0, the condition of the partial index ix_collection_item_tradable as written:
        # a bound parameter would not prove the query stays inside the index.
        .where(ITEM.for_trade > literal_column("0"))
        .group_by(ITEM.user_id, wanted.c.card_id, wanted.c.need)
        .subquery()
    )
    return _per_partner(session, me, per_card)


def _bound_i_give(session: Session, me: int, left: dict[int, int]) -> dict[int, tuple[str, int]]:
    """partner → (name, an upper bound of what I can give them): Σ over the cards I trade of
    min(the copies they want of it, my copies of it I can trade).

    Their wants before subtracting what they own (which only lowers the exact figure), read from
    the want index ix_want_item_card_user_quantity alone: the exact want − owned is computed for
    the best candidates only.
    """
    offered = _counts_table(session, left)
    per_card = (
        select(WANT.user_id.label("user_id"), offered.c.need.label("need"), func.sum(WANT.quantity).label("n"))
        .select_from(offered)
        .join(table_of(WantItem), WANT.card_id == offered.c.card_id)
        .group_by(WANT.user_id, offered.c.card_id, offered.c.need)
        .subquery()
    )
    return _per_partner(session, me, per_card)


def _counts_table(session: Session, counts: dict[int, int]) -> Any:
    """``counts`` (card → number) as a table of (card_id, need) in the query, sent as one JSON
    parameter: a VALUES list of a few hundred rows cost more to compile on every call (its
    parameters differ each time, so it is never cached) than the whole grouped query to run."""
    data = literal(json.dumps({str(card): n for card, n in counts.items()}), String)
    if session.get_bind().dialect.name == "postgresql":
        rows = func.json_each_text(cast(data, JSON)).table_valued("key", "value", name="mine")
    else:
        rows = func.json_each(data).table_valued("key", "value", name="mine")
    return select(cast(rows.c.key, Integer).label("card_id"), cast(rows.c.value, Integer).label("need")).subquery(
        "mine"
    )


def _per_partner(session: Session, me: int, per_card: Any) -> dict[int, tuple[str, int]]:
    """Σ min(n, need) of ``per_card`` rows per public partner other than ``me``, with their names."""
    capped = case((per_card.c.n < per_card.c.need, per_card.c.n), else_=per_card.c.need)
    query = (
        select(per_card.c.user_id, USER.username, func.sum(capped))
        .join(table_of(User), USER.id == per_card.c.user_id)
        .where(USER.lists_public.is_(True), USER.id != me)
        .group_by(per_card.c.user_id, USER.username)
    )
    return {uid: (name, int(total)) for uid, name, total in session.execute(query)}


def _key(name: str, a: int, b: int) -> tuple[int, int, str]:
    return (-min(a, b), -(a + b), name)


def find_matches(*, session: Session, user_id: int, now: datetime, limit: int = MAX_PARTNERS) -> list[Match]:
    """Partners for ``user_id`` among users with public lists, best first (at most ``limit``).

    Two steps, so the exact coverage (copies, grades, holds, keep-N, want − owned) is worked out
    for the best candidates only instead of every public user: first an upper bound of both
    sides per partner, two grouped queries (:func:`_bound_they_give`, :func:`_bound_i_give`);
    then, in order of the bound's rank, the exact matches of a batch of candidates, until
    ``limit`` exact matches rank above the next candidate's bound. A partner's exact rank can
    only be worse than its bound's (each side's count is at most its bound, and the rank key
    falls with both), so no candidate left out could rank among those shown.
    """
    if limit <= 0:
        return []
    my_wants = _wants(session, user_id=user_id).get(user_id, {})
    my_copies = _tradable(session, user_id=user_id, card_ids=_my_trade_cards(session, user_id), now=now).get(
        user_id, []
    )
    needs: dict[int, int] = {card: sum(w.need for w in wants) for card, wants in my_wants.items()}
    left: dict[int, int] = defaultdict(int)
    for copy in my_copies:
        left[copy.card_id] += copy.left
    they = _bound_they_give(session, user_id, needs) if needs else {}
    give = _bound_i_give(session, user_id, left) if left else {}
    bounds = {
        uid: _key(name, they.get(uid, ("", 0))[1], give.get(uid, ("", 0))[1])
        for uid, name in ({u: n for u, (n, _) in they.items()} | {u: n for u, (n, _) in give.items()}).items()
    }
    candidates = sorted(bounds, key=bounds.__getitem__)
    indexed = _index(my_copies)
    found: list[Match] = []
    start, batch = 0, limit + limit // 2
    while start < len(candidates):
        among = candidates[start : start + batch]
        start += len(among)
        found.extend(_exact(session, user_id, among, my_wants, indexed, now))
        found.sort(key=lambda m: m.rank_key)
        if len(found) >= limit and start < len(candidates) and found[limit - 1].rank_key < bounds[candidates[start]]:
            break
        batch *= 2
    shown = found[:limit]
    for match in shown:
        match.they_give, match.i_give = _sorted(match.they_give), _sorted(match.i_give)
    return shown


def _exact(
    session: Session,
    me: int,
    among: list[int],
    my_wants: Wants,
    my_copies: dict[int, list[Copy]],
    now: datetime,
) -> list[Match]:
    """The exact matches with the partners ``among`` (those with anything on either side)."""
    matches: dict[int, Match] = {}
    if my_wants:
        theirs = _tradable(session, among=among, public_except=me, card_ids=set(my_wants), now=now)
        for uid, copies in theirs.items():
            lines = _cover(my_wants, _index(copies))
            if lines:
                matches.setdefault(uid, Match(uid, "")).they_give = lines
    if my_copies:
        their_wants = _wants(session, cards_of_public=(set(my_copies), me), among=among)
        for uid, wants in their_wants.items():
            lines = _cover(wants, my_copies)
            if lines:
                matches.setdefault(uid, Match(uid, "")).i_give = lines
    if matches:
        names = dict(session.execute(select(USER.id, USER.username).where(USER.id.in_(sorted(matches)))).all())
        for uid, match in matches.items():
            match.username = names.get(uid, "?")
    return list(matches.values())


def _my_trade_cards(session: Session, user_id: int) -> set[int]:
    return set(
        session.scalars(
            select(PRINTING.card_id)
            .select_from(table_of(CollectionItem))
            .join(Printing, PRINTING.id == ITEM.printing_id)
            .where(ITEM.user_id == user_id, ITEM.for_trade > 0)
            .distinct()
        )
    )

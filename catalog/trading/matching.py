"""Matching (issue 13 §4): trade partners ranked by two-sided coverage.

For me and every other user whose lists are public:
- what they can give that I still miss: per want, want − owned (a printing-specific want counts
  copies of that printing, a card want copies of any printing), from their copies available for
  trade (for trade − held by their open offers) in an acceptable condition (the want's worst
  acceptable condition or better) and, when the want names a language and/or a finish, in
  that language/finish only: such a want's "owned" counts only copies in them too (a want for
  闪 is not covered by a 普通 copy, neither as a match nor as owned);
- what I can give that they still miss, the same way round.
Keep-N is honoured: a user's copies of a printing offered beyond "total − keep N" for its rarity
are not counted, whatever the for-trade numbers say. Ranked by the smaller side first (a
two-sided match beats a one-sided one), then the total; a few bulk queries, no per-user query.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlmodel import Session

from catalog.collection.grades import CONDITIONS, ItemGrade, condition_rank
from catalog.collection.tables import GAME, ITEM, PRINTING, SET, USER, WANT
from catalog.models import CardSet, CollectionItem, Game, Printing, User, WantItem, table_of
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


@dataclass(frozen=True)
class _Want:
    card_id: int
    printing_id: int | None
    need: int
    worst: int  # condition rank
    language: str | None = None  # None: any
    finish: str | None = None  # None: any


Wants = dict[int, list[_Want]]  # card → the wants of one user for it, printing-specific ones first


def _wants(
    session: Session, *, user_id: int | None = None, cards_of_public: tuple[set[int], int] | None = None
) -> dict[int, Wants]:
    """user → card → wants still missing (want − owned): the wants of ``user_id``, or those for
    ``cards_of_public = (cards, me)`` of every user with public lists but me.

    want − owned is one grouped query: a printing-specific want counts the copies of that
    printing, a card want those of any printing of the card, and a want naming a language/finish
    counts only copies in them (a want for 闪 is not met by a 普通 copy); satisfied wants never
    leave the database.
    """
    owned = func.coalesce(func.sum(ITEM.quantity), 0)
    query = (
        select(WANT.user_id, WANT.card_id, WANT.printing_id, WANT.quantity - owned, WANT.min_condition)
        .add_columns(WANT.language, WANT.finish)
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
    out: dict[int, Wants] = defaultdict(lambda: defaultdict(list))
    for uid, card_id, pid, need, worst, language, finish in session.execute(query):
        out[uid][card_id].append(_Want(card_id, pid, int(need), RANK[worst], language, finish))
    for wants in out.values():
        for of_card in wants.values():
            of_card.sort(key=lambda w: w.printing_id is None)
    return out


@dataclass
class _Copy:
    printing_id: int
    card_id: int
    grade: ItemGrade
    left: int
    rank: int  # of the condition (lower is better)


def _tradable(
    session: Session, *, user_id: int | None = None, public_except: int | None = None, card_ids: set[int], now: datetime
) -> dict[int, list[_Copy]]:
    """user → copies they can trade of these cards: for trade − held, capped by their keep-N rules.

    The copies of ``user_id``, or those of every user with public lists but ``public_except``.
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
    rows = session.execute(query).all()
    traders = sorted({r[0] for r in rows})
    holds = held_by(session, giver_ids=traders, now=now)
    keep_rules = {
        uid: rules
        for uid, rules in session.execute(select(USER.id, USER.keep_rules).where(USER.id.in_(traders)))
        if rules
    }
    out: dict[int, list[_Copy]] = defaultdict(list)
    kept = []
    for uid, pid, cond, lang, fin, for_trade in rows:
        card_id, rarity, game = printings[pid]
        if uid in keep_rules and isinstance((keep_rules[uid].get(game) or {}).get(rarity), int):
            kept.append((uid, pid, cond, lang, fin, for_trade))
            continue
        grade = ItemGrade(cond, lang, fin)
        left = for_trade - holds.get(uid, {}).get((pid, grade), 0)
        if left > 0:
            out[uid].append(_Copy(pid, card_id, grade, left, RANK[cond]))
    if kept:
        _keep_capped(session, kept, printings, keep_rules, holds, out)
    return out


def _keep_capped(
    session: Session,
    kept: list[tuple[int, int, str, str, str, int]],
    printings: dict[int, tuple[int, str, str]],
    keep_rules: dict[int, Any],
    holds: dict[int, dict[Key, int]],
    out: dict[int, list[_Copy]],
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
            out[uid].append(_Copy(pid, card_id, grade, left, RANK[cond]))


def _index(copies: list[_Copy]) -> dict[int, list[_Copy]]:
    """Copies by card, best condition first (built once, reused for every partner)."""
    by_card: dict[int, list[_Copy]] = defaultdict(list)
    for copy in sorted(copies, key=lambda c: (c.rank, c.printing_id, c.grade)):
        by_card[copy.card_id].append(copy)
    return by_card


def _cover(wants: Wants, by_card: dict[int, list[_Copy]]) -> list[LineSpec]:
    """Lines of the indexed copies meeting ``wants`` (greedy: printing wants first, best condition first).

    Copies serve the wants of their own card only, so each card shared by both sides is covered
    on its own, and only those are visited: a partner holds a dozen of my 200 wanted cards, and
    walking all 200 for each of a thousand partners was most of the matching time. Each copy is
    one item (printing + grade), so what is taken is counted per copy.
    """
    taken: dict[int, int] = {}  # id(copy) → copies taken from it
    copies: dict[int, _Copy] = {}
    small, large = (wants, by_card) if len(wants) <= len(by_card) else (by_card, wants)
    for card in small:
        if card not in large:
            continue
        candidates = by_card[card]
        for want in wants[card]:
            need = want.need
            for copy in candidates:
                if want.printing_id is not None and copy.printing_id != want.printing_id:
                    continue
                if copy.rank > want.worst:
                    continue
                if want.language is not None and want.language != copy.grade.language:
                    continue
                if want.finish is not None and want.finish != copy.grade.finish:
                    continue
                n = min(need, copy.left - taken.get(id(copy), 0))
                if n <= 0:
                    continue
                taken[id(copy)] = taken.get(id(copy), 0) + n
                copies[id(copy)] = copy
                need -= n
                if need == 0:
                    break
    # Unsorted: only the partners shown get their lines sorted (find_matches), since sorting
    # (printing, grade) keys for each of a thousand candidate partners cost more than covering.
    return [LineSpec(copies[c].printing_id, copies[c].grade, n) for c, n in taken.items()]


def _sorted(lines: list[LineSpec]) -> list[LineSpec]:
    return sorted(lines, key=lambda line: (line.printing_id, line.grade))


def find_matches(*, session: Session, user_id: int, now: datetime, limit: int = MAX_PARTNERS) -> list[Match]:
    """Partners for ``user_id`` among users with public lists, best first (at most ``limit``)."""
    my_wants = _wants(session, user_id=user_id).get(user_id, {})
    matches: dict[int, Match] = {}
    if my_wants:
        theirs = _tradable(session, public_except=user_id, card_ids=set(my_wants), now=now)
        for uid, copies in theirs.items():
            lines = _cover(my_wants, _index(copies))
            if lines:
                matches.setdefault(uid, Match(uid, "")).they_give = lines
    mine = _tradable(session, user_id=user_id, card_ids=_my_trade_cards(session, user_id), now=now)
    my_copies = mine.get(user_id, [])
    if my_copies:
        their_wants = _wants(session, cards_of_public=({c.card_id for c in my_copies}, user_id))
        indexed = _index(my_copies)
        for uid, wants in their_wants.items():
            lines = _cover(wants, indexed)
            if lines:
                matches.setdefault(uid, Match(uid, "")).i_give = lines
    if not matches:
        return []
    names = dict(session.execute(select(USER.id, USER.username).where(USER.id.in_(sorted(matches)))).all())
    for uid, match in matches.items():
        match.username = names.get(uid, "?")
    shown = sorted(matches.values(), key=lambda m: m.rank_key)[:limit]
    for match in shown:
        match.they_give, match.i_give = _sorted(match.they_give), _sorted(match.i_give)
    return shown


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

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

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import CONDITIONS, ItemGrade, condition_rank
from catalog.collection.tables import GAME, ITEM, PRINTING, SET, USER, WANT
from catalog.collection.wants import satisfies
from catalog.models import CardSet, CollectionItem, Game, Printing, WantItem
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


def _wants(session: Session, user_ids: list[int] | None, card_ids: set[int] | None) -> dict[int, list[_Want]]:
    """user → wants still missing (want − owned), printing-specific ones first."""
    query = select(
        WANT.user_id, WANT.card_id, WANT.printing_id, WANT.quantity, WANT.min_condition, WANT.language, WANT.finish
    ).select_from(table_of_want())
    if card_ids is not None:
        # By card (its index), the users filtered here: an IN over a thousand users made SQLite
        # probe the (user, card) index once per pair.
        query = query.where(WANT.card_id.in_(sorted(card_ids)))
    elif user_ids is not None:
        query = query.where(WANT.user_id.in_(user_ids))
    rows = session.execute(query).all()
    if user_ids is not None and card_ids is not None:
        wanted_by = set(user_ids)
        rows = [r for r in rows if r[0] in wanted_by]
    if not rows:
        return {}
    users = {r[0] for r in rows}
    cards = sorted({r[1] for r in rows})
    # (user, card or printing) → (language, finish) → copies: a want naming a language/finish
    # counts only those, one naming neither counts them all (as before).
    by_card: dict[tuple[int, int], dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    by_printing: dict[tuple[int, int], dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    # Driven from the printings of these cards (index on printing_id), users filtered here: an
    # IN over a thousand users made SQLite walk every item of every one of them.
    card_of = dict(session.execute(select(PRINTING.id, PRINTING.card_id).where(PRINTING.card_id.in_(cards))).all())
    owned = session.execute(
        select(ITEM.user_id, ITEM.printing_id, ITEM.language, ITEM.finish, ITEM.quantity).where(
            ITEM.printing_id.in_(sorted(card_of)), ITEM.quantity > 0
        )
    ).all()
    for uid, pid, lang, fin, q in owned:
        if uid in users:
            by_card[(uid, card_of[pid])][(lang, fin)] += int(q)
            by_printing[(uid, pid)][(lang, fin)] += int(q)
    out: dict[int, list[_Want]] = defaultdict(list)
    for uid, card_id, pid, quantity, worst, language, finish in rows:
        copies = by_printing.get((uid, pid), {}) if pid is not None else by_card.get((uid, card_id), {})
        have = sum(n for (lang, fin), n in copies.items() if satisfies(language, finish, lang, fin))
        if quantity > have:
            out[uid].append(_Want(card_id, pid, quantity - have, condition_rank(worst), language, finish))
    for wants in out.values():
        wants.sort(key=lambda w: (w.printing_id is None, w.card_id))
    return out


def table_of_want() -> Any:
    from catalog.models import table_of

    return table_of(WantItem)


@dataclass
class _Copy:
    printing_id: int
    card_id: int
    grade: ItemGrade
    left: int


def _tradable(
    session: Session, *, user_ids: list[int] | None, card_ids: set[int], exclude: int | None, now: datetime
) -> dict[int, list[_Copy]]:
    """user → copies they can trade of these cards: for trade − held, capped by their keep-N rules."""
    # Two steps, each on an index: the printings of these cards, then their items; users are
    # filtered here (public lists, not the caller) rather than by an IN over every user.
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
    query = select(
        ITEM.user_id, ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish, ITEM.quantity, ITEM.for_trade
    ).where(ITEM.printing_id.in_(sorted(printings)), ITEM.quantity > 0)
    if user_ids is not None:
        allowed = set(user_ids)
    else:
        allowed = set(session.scalars(select(USER.id).where(USER.lists_public.is_(True))))
    allowed.discard(exclude)
    rows = [
        (uid, pid, *printings[pid], cond, lang, fin, q, ft)
        for uid, pid, cond, lang, fin, q, ft in session.execute(query).all()
        if uid in allowed
    ]
    traders = sorted({r[0] for r in rows if r[9] > 0})
    holds = held_by(session, giver_ids=traders, now=now)
    keep_rules = dict(session.execute(select(USER.id, USER.keep_rules).where(USER.id.in_(traders))).all())
    totals: dict[tuple[int, int], int] = defaultdict(int)
    for r in rows:
        totals[(r[0], r[1])] += r[8]
    spare: dict[tuple[int, int], int] = {}
    out: dict[int, list[_Copy]] = defaultdict(list)
    # worst condition first, as the keep rule offers them
    for uid, pid, card_id, rarity, game, cond, lang, fin, _q, for_trade in sorted(
        rows, key=lambda r: (r[0], r[1], -condition_rank(r[5]), r[6], r[7])
    ):
        if for_trade <= 0:
            continue
        grade = ItemGrade(cond, lang, fin)
        left = for_trade - holds.get(uid, {}).get((pid, grade), 0)
        keep = ((keep_rules.get(uid) or {}).get(game) or {}).get(rarity)
        if isinstance(keep, int):
            cap = spare.setdefault((uid, pid), max(0, totals[(uid, pid)] - keep))
            left = min(left, cap)
            spare[(uid, pid)] = cap - max(0, left)
        if left > 0:
            out[uid].append(_Copy(pid, card_id, grade, left))
    return out


def table_of_item() -> Any:
    from catalog.models import table_of

    return table_of(CollectionItem)


def _index(copies: list[_Copy]) -> dict[int, list[_Copy]]:
    """Copies by card, best condition first (built once, reused for every partner)."""
    by_card: dict[int, list[_Copy]] = defaultdict(list)
    for copy in sorted(copies, key=lambda c: (condition_rank(c.grade.condition), c.printing_id, c.grade)):
        by_card[copy.card_id].append(copy)
    return by_card


def _cover(wants: list[_Want], by_card: dict[int, list[_Copy]]) -> list[LineSpec]:
    """Lines of the indexed copies meeting ``wants`` (greedy: printing wants first, best condition first)."""
    used: dict[int, int] = {}
    taken: dict[Key, int] = defaultdict(int)
    for want in wants:
        need = want.need
        for copy in by_card.get(want.card_id, ()):
            if need == 0:
                break
            if want.printing_id is not None and copy.printing_id != want.printing_id:
                continue
            left = copy.left - used.get(id(copy), 0)
            if left <= 0 or RANK[copy.grade.condition] > want.worst:
                continue
            if not satisfies(want.language, want.finish, copy.grade.language, copy.grade.finish):
                continue
            n = min(need, left)
            used[id(copy)] = used.get(id(copy), 0) + n
            taken[(copy.printing_id, copy.grade)] += n
            need -= n
    # Unsorted: only the partners shown get their lines sorted (find_matches), since sorting
    # (printing, grade) keys for each of a thousand candidate partners cost more than covering.
    return [LineSpec(pid, grade, q) for (pid, grade), q in taken.items()]


def _sorted(lines: list[LineSpec]) -> list[LineSpec]:
    return sorted(lines, key=lambda line: (line.printing_id, line.grade))


def find_matches(*, session: Session, user_id: int, now: datetime, limit: int = MAX_PARTNERS) -> list[Match]:
    """Partners for ``user_id`` among users with public lists, best first (at most ``limit``)."""
    my_wants = _wants(session, [user_id], None).get(user_id, [])
    matches: dict[int, Match] = {}
    if my_wants:
        theirs = _tradable(session, user_ids=None, card_ids={w.card_id for w in my_wants}, exclude=user_id, now=now)
        for uid, copies in theirs.items():
            lines = _cover(my_wants, _index(copies))
            if lines:
                matches.setdefault(uid, Match(uid, "")).they_give = lines
    mine = _tradable(session, user_ids=[user_id], card_ids=_my_trade_cards(session, user_id), exclude=None, now=now)
    my_copies = mine.get(user_id, [])
    if my_copies:
        public = [
            uid for (uid,) in session.execute(select(USER.id).where(USER.lists_public.is_(True), USER.id != user_id))
        ]
        their_wants = _wants(session, public, {c.card_id for c in my_copies})
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
            .select_from(table_of_item())
            .join(Printing, PRINTING.id == ITEM.printing_id)
            .where(ITEM.user_id == user_id, ITEM.for_trade > 0)
            .distinct()
        )
    )

"""Want lists and have lists, and the "keep N per rarity" rule for trade extras."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import CONDITIONS, ItemGrade, condition_rank, parse_grade, unknown_grade_message
from catalog.collection.ledger import Key, lock_items, plan_targets, write_changes
from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.models import Card, CardSet, CollectionItem, Game, Printing, User, WantItem
from catalog.models.columns import CARD, GAME, ITEM, PRINTING, SET, WANT


class WantError(LunzangError):
    code = "bad_request"


class NotFound(LunzangError):
    code = "not_found"


@dataclass(frozen=True)
class WantRow:
    id: int
    card_id: int
    name: str
    game: str
    printing_id: int | None
    set: str | None
    number: str | None
    quantity: int
    min_condition: str
    # copies owned, any condition, in the want's language/finish: of the card (any printing) for a
    # card want, of the printing for a printing want
    owned: int
    language: str | None = None  # None: any language
    finish: str | None = None  # None: any finish
    in_addition: bool = False  # a printing want on top of the card want (else it refines it)
    refined_by: int = 0  # a card want: copies its printing wants still miss, counted towards it

    @property
    def missing(self) -> int:
        """What is still missing: the wanted number less the copies owned, less (a card want)
        what the printing wants refining it still miss (never below 0)."""
        return max(0, self.quantity - self.owned - self.refined_by)


@dataclass(frozen=True)
class HaveRow:
    printing_id: int
    name: str
    game: str
    set: str
    number: str
    rarity: str
    grade: ItemGrade
    quantity: int
    for_trade: int


def set_want(
    *,
    session: Session,
    user_id: int,
    card_id: int,
    printing_id: int | None = None,
    quantity: int = 1,
    min_condition: str = "MP",
    language: str | None = None,
    finish: str | None = None,
    in_addition: bool | None = None,
    now: datetime,
) -> WantItem | None:
    """Want ``quantity`` copies of a card (any printing) or of one printing; 0 removes the want.

    A printing want refines the card want of the same card (its copies are some of those the
    card want asks for) unless ``in_addition`` (:func:`refines`); None keeps what
    the want says (False for a new one: a pasted list or a deck's "add missing" never drops the
    box the wants page ticked); ignored for a card want.

    ``language`` / ``finish`` (any alias of grades.py's vocabularies; None or empty = any) make
    the want insist on them: only such copies count as owned or as a match.
    One want per (card, printing): setting it again replaces the quantity, condition, language
    and finish (a choice: a collector who wants both a 闪 and a 普通 copy wants the card twice, a
    case the list has never had; one row per card keeps the pages and the deck "add missing" simple).
    """
    if min_condition not in CONDITIONS:
        raise WantError(Message(f"未知的品相「{min_condition}」", f"unknown condition '{min_condition}'"))
    language, finish = _want_grade("language", language), _want_grade("finish", finish)
    if quantity < 0 or quantity > 1000:
        raise WantError(Message("想要的数量必须在 0 到 1000 之间", "the wanted quantity must be from 0 to 1000"))
    if session.get(Card, card_id) is None:
        raise NotFound(Message("没有这张卡牌", "no such card"))
    if printing_id is not None:
        printing = session.get(Printing, printing_id)
        if printing is None or printing.card_id != card_id:
            raise NotFound(Message("这张卡牌没有这个印刷", "no such printing of this card"))
    existing = session.scalars(
        select(WantItem).where(
            WANT.user_id == user_id,
            WANT.card_id == card_id,
            WANT.printing_id == printing_id if printing_id is not None else WANT.printing_id.is_(None),
        )
    ).first()
    if quantity == 0:
        if existing is not None:
            session.delete(existing)
            session.flush()
        return None
    if existing is None:
        existing = WantItem(user_id=user_id, card_id=card_id, printing_id=printing_id, updated_at=now)
    existing.quantity, existing.min_condition, existing.updated_at = quantity, min_condition, now
    existing.language, existing.finish = language, finish
    if in_addition is not None:
        existing.in_addition = in_addition and printing_id is not None
    session.add(existing)
    session.flush()
    return existing


def _want_grade(kind: str, text: str | None) -> str | None:
    """A want's language / finish: None or empty → None (any), an alias → its value, else WantError."""
    if text is None or not text.strip():
        return None
    value = parse_grade(kind, text)
    if value is None:
        raise WantError(unknown_grade_message(kind, text))
    return value


def satisfies(language: str | None, finish: str | None, grade_language: str, grade_finish: str) -> bool:
    """Whether a copy in ``grade_language`` / ``grade_finish`` meets a want's language / finish."""
    return (language is None or language == grade_language) and (finish is None or finish == grade_finish)


def remove_want(*, session: Session, user_id: int, want_id: int) -> None:
    """Delete one of the user's wants (another user's id → :class:`NotFound`)."""
    want = session.get(WantItem, want_id)
    if want is None or want.user_id != user_id:
        raise NotFound(Message("没有这条想要记录", "no such want"))
    session.delete(want)
    session.flush()


def update_want(
    *,
    session: Session,
    user_id: int,
    want_id: int,
    quantity: int,
    min_condition: str,
    language: str | None = None,
    finish: str | None = None,
    in_addition: bool = False,
    now: datetime,
) -> WantItem | None:
    """Change the quantity / worst condition / language / finish / "in addition" of one of the
    user's wants (0 removes it).

    Another user's (or no) want → :class:`NotFound`, with nothing changed.
    """
    want = session.get(WantItem, want_id)
    if want is None or want.user_id != user_id:
        raise NotFound(Message("没有这条想要记录", "no such want"))
    return set_want(
        session=session,
        user_id=user_id,
        card_id=want.card_id,
        printing_id=want.printing_id,
        quantity=quantity,
        min_condition=min_condition,
        language=language,
        finish=finish,
        in_addition=in_addition,
        now=now,
    )


def refines(
    printing_want: tuple[bool, str | None, str | None, int], card_want: tuple[str | None, str | None, int]
) -> bool:
    """Whether a printing want's copies count towards the card want of the same card.

    ``printing_want`` = (in addition, language, finish, worst condition rank), ``card_want`` =
    (language, finish, worst condition rank). It refines the card want unless the user wants it
    in addition, and only when every copy meeting it meets the card want too (same or stricter
    language, finish and condition): a card want ×1 and a printing want ×1 then ask for one copy,
    of that printing. A laxer printing want (an HP copy of P1 for a card wanted NM) is counted
    apart, as if in addition, since its copies may not serve the card want.
    """
    in_addition, language, finish, worst = printing_want
    card_language, card_finish, card_worst = card_want
    return (
        not in_addition and card_language in (None, language) and card_finish in (None, finish) and worst <= card_worst
    )


def owned_by_card(session: Session, user_id: int, card_ids: list[int] | None = None) -> dict[int, int]:
    """Copies owned per card (all printings and grades)."""
    from sqlalchemy import func

    query = (
        select(PRINTING.card_id, func.sum(ITEM.quantity))
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .where(ITEM.user_id == user_id, ITEM.quantity > 0)
        .group_by(PRINTING.card_id)
    )
    if card_ids is not None:
        query = query.where(PRINTING.card_id.in_(card_ids))
    return {card_id: int(total) for card_id, total in session.execute(query)}


def _owned_by_card_grade(
    session: Session, user_id: int, card_ids: list[int]
) -> dict[int, dict[tuple[int, str, str], int]]:
    """Copies owned per card and (printing, language, finish): what a want's printing,
    language and finish filter."""
    from sqlalchemy import func

    if not card_ids:
        return {}
    query = (
        select(PRINTING.card_id, PRINTING.id, ITEM.language, ITEM.finish, func.sum(ITEM.quantity))
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .where(ITEM.user_id == user_id, ITEM.quantity > 0, PRINTING.card_id.in_(sorted(set(card_ids))))
        .group_by(PRINTING.card_id, PRINTING.id, ITEM.language, ITEM.finish)
    )
    out: dict[int, dict[tuple[int, str, str], int]] = {}
    for card_id, printing_id, language, finish, total in session.execute(query):
        out.setdefault(card_id, {})[(printing_id, language, finish)] = int(total)
    return out


def list_wants(*, session: Session, user_id: int) -> list[WantRow]:
    """The user's want list, by game then card name, with how many they already own."""
    rows = session.execute(
        select(WantItem, CARD.name, GAME.slug)
        .join(Card, CARD.id == WANT.card_id)
        .join(Game, GAME.id == CARD.game_id)
        .where(WANT.user_id == user_id)
        .order_by(GAME.slug, CARD.name, WANT.id)
    ).all()
    printing_ids = [w.printing_id for w, _, _ in rows if w.printing_id is not None]
    where: dict[int, tuple[str, str]] = {}
    if printing_ids:
        where = {
            pid: (code, number)
            for pid, code, number in session.execute(
                select(PRINTING.id, SET.code, PRINTING.number)
                .join(CardSet, SET.id == PRINTING.set_id)
                .where(PRINTING.id.in_(printing_ids))
            )
        }
    owned = _owned_by_card_grade(session, user_id, [w.card_id for w, _, _ in rows])
    out = []
    for want, name, game in rows:
        assert want.id is not None
        code, number = where.get(want.printing_id, (None, None)) if want.printing_id else (None, None)
        of = owned.get(want.card_id, {})
        out.append(
            WantRow(
                want.id,
                want.card_id,
                name,
                game,
                want.printing_id,
                code,
                number,
                want.quantity,
                want.min_condition,
                sum(
                    q
                    for (pid, lang, fin), q in of.items()
                    if want.printing_id in (None, pid) and satisfies(want.language, want.finish, lang, fin)
                ),
                want.language,
                want.finish,
                want.in_addition,
            )
        )
    return sorted(_refined(out), key=lambda row: _game_rank(row.game))  # stable: name order within a game


def _refined(rows: list[WantRow]) -> list[WantRow]:
    """The rows with each card want's ``refined_by``: what its refining printing wants still miss."""
    from dataclasses import replace

    card_wants = {row.card_id: row for row in rows if row.printing_id is None}
    counted: dict[int, int] = {}
    for row in rows:
        card = card_wants.get(row.card_id)
        if (
            row.printing_id is not None
            and card is not None
            and refines(
                (row.in_addition, row.language, row.finish, condition_rank(row.min_condition)),
                (card.language, card.finish, condition_rank(card.min_condition)),
            )
        ):
            counted[row.card_id] = counted.get(row.card_id, 0) + row.missing
    return [
        replace(row, refined_by=counted[row.card_id]) if row.printing_id is None and row.card_id in counted else row
        for row in rows
    ]


def _game_rank(slug: str) -> int:
    """Registry order (the main game first), as every page lists games; unknown slugs last."""
    order = list(GAMES)
    return order.index(slug) if slug in order else len(order)


def have_list(*, session: Session, user_id: int) -> list[HaveRow]:
    """Items the user offers for trade (for_trade > 0), by game, set and number."""
    rows = session.execute(
        select(CollectionItem, CARD.name, GAME.slug, SET.code, PRINTING.number, PRINTING.rarity)
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .where(ITEM.user_id == user_id, ITEM.for_trade > 0)
        .order_by(GAME.slug, SET.position, PRINTING.number)
    )
    haves = [
        HaveRow(
            item.printing_id,
            name,
            game,
            code,
            number,
            rarity,
            ItemGrade(item.condition, item.language, item.finish),
            item.quantity,
            item.for_trade,
        )
        for item, name, game, code, number, rarity in rows
    ]
    return sorted(haves, key=lambda row: _game_rank(row.game))


def mark_extras_for_trade(*, session: Session, user_id: int, game: str, keep: dict[str, int], now: datetime) -> int:
    """Keep ``keep[rarity]`` copies of each printing of ``game`` and offer the rest for trade.

    Per printing: for trade = max(0, copies over all grades − keep), taken from the worst
    condition first (those are the copies one trades away). Rarities not in ``keep`` are left
    as they are. The rule is saved in ``USER.keep_rules[game]``. Returns the items changed.
    """
    if any(not isinstance(n, int) or n < 0 for n in keep.values()):
        raise WantError(Message("保留数量必须是非负整数", "keep counts must be non-negative whole numbers"))
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(Message("没有这个用户", "no such user"))
    rules = dict(user.keep_rules or {})
    rules[game] = dict(keep)
    user.keep_rules = rules
    session.add(user)
    session.flush()  # also the first write of the transaction: the lock lock_items relies on (SQLite)
    current = lock_items(session, user_id)
    rarity_of = {
        pid: rarity
        for pid, rarity in session.execute(
            select(PRINTING.id, PRINTING.rarity)
            .join(CardSet, SET.id == PRINTING.set_id)
            .join(Game, GAME.id == SET.game_id)
            .where(GAME.slug == game, PRINTING.id.in_({k[0] for k in current}))
        )
    }
    by_printing: dict[int, list[Key]] = {}
    for key in current:
        if rarity_of.get(key[0]) in keep:
            by_printing.setdefault(key[0], []).append(key)
    targets: dict[Key, tuple[int, int]] = {}
    for pid, keys in by_printing.items():
        keys.sort(key=lambda k: (-condition_rank(k[1].condition), k[1]))  # worst first
        extra = max(0, sum(current[k].quantity for k in keys) - keep[rarity_of[pid]])
        for key in keys:
            share = min(extra, current[key].quantity)
            targets[key] = (current[key].quantity, share)
            extra -= share
    changes = plan_targets(current, targets)
    write_changes(
        session=session, user_id=user_id, current=current, changes=changes, reason="manual", ref="keep rule", now=now
    )
    return len(changes)

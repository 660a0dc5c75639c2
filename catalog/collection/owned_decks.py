"""Decks players own as objects: "my decks", the catalogue of known decks, decks
traded whole through the offer machinery, and the deck an event registration locks.

A :class:`~catalog.models.DeckRecord` is a deck's fixed identity and contents (a deck never
changes: its canonical text, written by the game, and that text's SHA-256); an
:class:`~catalog.models.OwnedDeck` is one copy a user owns. A copy changes owner only here,
each time with a :class:`~catalog.models.DeckLedger` row in the same transaction. Functions
take a session and never commit (their caller owns the transaction).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlmodel import Session, col

from catalog.decks.check import DeckCheck, check_decklists
from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.models import DeckLedger, DeckRecord, Event, Game, OwnedDeck, Registration, Trade, TradeDeckLine
from catalog.models.trade_columns import OPEN
from catalog.rules import ERROR

MAX_DECKS_PER_FILE = 100


class DeckError(LunzangError):
    code = "bad_deck"


class DeckNotFound(DeckError):
    code = "not_found"
    status = 404


class DeckUnavailable(DeckError):
    code = "deck_unavailable"
    status = 409


@dataclass(frozen=True)
class OwnedView:
    """One of a user's decks, for lists and pages."""

    owned: OwnedDeck
    deck: DeckRecord
    locked: bool  # registered for an event that is not over
    held: bool  # in an open trade offer


def owned_game(game: str | None = None) -> str:
    """The game asked for, else the one whose decks players own (the registry's, no slug here)."""
    if game:
        return game
    found = [slug for slug, module in GAMES.items() if module.write_deck is not None]
    if not found:
        raise DeckError(Message("没有可拥有卡组的游戏", "no game has decks to own"))
    return found[0]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _game(session: Session, slug: str) -> Game:
    game = session.scalars(select(Game).where(col(Game.slug) == slug)).first()
    if game is None or GAMES[slug].write_deck is None:
        raise DeckError(Message("这个游戏没有可拥有的卡组", "this game has no decks to own"))
    return game


def _record(session: Session, check: DeckCheck, now: datetime, *, known: bool) -> DeckRecord:
    """The deck's record: found by public id or contents, else created (a deck never changes)."""
    errors = [v for v in check.verdict.violations if v.severity == ERROR]
    if errors:
        name = check.deck.name or "—"
        raise DeckError(
            Message(
                f"卡组「{name}」不合法，不能收录：{errors[0].message}",
                f"deck '{name}' is not legal and cannot be added: {errors[0].message_en}",
            )
        )
    slug = check.pool.game
    writer = GAMES[slug].write_deck
    assert writer is not None
    game = _game(session, slug)
    text = writer(check.deck)
    digest = _digest(text)
    public_id = check.deck.metadata.get("id", "")[:64]
    query = select(DeckRecord).where(col(DeckRecord.game_id) == game.id)
    found = session.scalars(query.where(col(DeckRecord.digest) == digest)).first()
    if found is None and public_id:
        found = session.scalars(query.where(col(DeckRecord.public_id) == public_id)).first()
        if found is not None and found.digest != digest:
            raise DeckError(
                Message(
                    f"卡组编号 {public_id} 已收录为另一副卡组「{found.name}」：卡组不会改变，请检查文件",
                    f"deck id {public_id} is already another deck ('{found.name}'): a deck never changes",
                )
            )
    if found is None:
        houses = re.search(r"^houses: (?P<houses>.*)$", text, re.MULTILINE)  # as the game wrote them
        found = DeckRecord(
            game_id=game.id,  # type: ignore[arg-type]  # a stored game has its id
            public_id=public_id,
            name=(check.deck.name or "—")[:200],
            set_code=check.deck.metadata.get("set", "")[:32],
            houses=[h.strip() for h in houses["houses"].split(",")] if houses else [],
            text=text,
            digest=digest,
            known=known,
            created_at=now,
        )
        session.add(found)
        session.flush()
    elif known and not found.known:
        found.known = True
        session.add(found)
    return found


def read_decks(*, session: Session, text: str, game: str | None = None) -> list[DeckCheck]:
    """Every deck of a file or pasted text, judged (a list: keyteki's file holds several)."""
    checks = check_decklists(session=session, text=text, game=owned_game(game))
    if len(checks) > MAX_DECKS_PER_FILE:
        raise DeckError(Message(f"一次最多 {MAX_DECKS_PER_FILE} 副卡组", f"at most {MAX_DECKS_PER_FILE} decks at once"))
    return checks


def import_known_decks(*, session: Session, text: str, now: datetime, game: str | None = None) -> list[DeckRecord]:
    """Add decks to the catalogue of known decks (players pick theirs from it); idempotent."""
    return [_record(session, check, now, known=True) for check in read_decks(session=session, text=text, game=game)]


def _own(session: Session, user_id: int, record: DeckRecord, now: datetime) -> OwnedDeck:
    assert record.id is not None  # flushed
    owned = OwnedDeck(deck_id=record.id, user_id=user_id, acquired_at=now)
    session.add(owned)
    session.flush()
    assert owned.id is not None  # flushed
    session.add(DeckLedger(owned_deck_id=owned.id, to_user_id=user_id, reason="add", at=now))
    return owned


def add_decks(*, session: Session, user_id: int, text: str, now: datetime, game: str | None = None) -> list[OwnedDeck]:
    """Add the decks of a file or pasted text to a user's decks (each a copy they own)."""
    records = [_record(session, check, now, known=False) for check in read_decks(session=session, text=text, game=game)]
    return [_own(session, user_id, record, now) for record in records]


def add_known_deck(*, session: Session, user_id: int, deck_id: int, now: datetime) -> OwnedDeck:
    """Add a copy of a deck from the catalogue of known decks."""
    record = session.get(DeckRecord, deck_id)
    if record is None or not record.known:
        raise DeckNotFound(Message("没有这副已知卡组", "no such known deck"))
    return _own(session, user_id, record, now)


def known_decks(*, session: Session, game: str | None = None) -> list[DeckRecord]:
    game_row = session.scalars(select(Game).where(col(Game.slug) == owned_game(game))).first()
    if game_row is None:
        return []
    query = select(DeckRecord).where(col(DeckRecord.game_id) == game_row.id, col(DeckRecord.known).is_(True))
    return list(session.scalars(query.order_by(col(DeckRecord.name))))


def _owned_by(session: Session, user_id: int, owned_id: int, *, lock: bool = False) -> OwnedDeck:
    query = select(OwnedDeck).where(col(OwnedDeck.id) == owned_id)
    if lock:
        query = query.with_for_update()
    owned = session.scalars(query).first()
    if owned is None or owned.user_id != user_id:
        raise DeckNotFound(Message("没有这副卡组", "no such deck"))
    return owned


def locked_ids(session: Session, owned_ids: Iterable[int]) -> set[int]:
    """The copies registered for an event that is not over: their identity is locked."""
    ids = list(owned_ids)
    if not ids:
        return set()
    query = (
        select(col(Registration.owned_deck_id))
        .join(Event, col(Event.id) == col(Registration.event_id))
        .where(col(Registration.owned_deck_id).in_(ids), col(Event.state) != "finished")
    )
    return {i for i in session.scalars(query) if i is not None}


def held_ids(
    session: Session, owned_ids: Iterable[int], *, now: datetime, exclude_trade_id: int | None = None
) -> set[int]:
    """The copies in an open offer (proposed, countered, accepted and not yet settled)."""
    ids = list(owned_ids)
    if not ids:
        return set()
    query = (
        select(col(TradeDeckLine.owned_deck_id), col(Trade.status), col(Trade.expires_at))
        .join(Trade, col(Trade.id) == col(TradeDeckLine.trade_id))
        .where(
            col(TradeDeckLine.owned_deck_id).in_(ids),
            col(TradeDeckLine.version) == col(Trade.version),
            col(Trade.status).in_(OPEN),
        )
    )
    if exclude_trade_id is not None:
        query = query.where(col(Trade.id) != exclude_trade_id)
    # SQLite hands datetimes back without their (UTC) offset.
    return {
        i
        for i, status, expires in session.execute(query)
        if status == "accepted" or (expires if expires.tzinfo else expires.replace(tzinfo=UTC)) > now
    }


def set_for_trade(*, session: Session, user_id: int, owned_id: int, for_trade: bool) -> OwnedDeck:
    """Mark (or unmark) a copy for trade: only then can an offer hold it."""
    owned = _owned_by(session, user_id, owned_id, lock=True)
    if for_trade and locked_ids(session, [owned_id]):
        raise DeckUnavailable(
            Message("这副卡组已报名一场未结束的赛事，不能交换", "this deck is registered for an event that is not over")
        )
    owned.for_trade = for_trade
    session.add(owned)
    session.flush()
    return owned


def my_decks(*, session: Session, user_id: int, now: datetime) -> list[OwnedView]:
    rows = session.execute(
        select(OwnedDeck, DeckRecord)
        .join(DeckRecord, col(DeckRecord.id) == col(OwnedDeck.deck_id))
        .where(col(OwnedDeck.user_id) == user_id)
        .order_by(col(OwnedDeck.id))
    ).all()
    ids = [owned.id for owned, _deck in rows if owned.id is not None]
    locked, held = locked_ids(session, ids), held_ids(session, ids, now=now)
    return [OwnedView(owned, deck, owned.id in locked, owned.id in held) for owned, deck in rows]


def owned_view(*, session: Session, owned_id: int, now: datetime) -> OwnedView:
    owned = session.get(OwnedDeck, owned_id)
    if owned is None:
        raise DeckNotFound(Message("没有这副卡组", "no such deck"))
    deck = session.get(DeckRecord, owned.deck_id)
    assert deck is not None
    return OwnedView(owned, deck, bool(locked_ids(session, [owned_id])), bool(held_ids(session, [owned_id], now=now)))


# ---------------------------------------------------------------------------- trading whole decks


def check_decks_available(
    session: Session,
    *,
    sides: Mapping[int, Sequence[int]],
    now: datetime,
    exclude_trade_id: int | None = None,
) -> None:
    """Each giver owns each copy, has it for trade, and neither an event nor another open offer
    holds it; else :class:`DeckUnavailable` (409) naming the decks."""
    problems: list[str] = []
    for giver_id, owned_ids in sides.items():
        if not owned_ids:
            continue
        if len(set(owned_ids)) != len(owned_ids):
            raise DeckError(Message("同一副卡组只能出现一次", "a deck can be offered once"))
        rows = {
            o.id: o
            for o in session.scalars(select(OwnedDeck).where(col(OwnedDeck.id).in_(list(owned_ids))).with_for_update())
        }
        locked = locked_ids(session, owned_ids)
        held = held_ids(session, owned_ids, now=now, exclude_trade_id=exclude_trade_id)
        for owned_id in owned_ids:
            owned = rows.get(owned_id)
            if owned is None or owned.user_id != giver_id:
                problems.append(f"#{owned_id}（不属于这一方）")
            elif not owned.for_trade:
                problems.append(f"#{owned_id}（没有标记为可交换）")
            elif owned_id in locked:
                problems.append(f"#{owned_id}（已报名赛事）")
            elif owned_id in held:
                problems.append(f"#{owned_id}（在另一个报价中）")
    if problems:
        raise DeckUnavailable(
            Message(
                f"这些卡组不能交换：{'、'.join(problems)}",
                f"these decks cannot be traded: {', '.join(problems)}",
            )
        )


def write_deck_lines(session: Session, trade: Trade, giver_id: int, owned_ids: Sequence[int]) -> None:
    assert trade.id is not None
    for owned_id in owned_ids:
        session.add(TradeDeckLine(trade_id=trade.id, version=trade.version, giver_id=giver_id, owned_deck_id=owned_id))


def deck_lines_of(session: Session, trade: Trade, giver_id: int, version: int | None = None) -> list[int]:
    query = select(col(TradeDeckLine.owned_deck_id)).where(
        col(TradeDeckLine.trade_id) == trade.id,
        col(TradeDeckLine.version) == (version or trade.version),
        col(TradeDeckLine.giver_id) == giver_id,
    )
    return list(session.scalars(query.order_by(col(TradeDeckLine.owned_deck_id))))


def move_decks(session: Session, trade: Trade, giver_id: int, receiver_id: int, now: datetime) -> None:
    """Each copy the giver gives in the trade's version to the receiver, whole, with a ledger row."""
    for owned_id in deck_lines_of(session, trade, giver_id):
        owned = session.scalars(select(OwnedDeck).where(col(OwnedDeck.id) == owned_id).with_for_update()).one()
        if owned.user_id != giver_id:
            raise DeckUnavailable(Message(f"卡组 #{owned_id} 已不属于交出方", f"deck #{owned_id} left its giver"))
        owned.user_id, owned.for_trade, owned.acquired_at = receiver_id, False, now
        session.add(owned)
        session.add(
            DeckLedger(
                owned_deck_id=owned_id,
                from_user_id=giver_id,
                to_user_id=receiver_id,
                reason="trade",
                ref=str(trade.id),
                at=now,
            )
        )
    session.flush()


def deck_ledger(*, session: Session, owned_id: int) -> list[DeckLedger]:
    query = select(DeckLedger).where(col(DeckLedger.owned_deck_id) == owned_id).order_by(col(DeckLedger.id))
    return list(session.scalars(query))


# ---------------------------------------------------------------------------- events


def deck_for_registration(
    *, session: Session, user_id: int, owned_id: int, now: datetime
) -> tuple[OwnedDeck, DeckRecord]:
    """A user's copy to register with: it must be theirs and not in an open offer."""
    owned = _owned_by(session, user_id, owned_id, lock=True)
    if held_ids(session, [owned_id], now=now):
        raise DeckUnavailable(
            Message(
                "这副卡组在一个未结的交易报价中，不能报名",
                "this deck is in an open trade offer: it cannot be registered",
            )
        )
    deck = session.get(DeckRecord, owned.deck_id)
    assert deck is not None
    if owned.for_trade:
        # registering locks the deck's identity: it stops being for trade
        owned.for_trade = False
        session.add(owned)
    return owned, deck

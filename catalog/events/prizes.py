"""Silver chests (白银宝箱): prizes by final place, balances per store, the store's exchange list
and redemptions.

The seed: "参加比赛的玩家获得4张白银宝箱，季军获得5张白银宝箱，亚军获得7张，冠军获得9张" and
"白银宝箱兑换列表的更新频率会比以往快" — so the exchange list is dated and editable.

A balance changes only here, always together with a ``ChestLedger`` row in the same transaction
(:func:`check_chests` proves the ledger sums to the balances, like the card ledger). The balance
row is locked first (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite writers hold the database
lock), so two redemptions can never both spend the same chests.

Choices where the seed is silent: a player's chests are held at the store of the event (each
shop runs its own exchange); a player with an account is one holder across events, a walk-in
is known by name at that store; disqualified players get no chests; dropped players still get
the participation chests ("参加比赛的玩家" — they took part); prizes go by the Swiss standings
after the last round.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select
from sqlmodel import Session

from catalog.errors import LunzangError, Message
from catalog.events.playoff import final_order
from catalog.events.registration import EventError, EventNotFound, list_problem, prize_table
from catalog.events.results import standings
from catalog.events.stores import check_prizes
from catalog.models import ChestBalance, ChestLedger, Event, ExchangeItem, Redemption, Registration
from catalog.models.event_columns import BALANCE, CHEST_LEDGER, ITEM, REG
from catalog.text import fold

REASONS = ("prize", "redeem", "adjust")


class NotEnoughChests(LunzangError):
    code = "not_enough_chests"
    status = 409


def holder_key(registration: Registration) -> str:
    return f"u:{registration.user_id}" if registration.user_id is not None else f"n:{registration.player_key}"


def lock_balance(session: Session, store_key: str, player_key: str) -> ChestBalance | None:
    query = select(ChestBalance).where(BALANCE.store_key == store_key, BALANCE.player_key == player_key)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    return session.scalars(query).first()


def change_chests(
    *,
    session: Session,
    store: str,
    player_key: str,
    player_name: str,
    user_id: int | None,
    delta: int,
    reason: str,
    now: datetime,
    event_id: int | None = None,
    redemption_id: int | None = None,
    note: str = "",
) -> ChestBalance:
    """Add (or take) chests with its ledger row; refused whole below zero."""
    assert reason in REASONS
    store_key = fold(store)
    balance = lock_balance(session, store_key, player_key)
    if balance is None:
        balance = ChestBalance(
            store_key=store_key, store=store, player_key=player_key, player_name=player_name, user_id=user_id,
            chests=0, updated_at=now,
        )  # fmt: skip
        session.add(balance)
    if balance.chests + delta < 0:
        raise NotEnoughChests(
            Message(
                f"白银宝箱不够：现有 {balance.chests} 张，需要 {-delta} 张",
                f"not enough silver chests: {balance.chests} held, {-delta} needed",
            )
        )
    balance.chests += delta
    balance.updated_at = now
    session.add(
        ChestLedger(
            store_key=store_key, player_key=player_key, delta=delta, reason=reason, event_id=event_id,
            redemption_id=redemption_id, note=note[:200], at=now,
        )
    )  # fmt: skip
    session.flush()
    return balance


@dataclass(frozen=True)
class Placing:
    place: int
    registration: Registration
    chests: int
    points: int


def placings(*, session: Session, event: Event) -> list[Placing]:
    """Final places (the Swiss standings, the top cut's bracket first) with the chests each earns."""
    prizes = prize_table(session=session, event=event)
    table = standings(session=session, event=event)
    points = {row.record.entrant.id: row.record.points for row in table.rows}
    order = final_order(session=session, event=event, swiss_order=[row.record.entrant.id for row in table.rows])
    regs = {r.id: r for r in session.scalars(select(Registration).where(REG.event_id == event.id))}
    return [
        Placing(place, regs[pid], prizes.get(place, prizes.get(0, 0)), points[pid])
        for place, pid in enumerate(order, start=1)
    ]


FLAGGED_CHOICES = ("award", "withhold")


def flagged_winners(given: list[Placing]) -> list[Placing]:
    """Placings that would get chests although the player's list is illegal or missing."""
    return [p for p in given if p.chests and list_problem(p.registration)]


def award_chests(*, session: Session, event: Event, now: datetime, flagged: str | None = None) -> list[Placing]:
    """Give every placed player their chests once, at the event's store.

    Chests for a player whose list is illegal or missing need an explicit choice,
    ``flagged`` "award" or "withhold" (then those players get none); without one it is refused.
    """
    if event.state != "finished":
        raise EventError(Message("赛事结束后才能发放宝箱", "award chests after the event is finished"))
    if event.chests_awarded:
        raise EventError(Message("这场赛事的宝箱已经发放过了", "this event's chests were awarded already"))
    if not event.store:
        raise EventError(Message("请先填写赛事的店铺：宝箱记在店铺名下", "set the event's store first"))
    given = placings(session=session, event=event)
    check_prizes(session=session, store_key=event.store_key, prizes={p.place: p.chests for p in given})
    flagged_ids = {p.registration.id for p in flagged_winners(given)}
    if flagged_ids and flagged not in FLAGGED_CHOICES:
        names = "、".join(p.registration.player_name for p in given if p.registration.id in flagged_ids)
        raise EventError(
            Message(
                f"{len(flagged_ids)} 名获奖选手的卡组不合法或缺失（{names}）：请选择照发还是不发他们的宝箱",
                f"{len(flagged_ids)} prize winner(s) have an illegal or missing list: choose to award or withhold",
            )
        )
    withheld = flagged_ids if flagged == "withhold" else set()
    for placing in given:
        if placing.chests and placing.registration.id not in withheld:
            reg = placing.registration
            change_chests(
                session=session, store=event.store, player_key=holder_key(reg), player_name=reg.player_name,
                user_id=reg.user_id, delta=placing.chests, reason="prize", now=now, event_id=event.id,
                note=f"{event.name} 第 {placing.place} 名",
            )  # fmt: skip
    event.chests_awarded = True
    session.flush()
    return given


def balances(*, session: Session, store: str | None = None, user_id: int | None = None) -> list[ChestBalance]:
    query = select(ChestBalance)
    if store is not None:
        query = query.where(BALANCE.store_key == fold(store))
    if user_id is not None:
        query = query.where(BALANCE.user_id == user_id)
    return list(session.scalars(query.order_by(BALANCE.store_key, BALANCE.player_name)))


def history(*, session: Session, store_key: str, player_key: str) -> list[ChestLedger]:
    return list(
        session.scalars(
            select(ChestLedger)
            .where(CHEST_LEDGER.store_key == store_key, CHEST_LEDGER.player_key == player_key)
            .order_by(CHEST_LEDGER.id.desc())
        )
    )


# ---------------------------------------------------------------------------- exchange list


def set_exchange_item(
    *,
    session: Session,
    store: str,
    name: str,
    price: int,
    valid_from: date,
    now: datetime,
    valid_until: date | None = None,
    item_id: int | None = None,
) -> ExchangeItem:
    """Add an item to a store's exchange list, or change one (price, dates)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise EventError(Message("请填写兑换物品名称（最多 100 字）", "name the item (at most 100 characters)"))
    if not 1 <= price <= 10_000:
        raise EventError(Message("价格应在 1 到 10000 张宝箱之间", "the price is 1 to 10,000 chests"))
    if valid_until is not None and valid_until < valid_from:
        raise EventError(Message("结束日期早于开始日期", "the end date is before the start date"))
    store_key = fold(store)
    if not store_key:
        raise EventError(Message("请填写店铺", "name the store"))
    item = session.get(ExchangeItem, item_id) if item_id is not None else None
    if item_id is not None and (item is None or item.store_key != store_key):
        raise EventNotFound(Message("这家店没有这个兑换物品", "no such item at this store"))
    if item is None:
        item = ExchangeItem(store_key=store_key, name=name, price=price, valid_from=valid_from, updated_at=now)
    item.name, item.price, item.valid_from, item.valid_until, item.updated_at = (
        name,
        price,
        valid_from,
        valid_until,
        now,
    )
    session.add(item)
    session.flush()
    return item


def exchange_list(*, session: Session, store: str, on: date | None = None) -> list[ExchangeItem]:
    """A store's items; with ``on``, only those offered that day."""
    items = session.scalars(select(ExchangeItem).where(ITEM.store_key == fold(store)).order_by(ITEM.price, ITEM.id))
    return [i for i in items if on is None or (i.valid_from <= on and (i.valid_until is None or on <= i.valid_until))]


def redeem(
    *,
    session: Session,
    store: str,
    player_key: str,
    item_id: int,
    quantity: int,
    today: date,
    now: datetime,
    by_user_id: int | None = None,
) -> Redemption:
    """Exchange chests for an item offered today: the chests leave with a ledger row."""
    if not 1 <= quantity <= 100:
        raise EventError(Message("数量应在 1 到 100 之间", "the quantity is 1 to 100"))
    store_key = fold(store)
    item = session.get(ExchangeItem, item_id)
    if item is None or item.store_key != store_key:
        raise EventNotFound(Message("这家店没有这个兑换物品", "no such item at this store"))
    if not (item.valid_from <= today and (item.valid_until is None or today <= item.valid_until)):
        raise EventError(Message(f"「{item.name}」今天不在兑换列表上", f"'{item.name}' is not offered today"))
    balance = lock_balance(session, store_key, player_key)
    if balance is None:
        raise NotEnoughChests(Message("这位选手在这家店还没有白银宝箱", "this player holds no chests at this store"))
    cost = item.price * quantity
    redemption = Redemption(
        store_key=store_key, player_key=player_key, item_id=item_id, quantity=quantity, chests=cost,
        by_user_id=by_user_id, at=now,
    )  # fmt: skip
    session.add(redemption)
    session.flush()
    change_chests(
        session=session, store=balance.store, player_key=player_key, player_name=balance.player_name,
        user_id=balance.user_id, delta=-cost, reason="redeem", now=now, redemption_id=redemption.id,
        note=f"{item.name} × {quantity}",
    )  # fmt: skip
    return redemption


def check_chests(session: Session) -> list[str]:
    """Discrepancies between the chest ledger and the balances (empty when all is well)."""
    sums = {
        (s, p): int(total or 0)
        for s, p, total in session.execute(
            select(CHEST_LEDGER.store_key, CHEST_LEDGER.player_key, func.sum(CHEST_LEDGER.delta)).group_by(
                CHEST_LEDGER.store_key, CHEST_LEDGER.player_key
            )
        )
    }
    problems = []
    for balance in session.scalars(select(ChestBalance)):
        expected = sums.pop((balance.store_key, balance.player_key), 0)
        if balance.chests != expected or balance.chests < 0:
            problems.append(f"chests {balance.store_key}/{balance.player_key}: {balance.chests}, ledger {expected}")
    problems += [f"no balance {k}, ledger sums to {v}" for k, v in sums.items() if v]
    return problems

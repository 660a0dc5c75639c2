"""Nothing irreversible on one tap, and editing an event (§4).

Every consequential action (lock, drop, disqualify, finish, pairing with flagged lists, ending
early, reopening) first shows what it will do — :func:`consequences` — and the caller asks for a
confirmation; every one of them, and every undo, goes into the event's audit log (who, when).

Undo where the world allows it:

- :func:`undrop` until the round after the drop is paired (after that the player has missed
  a round the pairings cannot give back);
- :func:`unlock` (reopen registration) until round 1 is paired;
- :func:`reopen` a finished event: its chest awards are reversed through the ledger (an
  ``adjust`` row per holder, linked to the event), refused with the names when a player has
  already spent those chests.

An event is edited (name, date, store, format, rounds, round length, top cut, third place,
deck policy, deadline; the prize table separately) until round 1 is paired; while it runs, a
round can be added or the event ended after the current round.
"""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from catalog.decks.check import load_format
from catalog.errors import Message
from catalog.events.prizes import change_chests, flagged_winners, lock_balance, placings
from catalog.events.registration import (
    EventError,
    apply_snapshot,
    check_deck_policy,
    checked_text,
    last_round,
    list_problems,
    planned_rounds,
    registrations,
    snapshot,
)
from catalog.models import ChestLedger, Event, EventAudit, Registration
from catalog.models.event_columns import CHEST_LEDGER, ROUND
from catalog.text import fold

ACTIONS = (
    "close",
    "unlock",
    "drop",
    "undrop",
    "disqualify",
    "pair",
    "finish",
    "reopen",
    "end_early",
    "add_round",
    "edit",
)


def record(*, session: Session, event: Event, by_user_id: int | None, action: str, detail: str, now: datetime) -> None:
    """One line of the event's audit log."""
    session.add(
        EventAudit(event_id=event.id, by_user_id=by_user_id, action=action[:32], detail=detail[:300], at=now)  # type: ignore[arg-type]  # a stored event was flushed: its id is set
    )
    session.flush()


def audit_log(*, session: Session, event: Event) -> list[EventAudit]:
    query = select(EventAudit).where(EventAudit.event_id == event.id).order_by(EventAudit.id.desc())  # type: ignore[arg-type,union-attr]  # SQLModel column attributes
    return list(session.scalars(query))


def swiss_rounds_played(session: Session, event: Event) -> int:
    return int(session.scalar(select(func.count()).where(ROUND.event_id == event.id, ROUND.kind == "swiss")) or 0)


def _lists_line(players: list[Registration]) -> Message | None:
    illegal, missing = list_problems(players)
    if not illegal and not missing:
        return None
    return Message(
        f"{len(illegal)} 份卡组不合法，{len(missing)} 名选手没有卡组",
        f"{len(illegal)} illegal list(s), {len(missing)} missing",
    )


def consequences(
    *, session: Session, event: Event, action: str, registration: Registration | None = None
) -> list[Message]:
    """What ``action`` will do, in lines a person reads before confirming."""
    players = [r for r in registrations(session=session, event=event) if not r.disqualified]
    last = last_round(session=session, event=event)
    planned = planned_rounds(session=session, event=event)
    lines: list[Message] = []
    if action == "close":
        lines.append(Message(f"{len(players)} 名选手的卡组将被锁定", f"the lists of {len(players)} players lock"))
        flagged = _lists_line(players)
        if flagged:
            lines.append(flagged)
        lines.append(
            Message("第 1 轮配对前可以撤销（重新开放报名）", "undo: reopen registration until round 1 is paired")
        )
    elif action == "pair":
        if last == 0:
            lines.append(
                Message("配对第 1 轮会截止报名并锁定卡组", "pairing round 1 closes registration and locks lists")
            )
        active = [r for r in players if r.dropped_from is None or r.dropped_from > last + 1]
        flagged = _lists_line(active)
        if flagged:
            lines.append(flagged)
            if event.deck_policy == "required":
                lines.append(
                    Message("本赛事要求合法卡组：配对会被拒绝", "this event requires legal lists: pairing is refused")
                )
            else:
                lines.append(Message("他们照常配对，卡组会被标记", "they are paired, their lists flagged"))
    elif action in ("drop", "disqualify") and registration is not None:
        name = registration.player_name
        if action == "drop":
            lines.append(
                Message(
                    f"{name} 从第 {last + 1} 轮起不再配对，已有成绩保留",
                    f"{name} is not paired from round {last + 1}; results so far stay",
                )
            )
            lines.append(Message(f"第 {last + 1} 轮配对前可以撤销", f"undo until round {last + 1} is paired"))
        else:
            lines.append(
                Message(
                    f"{name} 离开排名和奖励，对手的成绩保留；不能撤销",
                    f"{name} leaves the standings and prizes (opponents keep their results); no undo",
                )
            )
    elif action in ("finish", "end_early"):
        played = swiss_rounds_played(session, event)
        if played < planned:
            lines.append(
                Message(
                    f"计划的 {planned} 轮中有 {planned - played} 轮没有打",
                    f"{planned - played} of {planned} planned rounds unplayed",
                )
            )
        if action == "finish":
            lines.extend(_finish_lines(session, event))
    elif action == "reopen":
        net = _awarded(session, event)
        if net:
            lines.append(
                Message(
                    f"撤回 {len(net)} 名选手的 {sum(net.values())} 个白银宝箱（记入账本）",
                    f"{sum(net.values())} chests of {len(net)} players are taken back (in the ledger)",
                )
            )
        lines.append(
            Message("赛事回到进行中，可以更正结果后再结束", "the event runs again: correct results, then finish")
        )
    return lines


def _finish_lines(session: Session, event: Event) -> list[Message]:
    lines: list[Message] = []
    if not event.store:
        return [Message("赛事没有店铺：不发放白银宝箱", "the event has no store: no chests")]
    try:
        given = placings(session=session, event=event)
    except EventError:
        return lines
    winners = [p for p in given if p.chests]
    lines.append(
        Message(
            f"{len(winners)} 名选手获得白银宝箱，共 {sum(p.chests for p in winners)} 个（{event.store}）",
            f"{len(winners)} players get chests, {sum(p.chests for p in winners)} in all ({event.store})",
        )
    )
    flagged = flagged_winners(given)
    if flagged:
        illegal = sum(1 for p in flagged if p.registration.legal is False)
        lines.append(
            Message(
                f"其中 {illegal} 份卡组不合法、{len(flagged) - illegal} 名没有卡组：请选择照发或不发",
                f"{illegal} of them with an illegal list, {len(flagged) - illegal} with none: award or withhold",
            )
        )
    lines.append(
        Message(
            "结束后可以重新开放（宝箱通过账本撤回，已花掉则不能）",
            "undo: reopen (the chests are taken back through the ledger, unless spent)",
        )
    )
    return lines


def undrop(*, session: Session, event: Event, registration: Registration) -> Registration:
    """Take a drop back while the round it starts from is not paired yet."""
    if registration.dropped_from is None or registration.disqualified:
        raise EventError(Message(f"{registration.player_name} 没有退赛", f"{registration.player_name} has not dropped"))
    if event.state == "finished" or registration.dropped_from <= last_round(session=session, event=event):
        raise EventError(
            Message(
                f"第 {registration.dropped_from} 轮已经配对，退赛不能再撤销",
                f"round {registration.dropped_from} is paired: the drop stands",
            )
        )
    registration.dropped_from = None
    session.flush()
    return registration


def unlock(*, session: Session, event: Event) -> Event:
    """Reopen registration (the lists unlock) until round 1 is paired."""
    if event.state != "closed" or last_round(session=session, event=event):
        raise EventError(Message("第 1 轮已经配对，不能重新开放报名", "round 1 is paired: registration stays closed"))
    event.state = "open"
    session.flush()
    return event


def _awarded(session: Session, event: Event) -> dict[tuple[str, str], int]:
    """Chests this event put into each holder's balance and has not taken back."""
    rows = session.execute(
        select(CHEST_LEDGER.store_key, CHEST_LEDGER.player_key, func.sum(CHEST_LEDGER.delta))
        .where(CHEST_LEDGER.event_id == event.id, CHEST_LEDGER.reason.in_(("prize", "adjust")))
        .group_by(CHEST_LEDGER.store_key, CHEST_LEDGER.player_key)
    )
    return {(store, player): int(total) for store, player, total in rows if total}


def reopen(*, session: Session, event: Event, now: datetime) -> Event:
    """A finished event runs again; its chests are taken back through the ledger (all or none)."""
    if event.state != "finished":
        raise EventError(Message("赛事还没有结束", "the event is not finished"))
    net = _awarded(session, event)
    balances: dict[tuple[str, str], Any] = {}
    short = []
    for (store_key, player_key), chests in sorted(net.items()):
        balance = lock_balance(session, store_key, player_key)
        if balance is None or balance.chests < chests:
            short.append(balance.player_name if balance else player_key)
        balances[(store_key, player_key)] = balance
    if short:
        raise EventError(
            Message(
                f"不能重新开放：{'、'.join(short)} 已经花掉了这场赛事的白银宝箱",
                f"cannot reopen: {', '.join(short)} already spent this event's chests",
            )
        )
    for key, chests in net.items():
        balance = balances[key]
        change_chests(
            session=session,
            store=balance.store,
            player_key=balance.player_key,
            player_name=balance.player_name,
            user_id=balance.user_id,
            delta=-chests,
            reason="adjust",
            now=now,
            event_id=event.id,
            note=f"重新开放赛事「{event.name}」：撤回奖励",
        )
    event.state = "running"
    event.chests_awarded = False
    session.flush()
    return event


def add_round(*, session: Session, event: Event) -> Event:
    """One Swiss round more (while the event runs, up to 20)."""
    if event.state == "finished":
        raise EventError(Message("赛事已经结束", "the event is over"))
    planned = planned_rounds(session=session, event=event)
    if planned >= 20:
        raise EventError(Message("最多 20 轮", "at most 20 rounds"))
    event.rounds = planned + 1
    session.flush()
    return event


def end_early(*, session: Session, event: Event) -> Event:
    """No more Swiss rounds after the ones paired (the event can then be finished)."""
    played = swiss_rounds_played(session, event)
    if event.state == "finished" or not played:
        raise EventError(Message("只有进行中的赛事可以提前结束", "only a running event can end early"))
    event.rounds = played
    session.flush()
    return event


EDITABLE = (
    "name",
    "date",
    "store",
    "format_code",
    "rounds",
    "round_minutes",
    "top_cut",
    "third_place",
    "deck_policy",
    "deadline",
    "city",
    "entry_fee",
)


def edit_event(*, session: Session, event: Event, changes: dict[str, Any], now: datetime) -> list[str]:
    """Change an event's settings before round 1 is paired; the names of the fields changed.

    A new format judges every list again. The caller checks the new store's staff.
    """
    if last_round(session=session, event=event) or event.state in ("running", "finished"):
        raise EventError(
            Message("赛事已经开始：只能加一轮或提前结束", "the event has started: add a round or end it early only")
        )
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise EventError(
            Message(f"不能修改：{', '.join(sorted(unknown))}", f"not editable: {', '.join(sorted(unknown))}")
        )
    values = dict(changes)
    if "name" in values:
        values["name"] = checked_text(values["name"], 100, "赛事名称", "the event name")
    if "city" in values:
        values["city"] = checked_text(values["city"], 50, "城市", "the city", required=False)
    if "entry_fee" in values:
        values["entry_fee"] = checked_text(values["entry_fee"], 100, "报名费说明", "the entry fee note", required=False)
    if "date" in values and not isinstance(values["date"], Date):
        raise EventError(Message("日期应为 YYYY-MM-DD", "the date must be YYYY-MM-DD"))
    if values.get("rounds") is not None and not 1 <= values["rounds"] <= 20:
        raise EventError(Message("轮数应在 1 到 20 之间", "rounds must be 1 to 20"))
    if "top_cut" in values and values["top_cut"] not in (0, 4, 8):
        raise EventError(Message("决赛圈只能是 0、4 或 8 人", "the top cut is 0, 4 or 8"))
    if "third_place" in values and values["third_place"] not in ("swiss", "playoff"):
        raise EventError(Message("季军决定方式应为 swiss 或 playoff", "third place is 'swiss' or 'playoff'"))
    if "round_minutes" in values and not 10 <= values["round_minutes"] <= 180:
        raise EventError(Message("每轮时长应在 10 到 180 分钟之间", "a round lasts 10 to 180 minutes"))
    if "deck_policy" in values:
        check_deck_policy(values["deck_policy"])
    if "store" in values:
        values["store"] = checked_text(values["store"], 100, "店铺名称", "the store", required=False)
        values["store_key"] = fold(values["store"])
    if "format_code" in values:
        values["format_code"] = load_format(session, event.game, values["format_code"] or None).code
    changed = [k for k, v in values.items() if getattr(event, k) != v and k != "store_key"]
    for key, value in values.items():
        setattr(event, key, value)
    if "format_code" in changed:  # every list is judged again in the new format
        for registration in registrations(session=session, event=event):
            if registration.deck_text:
                apply_snapshot(registration, snapshot(session=session, event=event, text=registration.deck_text), now)
    session.flush()
    return changed


def ledger_of_event(*, session: Session, event: Event) -> list[ChestLedger]:
    return list(session.scalars(select(ChestLedger).where(CHEST_LEDGER.event_id == event.id).order_by(CHEST_LEDGER.id)))

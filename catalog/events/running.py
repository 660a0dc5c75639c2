"""Running an event: pair the next round (or take it from a file), swap by hand (recorded),
report results per table (by the organiser, or by a player and confirmed), correct them, and
compute standings after any round. Standings are always computed from the stored results, so
a correction of round 1 changes every standing after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.errors import Message
from catalog.events.pairing import PAIRING_SYSTEMS, Candidate, Pairing, PairingRequest
from catalog.events.playoff import pair_playoff, playoff_complete
from catalog.events.registration import (
    EventError,
    EventNotFound,
    find_player,
    last_round,
    list_problems,
    planned_rounds,
    registrations,
)
from catalog.events.results import (  # noqa: F401  (re-exported: the callers' one place for the running event)
    EventStandings,
    entrant,
    matches,
    open_tables,
    playoff_rounds,
    results_of,
    standings,
    store_round,
)
from catalog.events.standings import rank
from catalog.models import Event, Match, PairingChange, Registration, ResultReport, Round
from catalog.models.event_columns import MATCH, REPORT

MAX_SEED = 2**63 - 1
MAX_GAMES = 5


def _check_can_pair(session: Session, event: Event) -> int:
    if event.state == "open":
        event.state = "closed"  # pairing round 1 closes registration: the lists are locked from now on
    if event.state == "finished":
        raise EventError(Message("赛事已经结束", "the event is over"))
    last = last_round(session=session, event=event)
    if last and open_tables(session, event, last):
        raise EventError(Message(f"第 {last} 轮还有桌没有录入结果", f"round {last} still has tables without a result"))
    number = last + 1
    if number > planned_rounds(session=session, event=event):
        raise EventError(Message("瑞士轮已经全部打完", "every Swiss round has been played"))
    if number == 1 and event.rounds is None:
        # Fixed once round 1 is paired: late entries must not change the number of rounds.
        event.rounds = planned_rounds(session=session, event=event)
    return number


def _deck_gate(event: Event, players: list[Registration]) -> None:
    """under the "required" policy only players with a legal list are paired."""
    if event.deck_policy != "required":
        return
    illegal, missing = list_problems(players)
    if illegal or missing:
        names = "、".join(r.player_name for r in illegal + missing)
        names_en = ", ".join(r.player_name for r in illegal + missing)
        raise EventError(
            Message(
                f"{len(illegal)} 份卡组不合法、{len(missing)} 名选手没有卡组（{names}）：本赛事要求合法卡组才能配对。"
                "请更正卡组、让他们退赛，或在第 1 轮前把卡组政策改为“照常比赛并标记”",
                f"{len(illegal)} illegal list(s), {len(missing)} missing ({names_en}):"
                " this event pairs only legal lists. Fix the lists, drop those players, or (before round 1) set the"
                " policy to 'play with a flag'",
            )
        )


def active_players(session: Session, event: Event, round_number: int) -> list[Registration]:
    """Who plays round ``round_number``: not dropped before it, not disqualified, already entered."""
    return [
        r
        for r in registrations(session=session, event=event)
        if not r.disqualified
        and (r.dropped_from is None or r.dropped_from > round_number)
        and r.first_round <= round_number
    ]


def _candidates(session: Session, event: Event, players: list[Registration], round_number: int) -> list[Candidate]:
    found = matches(session=session, event=event)
    opponents: dict[int, set[int]] = {}
    byes: set[int] = set()
    for m in found:
        if m.player_b_id is None:
            byes.add(m.player_a_id)
        else:
            opponents.setdefault(m.player_a_id, set()).add(m.player_b_id)
            opponents.setdefault(m.player_b_id, set()).add(m.player_a_id)
    regs = registrations(session=session, event=event)
    table = rank([entrant(r) for r in regs], results_of(found), up_to=round_number - 1, tiebreakers=event.tiebreakers)
    by_id = {s.record.entrant.id: s for s in table}
    out = []
    for r in players:
        assert r.id is not None
        standing = by_id[r.id]
        out.append(
            Candidate(r.id, standing.record.points, standing.rank, frozenset(opponents.get(r.id, ())), r.id in byes)
        )
    return out


def pair_next_round(*, session: Session, event: Event, seed: int, now: datetime) -> tuple[Round, list[Match]]:
    """Pair the next round with the event's pairing system and the given (shown) seed."""
    if not 0 <= seed <= MAX_SEED:
        raise EventError(Message("种子应在 0 到 2⁶³−1 之间", "the seed is 0 … 2^63−1"))
    if event.top_cut and last_round(session=session, event=event) >= planned_rounds(session=session, event=event):
        return pair_playoff(session=session, event=event, now=now)  # after the Swiss rounds: the top cut
    number = _check_can_pair(session, event)
    players = active_players(session, event, number)
    _deck_gate(event, players)
    if len(players) < 2:
        raise EventError(Message("至少需要两名选手才能配对", "pairing needs at least two players"))
    system = PAIRING_SYSTEMS[event.pairing_system]
    pairings = system(PairingRequest(number, seed, _candidates(session, event, players, number)))
    row = store_round(session, event, number, pairings, seed=seed, source="auto", now=now)
    return row, matches(session=session, event=event, round_number=number)


def import_pairings(
    *, session: Session, event: Event, rows: Sequence[tuple[int, str, str]], now: datetime
) -> tuple[Round, list[Match]]:
    """Take the next round from a file: ``table,player_a,player_b`` (empty player_b = bye).

    Every player of the round must appear exactly once and nobody else; table numbers unique.
    """
    number = _check_can_pair(session, event)
    _deck_gate(event, active_players(session, event, number))
    players = {r.id: r for r in active_players(session, event, number)}
    problems: list[str] = []
    problems_en: list[str] = []
    seen: set[int] = set()
    tables: set[int] = set()
    pairings: list[Pairing] = []
    for line, (table, name_a, name_b) in enumerate(rows, start=2):
        ids: list[int | None] = []
        for name in (name_a, name_b):
            if not name.strip():
                ids.append(None)
                continue
            try:
                reg = find_player(session=session, event=event, name=name)
            except EventNotFound:
                problems.append(f"第 {line} 行：没有选手「{name}」")
                problems_en.append(f"line {line}: no player '{name}'")
                ids.append(None)
                continue
            if reg.id not in players:
                problems.append(f"第 {line} 行：{reg.player_name} 本轮不参赛（已退赛、被取消资格或尚未入场）")
                problems_en.append(f"line {line}: {reg.player_name} does not play this round")
            elif reg.id in seen:
                problems.append(f"第 {line} 行：{reg.player_name} 出现了两次")
                problems_en.append(f"line {line}: {reg.player_name} appears twice")
            seen.add(reg.id)  # type: ignore[arg-type]  # stored rows were flushed, so their ids are set
            ids.append(reg.id)
        if table in tables or table < 1:
            problems.append(f"第 {line} 行：桌号 {table} 无效或重复")
            problems_en.append(f"line {line}: table {table} is invalid or repeated")
        tables.add(table)
        if ids[0] is not None:
            pairings.append(Pairing(table, ids[0], ids[1]))
        elif name_a.strip() == "" and not problems:
            problems.append(f"第 {line} 行：缺少选手 A")
            problems_en.append(f"line {line}: player_a is missing")
    missing = [players[i].player_name for i in players if i not in seen]
    if missing:
        problems.append(f"这些选手本轮没有配对：{'、'.join(missing)}")
        problems_en.append(f"not paired: {', '.join(missing)}")
    if problems:
        raise EventError(Message("；".join(problems[:20]), "; ".join(problems_en[:20])))
    row = store_round(session, event, number, pairings, seed=None, source="file", now=now)
    return row, matches(session=session, event=event, round_number=number)


def swap_players(
    *, session: Session, event: Event, first: Registration, second: Registration, by_user_id: int | None, now: datetime
) -> PairingChange:
    """Swap two players between their tables of the current round (before any result), recorded."""
    number = last_round(session=session, event=event)
    current = matches(session=session, event=event, round_number=number)
    seat_of: dict[int, tuple[Match, str]] = {}
    for m in current:
        seat_of[m.player_a_id] = (m, "a")
        if m.player_b_id is not None:
            seat_of[m.player_b_id] = (m, "b")
    if first.id not in seat_of or second.id not in seat_of or first.id == second.id:
        raise EventError(Message("两位选手都必须在本轮的配对里", "both players must be in this round's pairings"))
    (m1, s1), (m2, s2) = seat_of[first.id], seat_of[second.id]
    if m1.reported or m2.reported:
        raise EventError(Message("已有结果的桌不能再换人", "a table with a result cannot be changed"))
    if m1.id == m2.id:
        raise EventError(Message("两位选手本来就在同一桌", "the two players already share a table"))
    setattr(m1, f"player_{s1}_id", second.id)
    setattr(m2, f"player_{s2}_id", first.id)
    m1.updated_at = m2.updated_at = now
    change = PairingChange(
        event_id=event.id,  # type: ignore[arg-type]  # stored rows were flushed, so their ids are set
        round_number=number,
        by_user_id=by_user_id,
        description=f"第 {number} 轮：{first.player_name}（第 {m1.table_number} 桌）与 {second.player_name}"
        f"（第 {m2.table_number} 桌）互换",
        at=now,
    )
    session.add(change)
    session.flush()
    return change


def _valid_result(wins_a: int, wins_b: int, draws: int) -> None:
    if min(wins_a, wins_b, draws) < 0 or wins_a + wins_b + draws > MAX_GAMES or wins_a + wins_b + draws == 0:
        raise EventError(
            Message(
                f"结果不合理：每桌 1 到 {MAX_GAMES} 局，胜局与平局都不能为负",
                f"impossible result: 1 to {MAX_GAMES} games per table, none negative",
            )
        )


def get_match(*, session: Session, event: Event, round_number: int, table: int) -> Match:
    found = session.scalars(
        select(Match).where(MATCH.event_id == event.id, MATCH.round_number == round_number, MATCH.table_number == table)
    ).first()
    if found is None:
        raise EventNotFound(
            Message(f"第 {round_number} 轮没有第 {table} 桌", f"round {round_number} has no table {table}")
        )
    return found


def record_result(
    *, session: Session, event: Event, match: Match, wins_a: int, wins_b: int, draws: int, now: datetime
) -> Match:
    """The organiser enters (or corrects) a table's result. Standings follow from the results."""
    if event.state == "finished" and event.chests_awarded:
        raise EventError(Message("宝箱已经发放，结果不能再改", "the chests were awarded; results are final"))
    if match.player_b_id is None:
        raise EventError(Message("轮空桌的结果固定为 2-0", "a bye is always 2–0"))
    _valid_result(wins_a, wins_b, draws)
    round_row = session.get(Round, match.round_id)
    if round_row is not None and round_row.kind != "swiss" and wins_a == wins_b:
        raise EventError(Message("决赛圈的比赛必须分出胜负", "a top-cut match needs a winner"))
    match.wins_a, match.wins_b, match.draws, match.reported, match.updated_at = wins_a, wins_b, draws, True, now
    for report in session.scalars(select(ResultReport).where(REPORT.match_id == match.id, REPORT.status == "pending")):
        same = (report.wins_a, report.wins_b, report.draws) == (wins_a, wins_b, draws)
        report.status = "confirmed" if same else "rejected"
    session.flush()
    return match


def report_as_player(
    *, session: Session, event: Event, match: Match, user_id: int, wins_a: int, wins_b: int, draws: int, now: datetime
) -> ResultReport:
    """A player at the table reports its result; it counts once the organiser confirms it."""
    if match.player_b_id is None:
        raise EventError(Message("轮空桌不需要报告结果", "a bye needs no report"))
    players = {
        r.user_id
        for r in (session.get(Registration, match.player_a_id), session.get(Registration, match.player_b_id))
        if r
    }
    if user_id not in players:
        raise EventError(Message("只能报告自己那一桌的结果", "you can only report your own table"))
    if match.reported:
        raise EventError(
            Message("这一桌已经有结果了；有误请找主办者更正", "this table has a result; ask the organiser")
        )
    _valid_result(wins_a, wins_b, draws)
    # one pending report per player per table: a new one replaces the old
    for old in session.scalars(
        select(ResultReport).where(
            REPORT.match_id == match.id, REPORT.reported_by == user_id, REPORT.status == "pending"
        )
    ):
        old.status = "replaced"
    report = ResultReport(match_id=match.id, reported_by=user_id, wins_a=wins_a, wins_b=wins_b, draws=draws, at=now)  # type: ignore[arg-type]  # stored rows were flushed, so their ids are set
    session.add(report)
    session.flush()
    return report


def confirm_report(*, session: Session, event: Event, report_id: int, now: datetime) -> Match:
    report = session.get(ResultReport, report_id)
    match = session.get(Match, report.match_id) if report else None
    if report is None or match is None or match.event_id != event.id:
        raise EventNotFound(Message("没有这份结果报告", "no such report"))
    if report.status != "pending":
        raise EventError(Message("这份报告已经处理过了", "this report was handled already"))
    return record_result(
        session=session,
        event=event,
        match=match,
        wins_a=report.wins_a,
        wins_b=report.wins_b,
        draws=report.draws,
        now=now,
    )


def pending_reports(*, session: Session, event: Event) -> list[tuple[ResultReport, Match]]:
    rows = session.execute(
        select(ResultReport, Match)
        .join(Match, MATCH.id == REPORT.match_id)
        .where(MATCH.event_id == event.id, REPORT.status == "pending")
        .order_by(MATCH.round_number, MATCH.table_number)
    )
    return [(r, m) for r, m in rows]


def finish_event(*, session: Session, event: Event) -> Event:
    """Close the event after its last round is complete (then prizes can be awarded)."""
    last = last_round(session=session, event=event)
    if not last:
        raise EventError(Message("还没有打过任何一轮", "no round has been played"))
    if open_tables(session, event, last):
        raise EventError(Message(f"第 {last} 轮还有桌没有结果", f"round {last} still has open tables"))
    if event.top_cut and not playoff_complete(session=session, event=event):
        raise EventError(Message("决赛圈还没有打完", "the top cut is not finished"))
    event.state = "finished"
    session.flush()
    return event

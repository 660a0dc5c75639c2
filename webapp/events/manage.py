"""The organiser's pages: create an event, the dashboard (verdicts and problems of every list,
walk-ins, close registration, pair, results, reports to confirm, swaps, drops, DQ, the deck
check at the table, publishing lists, prizes, export), and the store's exchange list.

Only the event's organiser or an admin manages an event (anyone else gets 403); creating one
needs the ``organizer`` or ``admin`` role.
"""

from __future__ import annotations

import secrets
from datetime import date
from functools import partial
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlmodel import col, select

from catalog.decks.check import format_choices, game_formats
from catalog.errors import LunzangError, Message
from catalog.events import prizes, reads, running, safety, seasons, stores
from catalog.events import registration as reg
from catalog.events.rounds import recommended_rounds, recommended_top_cut
from catalog.events.standings import TIEBREAKERS
from catalog.games import DEFAULT_GAME, GAMES
from catalog.models import Event
from webapp import timezones
from webapp.db import get_session
from webapp.events import bp
from webapp.events.common import failed, form_int, goes_back, managed_event, qr_svg, require_organiser
from webapp.helpers import localized, utcnow
from webapp.refusal import on_refusal


def _dashboard(event_id: int) -> str:
    return url_for("events.manage", event_id=event_id)


@bp.get("/events/new")
@login_required
def new_event() -> Any:
    require_organiser()
    session = get_session()
    return render_template(
        "events/new.html",
        today=utcnow().astimezone(timezones.zone()).date(),  # the organiser's today
        seasons=reads.list_seasons(session=session),
        games=GAMES,
        default_game=DEFAULT_GAME,
        formats=format_choices(session),
        tiebreakers=TIEBREAKERS,
        my_stores=stores.stores_of(session=session, user=current_user),
    )


@bp.post("/events/new")
@login_required
def create_event() -> Any:
    require_organiser()
    form = request.form
    goes_back(url_for("events.new_event"))
    if form.get("store", "").strip():
        stores.require_staff(session=get_session(), user=current_user, store=form.get("store", "").strip())
    try:
        held_on = date.fromisoformat(form.get("date", ""))
    except ValueError as error:
        raise reg.EventError(Message("日期应为 YYYY-MM-DD", "the date must be YYYY-MM-DD")) from error
    rounds = form.get("rounds", "").strip()
    deadline_text = form.get("deadline", "").strip()
    try:
        # typed in the organiser's time zone (the label names it), stored as UTC
        deadline = timezones.from_local(deadline_text) if deadline_text else None
    except ValueError as error:
        raise reg.EventError(
            Message("截止时间应为 YYYY-MM-DD HH:MM", "the deadline must be YYYY-MM-DD HH:MM")
        ) from error
    event = reg.create_event(
        session=get_session(), name=form.get("name", ""), game=form.get("game", ""),
        format_code=form.get("format", "").strip(), date=held_on, now=utcnow(), organizer_id=current_user.id,
        store=form.get("store", ""), city=form.get("city", ""), region=form.get("region", ""),
        entry_fee=form.get("entry_fee", ""), rounds=form_int("rounds") if rounds else None,
        top_cut=form_int("top_cut", 0), third_place=form.get("third_place", "swiss"),
        season_code=form.get("season", "").strip() or None, kind=form.get("kind", "monthly"),
        round_minutes=form_int("round_minutes", 50), deadline=deadline,
        tiebreakers=form.get("tiebreakers", "mtr"), deck_policy=form.get("deck_policy", "required"),
    )  # fmt: skip
    flash(_("赛事已创建"))
    return redirect(_dashboard(event.id), code=303)  # type: ignore[arg-type]  # the event was flushed, so its id is set


TABS = ("round", "players", "decks", "settings", "log")


def _tabs() -> list[tuple[str, str]]:
    labels = {
        "round": _("轮次与结果"),
        "players": _("选手"),
        "decks": _("卡组"),
        "settings": _("设置"),
        "log": _("记录"),
    }
    return [(code, labels[code]) for code in TABS]


def _dashboard_page(event: Event, diff: Any = None, tab: str | None = None) -> Any:
    """The organiser's page: opens on the current round when there is one."""
    session = get_session()
    players = reg.registrations(session=session, event=event)
    current = reads.round_view(session=session, event=event)
    tab = tab or request.args.get("tab", "")
    if tab not in TABS:
        tab = "decks" if diff is not None else "round"  # the running event opens on its round
    active = [r for r in players if not r.disqualified]
    illegal, missing = reg.list_problems(active)
    reports = running.pending_reports(session=session, event=event)
    outcomes: dict[int, set[tuple[int, int, int]]] = {}
    for report, match in reports:
        outcomes.setdefault(match.id, set()).add((report.wins_a, report.wins_b, report.draws))  # type: ignore[arg-type]  # stored rows have ids
    audit = safety.audit_log(session=session, event=event) if tab == "log" else []
    names = {}
    if audit:
        from catalog.models import User

        ids = {a.by_user_id for a in audit if a.by_user_id}
        names = {u.id: u.username for u in session.scalars(select(User).where(col(User.id).in_(ids)))}
    last = reg.last_round(session=session, event=event)
    return render_template(
        "events/manage.html",
        event=event,
        players=players,
        current=current,
        open_left=[t for t in current.tables if t.b is not None and not t.match.reported] if current else [],
        show="open" if request.args.get("show") == "open" else "all",
        total_rounds=reads.total_rounds(session=session, event=event),
        suggested=(recommended_rounds(len(players)), recommended_top_cut(len(players))),
        reports=reports,
        conflicts={match_id for match_id, seen in outcomes.items() if len(seen) > 1},
        changes=reads.pairing_changes(session=session, event=event),
        prizes=reg.prize_table(session=session, event=event),
        diff=diff,
        seed=secrets.randbelow(2**31),
        tab=tab,
        tabs=_tabs(),
        illegal=illegal,
        missing=missing,
        audit=audit,
        names=names,
        last=last,
        started=bool(last) or event.state in ("running", "finished"),
        my_stores=stores.stores_of(session=session, user=current_user),
        formats=game_formats(session, event.game),
        qr=qr_svg(url_for("events.event_page", event_id=event.id, _external=True)),
    )


@bp.post("/seasons/new")
@login_required
def create_season() -> Any:
    """A season (organisers and admins): events join it by its code."""
    require_organiser()
    form = request.form
    goes_back(url_for("events.index"))
    season = seasons.create_season(
        session=get_session(), code=form.get("code", ""), name=form.get("name", ""), now=utcnow(),
        cut_top=form_int("cut_top", 1), qualifier_top=form_int("qualifier_top", 0),
        points_rule=form.get("points_rule", "match_points"),
    )  # fmt: skip
    flash(_("赛季已创建"))
    return redirect(url_for("events.season_page", code=season.code), code=303)


@bp.get("/events/<int:event_id>/manage")
@login_required
def manage(event_id: int) -> Any:
    return _dashboard_page(managed_event(event_id))


@bp.post("/events/<int:event_id>/manage/check")
@login_required
def deck_check(event_id: int) -> Any:
    """Deck check at the table: the list shown against the locked one (a read; changes nothing)."""
    event = managed_event(event_id)
    session = get_session()
    goes_back(_dashboard(event_id))
    player = reg.get_registration(session=session, event=event, registration_id=form_int("player"))
    diff = reg.deck_difference(session=session, event=event, registration=player, text=request.form.get("deck", ""))
    return _dashboard_page(event, (player, diff))


ACTIONS = (
    "walk_in", "close", "unlock", "pair", "result", "confirm", "swap", "drop", "undrop", "disqualify", "publish",
    "finish", "reopen", "end_early", "add_round", "prizes", "edit",
)  # fmt: skip
# these go through a page stating their consequences first (no JavaScript needed)
CONFIRMED = ("close", "pair", "drop", "disqualify", "finish", "reopen", "end_early")


def _wants_json() -> bool:
    return request.accept_mimetypes.best == "application/json"


def _confirmation(event: Event, action: str) -> Any:
    """The confirmation page: what ``action`` will do, and the same form with ``confirm=1``."""
    session = get_session()
    player = None
    if action in ("drop", "disqualify"):
        player = reg.get_registration(session=session, event=event, registration_id=form_int("player"))
    lines = safety.consequences(session=session, event=event, action=action, registration=player)
    flagged = []
    if action == "finish" and event.store:
        try:
            flagged = prizes.flagged_winners(prizes.placings(session=session, event=event))
        except LunzangError:
            flagged = []
    fields = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirm")}
    labels = {
        "close": _("截止报名并锁定卡组"), "pair": _("配对下一轮"), "drop": _("退赛"), "disqualify": _("取消资格"),
        "finish": _("结束赛事"), "reopen": _("重新开放赛事（撤回宝箱）"), "end_early": _("本轮后提前结束"),
    }  # fmt: skip
    return render_template(
        "events/confirm.html", event=event, action=action, lines=lines, fields=fields, player=player, flagged=flagged,
        labels=labels,
    )  # fmt: skip


def _audit(event: Event, action: str, detail: str) -> None:
    safety.record(session=get_session(), event=event, by_user_id=current_user.id, action=action, detail=detail,
                  now=utcnow())  # fmt: skip


def _refused_action(error: LunzangError, *, back: str) -> Any:
    """A refused dashboard action: JSON for the dashboard's scripts, else the message and back."""
    if _wants_json():
        return {"error": {"message": localized(error)}}, error.status
    return failed(error, back)


@bp.post("/events/<int:event_id>/manage/<action>")
@login_required
def manage_action(event_id: int, action: str) -> Any:
    if action not in ACTIONS:
        abort(404)
    event = managed_event(event_id)
    session = get_session()
    form = request.form
    now = utcnow()
    back = _dashboard(event_id)
    on_refusal(partial(_refused_action, back=back))
    if action in CONFIRMED and form.get("confirm") != "1":
        return _confirmation(event, action)
    if action == "walk_in":
        deck = form.get("deck", "").strip()
        reg.register_player(session=session, event=event, player_name=form.get("name", ""), now=now,
                            deck_text=deck or None)  # fmt: skip
        flash(_("已添加选手"))
        back = url_for("events.manage", event_id=event_id, tab="players")
    elif action == "close":
        reg.close_registration(session=session, event=event)
        _audit(event, action, "截止报名并锁定卡组")
        flash(_("报名已截止，卡组已锁定"))
    elif action == "unlock":
        safety.unlock(session=session, event=event)
        _audit(event, action, "重新开放报名")
        flash(_("已重新开放报名，卡组可以修改"))
    elif action == "pair":
        seed_text = form.get("seed", "").strip()
        seed = form_int("seed", high=running.MAX_SEED) if seed_text else secrets.randbelow(running.MAX_SEED)
        round_row, _tables = running.pair_next_round(session=session, event=event, seed=seed, now=now)
        _audit(event, action, f"第 {round_row.number} 轮配对（种子 {seed}）")
        flash(_("第 %(n)d 轮已配对（种子 %(seed)d）", n=round_row.number, seed=seed))
    elif action == "result":
        match = running.get_match(session=session, event=event, round_number=form_int("round"),
                                  table=form_int("table"))  # fmt: skip
        corrected = match.reported
        wins_a, wins_b, draws = _score()
        running.record_result(session=session, event=event, match=match, wins_a=wins_a, wins_b=wins_b,
                              draws=draws, now=now)  # fmt: skip
        if corrected:
            _audit(event, "correct", f"第 {match.round_number} 轮第 {match.table_number} 桌更正为 "
                                     f"{match.wins_a}-{match.wins_b}-{match.draws}")  # fmt: skip
        flash(_("第 %(t)d 桌结果已录入", t=match.table_number))
        return _after_result(event, match)
    elif action == "confirm":
        match = running.confirm_report(session=session, event=event, report_id=form_int("report"), now=now)
        flash(_("结果已确认"))
        return _after_result(event, match)
    elif action == "swap":
        first = reg.get_registration(session=session, event=event, registration_id=form_int("first"))
        second = reg.get_registration(session=session, event=event, registration_id=form_int("second"))
        running.swap_players(session=session, event=event, first=first, second=second,
                             by_user_id=current_user.id, now=now)  # fmt: skip
        flash(_("已交换配对（已记录）"))
    elif action in ("drop", "undrop", "disqualify"):
        player = reg.get_registration(session=session, event=event, registration_id=form_int("player"))
        if action == "drop":
            reg.drop_player(session=session, event=event, registration=player)
            _audit(event, action, f"{player.player_name} 从第 {player.dropped_from} 轮起退赛")
            flash(_("%(name)s 已退赛", name=player.player_name))
        elif action == "undrop":
            safety.undrop(session=session, event=event, registration=player)
            _audit(event, action, f"{player.player_name} 撤销退赛")
            flash(_("%(name)s 已撤销退赛", name=player.player_name))
        else:
            reg.disqualify(session=session, event=event, registration=player, reason=form.get("reason", ""))
            _audit(event, action, f"{player.player_name} 被取消资格：{player.dq_reason}")
            flash(_("%(name)s 已被取消资格", name=player.player_name))
        back = url_for("events.manage", event_id=event_id, tab="players")
    elif action == "publish":
        event.lists_published = form.get("published") == "1"
        flash(_("卡组列表已公开") if event.lists_published else _("卡组列表已隐藏"))
    elif action == "finish":
        running.finish_event(session=session, event=event)
        flagged = form.get("flagged") or None
        if event.store:
            prizes.award_chests(session=session, event=event, now=now, flagged=flagged)
        _audit(event, action, "结束赛事" + (f"，发放白银宝箱（卡组有问题的获奖者：{flagged}）" if flagged else ""))
        flash(_("赛事已结束，白银宝箱已发放") if event.store else _("赛事已结束"))
    elif action == "reopen":
        safety.reopen(session=session, event=event, now=now)
        _audit(event, action, "重新开放赛事，撤回白银宝箱")
        flash(_("赛事已重新开放，白银宝箱已撤回"))
    elif action == "end_early":
        safety.end_early(session=session, event=event)
        _audit(event, action, f"提前结束：共 {event.rounds} 轮")
        flash(_("瑞士轮到第 %(n)d 轮为止", n=event.rounds))
    elif action == "add_round":
        safety.add_round(session=session, event=event)
        _audit(event, action, f"增加一轮：共 {event.rounds} 轮")
        flash(_("已增加一轮：共 %(n)d 轮", n=event.rounds))
    elif action == "prizes":
        table = {0: form_int("others")}
        for place in (1, 2, 3, 4):
            raw = form.get(f"place_{place}", "").strip()
            if raw:
                table[place] = form_int(f"place_{place}")
        reg.set_prize_table(session=session, event=event, prizes=table)
        flash(_("奖励表已更新"))
        back = url_for("events.manage", event_id=event_id, tab="settings")
    elif action == "edit":
        changed = _edit(event)
        _audit(event, action, "修改：" + "、".join(changed) if changed else "没有修改")
        flash(_("赛事设置已保存"))
        back = url_for("events.manage", event_id=event_id, tab="settings")
    return redirect(back, code=303)


SCORES = {"2-0-0": (2, 0, 0), "2-1-0": (2, 1, 0), "1-2-0": (1, 2, 0), "0-2-0": (0, 2, 0), "1-1-1": (1, 1, 1)}


def _score() -> tuple[int, int, int]:
    """A result button's ``score`` (the common results), else the exact entry's three numbers."""
    score = request.form.get("score")
    if score is not None:
        if score not in SCORES:
            raise reg.EventError(Message("未知的比分按钮", "unknown result button"))
        return SCORES[score]
    return form_int("wins_a"), form_int("wins_b"), form_int("draws", 0)


def _after_result(event: Event, match: Any) -> Any:
    """After a result: the round view at the next unreported table (JSON for the page's script)."""
    session = get_session()
    open_left = running.open_tables(session, event, match.round_number)
    following = sorted(t.table_number for t in open_left)
    after = [n for n in following if n > match.table_number] or following
    if _wants_json():
        return {"table": match.table_number, "result": f"{match.wins_a}-{match.wins_b}-{match.draws}",
                "left": len(following), "next": after[0] if after else None}  # fmt: skip
    target = url_for("events.manage", event_id=event.id, tab="round", _anchor=f"table-{after[0]}" if after else None)
    return redirect(target, code=303)


def _edit(event: Event) -> list[str]:
    """The settings form: every field it carries; before round 1 only (safety.edit_event)."""
    form = request.form
    changes: dict[str, Any] = {}
    for key in ("name", "city", "entry_fee", "third_place", "deck_policy"):
        if key in form:
            changes[key] = form.get(key, "")
    if "format" in form:
        changes["format_code"] = form.get("format", "").strip()
    if "store" in form and form.get("store", "").strip() != event.store:
        new_store = form.get("store", "").strip()
        if new_store:
            stores.require_staff(session=get_session(), user=current_user, store=new_store)
        changes["store"] = new_store
    if "date" in form:
        try:
            changes["date"] = date.fromisoformat(form.get("date", ""))
        except ValueError as error:
            raise reg.EventError(Message("日期应为 YYYY-MM-DD", "the date must be YYYY-MM-DD")) from error
    if "rounds" in form:
        changes["rounds"] = form_int("rounds") if form.get("rounds", "").strip() else None
    for key in ("round_minutes", "top_cut"):
        if key in form:
            changes[key] = form_int(key)
    if "deadline" in form:
        text = form.get("deadline", "").strip()
        try:
            changes["deadline"] = timezones.from_local(text) if text else None
        except ValueError as error:
            raise reg.EventError(
                Message("截止时间应为 YYYY-MM-DD HH:MM", "the deadline must be YYYY-MM-DD HH:MM")
            ) from error
    return safety.edit_event(session=get_session(), event=event, changes=changes, now=utcnow())


@bp.errorhandler(403)
def forbidden(error: Any) -> Any:
    message = getattr(error, "description", "") or _("只有这场赛事的主办者或管理员可以管理它")
    return render_template("error.html", title=_("没有权限"), message=message), 403

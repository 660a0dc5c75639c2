"""The organiser's pages: create an event, the dashboard (verdicts and problems of every list,
walk-ins, close registration, pair, results, reports to confirm, swaps, drops, DQ, the deck
check at the table, publishing lists, prizes, export), and the store's exchange list.

Only the event's organiser or an admin manages an event (anyone else gets 403); creating one
needs the ``organizer`` or ``admin`` role.
"""

from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.decks.check import format_choices
from catalog.decks.lists import DecklistError
from catalog.errors import LunzangError, Message
from catalog.events import prizes, running, seasons, stores, views
from catalog.events import registration as reg
from catalog.events.export import event_csv, event_workbook, exchange_csv, exchange_workbook
from catalog.events.rounds import recommended_rounds, recommended_top_cut
from catalog.events.standings import TIEBREAKERS
from catalog.games import DEFAULT_GAME, GAMES
from catalog.models import Event
from webapp import timezones
from webapp.db import get_session
from webapp.events import bp
from webapp.events.routes import _form_int, failed, load_event
from webapp.helpers import utcnow


def page_language() -> str:
    """The CSV header language: the page's (issue 29 §8)."""
    return "en" if str(get_locale()) == "en" else "zh"


def _organiser() -> None:
    if current_user.role not in ("organizer", "admin"):
        abort(403, _("只有组织者或管理员可以创建赛事"))


def _managed(event_id: int) -> Event:
    event = load_event(event_id, lock=request.method == "POST")
    if not reg.can_manage(event, current_user):
        abort(403, _("只有这场赛事的主办者或管理员可以管理它"))
    return event


def _dashboard(event_id: int) -> str:
    return url_for("events.manage", event_id=event_id)


@bp.get("/events/new")
@login_required
def new_event() -> Any:
    _organiser()
    session = get_session()
    return render_template(
        "events/new.html",
        today=utcnow().astimezone(timezones.zone()).date(),  # the organiser's today
        seasons=views.list_seasons(session=session),
        games=GAMES,
        default_game=DEFAULT_GAME,
        formats=format_choices(session),
        tiebreakers=TIEBREAKERS,
    )


@bp.post("/events/new")
@login_required
def create_event() -> Any:
    _organiser()
    form = request.form
    try:
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
            entry_fee=form.get("entry_fee", ""), rounds=_form_int("rounds") if rounds else None,
            top_cut=_form_int("top_cut", 0), third_place=form.get("third_place", "swiss"),
            season_code=form.get("season", "").strip() or None, kind=form.get("kind", "monthly"),
            round_minutes=_form_int("round_minutes", 50), deadline=deadline,
            tiebreakers=form.get("tiebreakers", "mtr"),
        )  # fmt: skip
    except LunzangError as error:
        return failed(error, url_for("events.new_event"))
    flash(_("赛事已创建"))
    return redirect(_dashboard(event.id), code=303)  # type: ignore[arg-type]  # the event was flushed, so its id is set


def _dashboard_page(event: Event, diff: Any = None) -> Any:
    session = get_session()
    players = reg.registrations(session=session, event=event)
    return render_template(
        "events/manage.html",
        event=event,
        players=players,
        current=views.round_view(session=session, event=event),
        total_rounds=views.total_rounds(session=session, event=event),
        suggested=(recommended_rounds(len(players)), recommended_top_cut(len(players))),
        reports=running.pending_reports(session=session, event=event),
        changes=views.pairing_changes(session=session, event=event),
        prizes=reg.prize_table(session=session, event=event),
        diff=diff,
        seed=secrets.randbelow(2**31),
    )


@bp.post("/seasons/new")
@login_required
def create_season() -> Any:
    """A season (organisers and admins): events join it by its code."""
    _organiser()
    form = request.form
    try:
        season = seasons.create_season(
            session=get_session(), code=form.get("code", ""), name=form.get("name", ""), now=utcnow(),
            cut_top=_form_int("cut_top", 1), qualifier_top=_form_int("qualifier_top", 0),
            points_rule=form.get("points_rule", "match_points"),
        )  # fmt: skip
    except LunzangError as error:
        return failed(error, url_for("events.index"))
    flash(_("赛季已创建"))
    return redirect(url_for("events.season_page", code=season.code), code=303)


@bp.get("/events/<int:event_id>/manage")
@login_required
def manage(event_id: int) -> Any:
    return _dashboard_page(_managed(event_id))


@bp.post("/events/<int:event_id>/manage/check")
@login_required
def deck_check(event_id: int) -> Any:
    """Deck check at the table: the list shown against the locked one (a read; changes nothing)."""
    event = _managed(event_id)
    session = get_session()
    try:
        player = reg.get_registration(session=session, event=event, registration_id=_form_int("player"))
        diff = reg.deck_difference(session=session, event=event, registration=player, text=request.form.get("deck", ""))
    except (LunzangError, DecklistError) as error:
        return failed(error, _dashboard(event_id))
    return _dashboard_page(event, (player, diff))


ACTIONS = (
    "walk_in", "close", "pair", "result", "confirm", "swap", "drop", "disqualify", "publish", "finish", "prizes",
)  # fmt: skip


@bp.post("/events/<int:event_id>/manage/<action>")
@login_required
def manage_action(event_id: int, action: str) -> Any:
    if action not in ACTIONS:
        abort(404)
    event = _managed(event_id)
    session = get_session()
    form = request.form
    now = utcnow()
    try:
        if action == "walk_in":
            deck = form.get("deck", "").strip()
            reg.register_player(session=session, event=event, player_name=form.get("name", ""), now=now,
                                deck_text=deck or None)  # fmt: skip
            flash(_("已添加选手"))
        elif action == "close":
            reg.close_registration(session=session, event=event)
            flash(_("报名已截止，卡组已锁定"))
        elif action == "pair":
            seed_text = form.get("seed", "").strip()
            seed = _form_int("seed", digits=19) if seed_text else secrets.randbelow(running.MAX_SEED)
            round_row, _tables = running.pair_next_round(session=session, event=event, seed=seed, now=now)
            flash(_("第 %(n)d 轮已配对（种子 %(seed)d）", n=round_row.number, seed=seed))
        elif action == "result":
            match = running.get_match(session=session, event=event, round_number=_form_int("round"),
                                      table=_form_int("table"))  # fmt: skip
            running.record_result(session=session, event=event, match=match, wins_a=_form_int("wins_a"),
                                  wins_b=_form_int("wins_b"), draws=_form_int("draws", 0), now=now)  # fmt: skip
            flash(_("第 %(t)d 桌结果已录入", t=match.table_number))
        elif action == "confirm":
            running.confirm_report(session=session, event=event, report_id=_form_int("report"), now=now)
            flash(_("结果已确认"))
        elif action == "swap":
            first = reg.get_registration(session=session, event=event, registration_id=_form_int("first"))
            second = reg.get_registration(session=session, event=event, registration_id=_form_int("second"))
            running.swap_players(session=session, event=event, first=first, second=second,
                                 by_user_id=current_user.id, now=now)  # fmt: skip
            flash(_("已交换配对（已记录）"))
        elif action in ("drop", "disqualify"):
            player = reg.get_registration(session=session, event=event, registration_id=_form_int("player"))
            if action == "drop":
                reg.drop_player(session=session, event=event, registration=player)
                flash(_("%(name)s 已退赛", name=player.player_name))
            else:
                reg.disqualify(session=session, event=event, registration=player, reason=form.get("reason", ""))
                flash(_("%(name)s 已被取消资格", name=player.player_name))
        elif action == "publish":
            event.lists_published = form.get("published") == "1"
            flash(_("卡组列表已公开") if event.lists_published else _("卡组列表已隐藏"))
        elif action == "finish":
            running.finish_event(session=session, event=event)
            if event.store:
                prizes.award_chests(session=session, event=event, now=now)
            flash(_("赛事已结束，白银宝箱已发放") if event.store else _("赛事已结束"))
        elif action == "prizes":
            table = {0: _form_int("others")}
            for place in (1, 2, 3, 4):
                raw = form.get(f"place_{place}", "").strip()
                if raw:
                    table[place] = _form_int(f"place_{place}")
            reg.set_prize_table(session=session, event=event, prizes=table)
            flash(_("奖励表已更新"))
    except (LunzangError, DecklistError) as error:
        return failed(error, _dashboard(event_id))
    return redirect(_dashboard(event_id), code=303)


@bp.get("/events/<int:event_id>/export.<kind>")
@login_required
def export(event_id: int, kind: str) -> Any:
    """The score sheet (XLSX with the decks, or CSV standings): for the organiser."""
    if kind not in ("xlsx", "csv"):
        abort(404)
    event = _managed(event_id)
    session = get_session()
    if kind == "xlsx":
        data = event_workbook(session=session, event=event)
        mimetype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    else:
        csv_text = event_csv(session=session, event=event, header=page_language())
        data, mimetype = csv_text.encode("utf-8-sig"), "text/csv"
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename=event-{event.id}.{kind}"
    return response


@bp.post("/stores/<store>/exchange")
@login_required
def exchange_edit(store: str) -> Any:
    """Add or change an exchange-list item, or redeem chests for one (organisers and admins)."""
    _organiser()
    session = get_session()
    back = url_for("events.exchange", store=store[:100])
    form = request.form
    today = utcnow().date()
    try:
        stores.require_staff(session=session, user=current_user, store=store[:100])
        if form.get("action") == "redeem":
            prizes.redeem(
                session=session, store=store[:100], player_key=form.get("player", "")[:80],
                item_id=_form_int("item"), quantity=_form_int("quantity", 1), today=today, now=utcnow(),
                by_user_id=current_user.id,
            )  # fmt: skip
            flash(_("已兑换"))
        else:
            item_id = form.get("item", "").strip()
            until = form.get("valid_until", "").strip()
            try:
                valid_from = date.fromisoformat(form.get("valid_from", "") or today.isoformat())
                valid_until = date.fromisoformat(until) if until else None
            except ValueError as error:
                raise reg.EventError(Message("日期应为 YYYY-MM-DD", "dates must be YYYY-MM-DD")) from error
            prizes.set_exchange_item(
                session=session, store=store[:100], name=form.get("name", ""), price=_form_int("price"),
                valid_from=valid_from, valid_until=valid_until, now=utcnow(),
                item_id=int(item_id) if item_id.isdigit() else None,
            )  # fmt: skip
            flash(_("兑换列表已更新"))
    except LunzangError as error:
        return failed(error, back)
    return redirect(back, code=303)


@bp.get("/stores/<store>/exchange.<kind>")
@login_required
def exchange_export(store: str, kind: str) -> Any:
    """The store's dated exchange list as XLSX or CSV (its staff and admins)."""
    if kind not in ("xlsx", "csv"):
        abort(404)
    session = get_session()
    try:
        stores.require_staff(session=session, user=current_user, store=store[:100])
    except LunzangError as error:
        return failed(error, url_for("events.exchange", store=store[:100]))
    items = prizes.exchange_list(session=session, store=store[:100])
    if kind == "xlsx":
        data = exchange_workbook(store[:100], items)
        mimetype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    else:
        data, mimetype = exchange_csv(items, header=page_language()).encode("utf-8-sig"), "text/csv"
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename=exchange.{kind}"
    return response


@bp.errorhandler(403)
def forbidden(error: Any) -> Any:
    message = getattr(error, "description", "") or _("只有这场赛事的主办者或管理员可以管理它")
    return render_template("error.html", title=_("没有权限"), message=message), 403

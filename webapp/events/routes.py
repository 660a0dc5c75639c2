"""Public and player pages of events: the event page (pairings with table numbers, standings,
round clock), printable pairings and slips, standings per round, registration with a saved
deck or a pasted list, my events, my chests, seasons. Thin: parse, call catalog.events, render.

Anyone reads the public parts; a player sees their own list, everyone sees the lists only once
the organiser publishes them (or when they manage the event).
"""

from __future__ import annotations

from typing import Any

from flask import Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.collection.saved_decks import get_deck, list_decks
from catalog.decks.check import game_formats
from catalog.errors import LunzangError
from catalog.events import prizes, reads, running, seasons, stores
from catalog.events import registration as reg
from catalog.events.export import season_csv, season_workbook
from catalog.events.pairing import PAIRING_SYSTEMS
from catalog.events.standings import TIEBREAKERS
from catalog.games import GAMES
from catalog.models import Event
from catalog.text import fold
from webapp.db import get_session
from webapp.events import bp
from webapp.events.common import form_int, goes_back, load_event, qr_svg
from webapp.helpers import localized, utcnow


def N_(text: str) -> str:  # the gettext marker Babel extracts: translated where shown
    return text


STATE_NAMES = {"open": N_("报名中"), "closed": N_("报名截止"), "running": N_("进行中"), "finished": N_("已结束")}
KIND_NAMES = {"monthly": N_("月赛"), "bawang": N_("霸王赛"), "qualifier": N_("预选赛")}


def user() -> Any:
    return current_user if current_user.is_authenticated else None


def state_name(event: Event) -> str:
    return _(STATE_NAMES[event.state])


@bp.app_context_processor
def event_helpers() -> dict[str, Any]:
    return {"event_state_name": state_name, "event_kind_name": lambda kind: _(KIND_NAMES.get(kind, kind))}


def _int_arg(name: str) -> int | None:
    raw = request.args.get(name, "").strip()
    return int(raw) if raw.isdigit() and len(raw) < 6 else None


@bp.get("/events")
def index() -> Any:
    session = get_session()
    return render_template(
        "events/index.html",
        events=reads.list_events(session=session),
        seasons=reads.list_seasons(session=session),
        games=GAMES,
        can_create=bool(user() and user().role in ("organizer", "admin")),
    )


@bp.get("/events/<int:event_id>")
def event_page(event_id: int) -> Any:
    session = get_session()
    event = load_event(event_id)
    me = user()
    mine = reads.my_registration(session=session, event=event, user_id=me.id) if me else None
    current = reads.round_view(session=session, event=event)
    table = running.standings(session=session, event=event)
    final = prizes.placings(session=session, event=event) if event.state == "finished" else []
    return render_template(
        "events/event.html",
        final=final,
        my_placing=next((p for p in final if mine and p.registration.id == mine.id), None),
        version=reads.page_version(session=session, event=event),
        flags=_flags(session, event, me),
        event=event,
        game=GAMES.get(event.game),
        format_label=_format_label(session, event),
        current=current,
        standings=table,
        total_rounds=reads.total_rounds(session=session, event=event),
        mine=mine,
        my_table=next((t for t in current.tables if mine and mine.id in (t.a.id, t.b.id if t.b else None)), None)
        if current
        else None,
        saved_decks=list_decks(session=session, user_id=me.id) if me else [],
        owned_decks=_owned_decks(session, event, me),
        manages=reg.can_manage(event, me),
        locked=reg.decks_locked(event, utcnow()),
        season=reads.season_of(session=session, event=event),
        prizes=reg.prize_table(session=session, event=event),
        now=utcnow(),
        tiebreak=TIEBREAKERS[event.tiebreakers],
        pairing_names=list(PAIRING_SYSTEMS),
    )


def _flags(session: Any, event: Event, me: Any) -> dict[int, Any] | None:
    """Missing and illegal lists flagged in the standings, for the organiser."""
    if not reg.can_manage(event, me):
        return None
    return {
        r.id: r for r in reg.registrations(session=session, event=event) if r.id is not None and reg.list_problem(r)
    }


def _format_label(session: Any, event: Event) -> str:
    """The event's format as its catalogue names it (标准), not its code; the page shows it in
    the reader's language (``format_name``)."""
    try:
        names = dict(game_formats(session, event.game))
    except LunzangError:  # the game is not imported here: the code is all there is
        return event.format_code
    return names.get(event.format_code, event.format_code)


@bp.get("/events/<int:event_id>/version")
def event_version(event_id: int) -> Any:
    """What the public page shows, as a short string: its script reloads when this changes."""
    event = load_event(event_id)
    response = jsonify({"version": reads.page_version(session=get_session(), event=event)})
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/events/<int:event_id>/pairings")
def pairings(event_id: int) -> Any:
    """Printable pairings (A4): by table, or alphabetically by name for the wall."""
    event = load_event(event_id)
    number = _int_arg("round")
    current = reads.round_view(session=get_session(), event=event, number=number)
    if current is None or not current.tables:
        abort(404, _("这一轮还没有配对"))
    by = "name" if request.args.get("by") == "name" else "table"
    qr = qr_svg(url_for("events.event_page", event_id=event.id, _external=True))
    return render_template("events/pairings.html", event=event, current=current, by=by, qr=qr)


@bp.get("/events/<int:event_id>/slips")
def slips(event_id: int) -> Any:
    """Match result slips for a round (one per table, to cut out)."""
    event = load_event(event_id)
    current = reads.round_view(session=get_session(), event=event, number=_int_arg("round"))
    if current is None or not current.tables:
        abort(404, _("这一轮还没有配对"))
    return render_template("events/slips.html", event=event, current=current)


@bp.get("/events/<int:event_id>/standings")
def standings_page(event_id: int) -> Any:
    session = get_session()
    event = load_event(event_id)
    last = reg.last_round(session=session, event=event)
    number = _int_arg("round")
    if number is not None and not 0 <= number <= last:
        abort(404, _("这一轮还没有配对"))
    table = running.standings(session=session, event=event, up_to=number)
    placings = prizes.placings(session=session, event=event) if event.state == "finished" else []
    return render_template(
        "events/standings.html",
        event=event,
        standings=table,
        rounds=list(range(1, last + 1)),
        chests={p.registration.id: p.chests for p in placings},
        flags=_flags(session, event, user()),
        tiebreak=TIEBREAKERS[event.tiebreakers],
    )


@bp.get("/events/<int:event_id>/decks")
def decklists(event_id: int) -> Any:
    """Every list once published (the organiser always sees them); before that, only your own."""
    session = get_session()
    event = load_event(event_id)
    me = user()
    if event.lists_published or reg.can_manage(event, me):
        shown = reg.registrations(session=session, event=event)
    else:
        mine = reads.my_registration(session=session, event=event, user_id=me.id) if me else None
        shown = [mine] if mine else []
    return render_template("events/decks.html", event=event, shown=shown, published=event.lists_published)


@bp.post("/events/<int:event_id>/register")
@login_required
def register(event_id: int) -> Any:
    """A signed-in player enters with a saved deck or a pasted list (checked at once)."""
    session = get_session()
    event = load_event(event_id, lock=True)
    back = url_for("events.event_page", event_id=event_id)
    goes_back(back)
    owned = request.form.get("owned_deck", "").strip()
    text = "" if owned.isdigit() else _deck_text_from_form()
    entry = reg.register_player(
        session=session, event=event, player_name=current_user.username, now=utcnow(), user_id=current_user.id,
        deck_text=text or None, owned_deck_id=int(owned) if owned.isdigit() else None,
    )  # fmt: skip
    flash(_("报名成功") if entry.legal is not False else _("报名成功，但卡组不合法：请在截止前修改"))
    return redirect(back, code=303)


def _owned_decks(session: Any, event: Any, me: Any) -> list[Any]:
    """A signed-in player's own decks of the event's game that can be registered."""
    if me is None or getattr(GAMES.get(event.game), "write_deck", None) is None:
        return []
    from catalog.collection.owned_decks import my_decks

    return [v for v in my_decks(session=session, user_id=me.id, now=utcnow()) if not v.locked and not v.held]


def _deck_text_from_form() -> str:
    deck_id = request.form.get("saved_deck", "").strip()
    if deck_id.isdigit():
        return get_deck(session=get_session(), user_id=current_user.id, deck_id=int(deck_id)).text
    return request.form.get("deck", "")[: reg.MAX_DECK_TEXT + 1]


@bp.post("/events/<int:event_id>/deck")
@login_required
def change_deck(event_id: int) -> Any:
    """Change my list until the deadline (refused after: the list is locked)."""
    session = get_session()
    event = load_event(event_id, lock=True)
    back = url_for("events.event_page", event_id=event_id)
    mine = reads.my_registration(session=session, event=event, user_id=current_user.id)
    if mine is None:
        abort(404, _("你没有报名这场赛事"))
    goes_back(back)
    reg.set_deck(session=session, event=event, registration=mine, text=_deck_text_from_form(), now=utcnow())
    flash(_("卡组已更新"))
    return redirect(back, code=303)


@bp.post("/events/<int:event_id>/report")
@login_required
def report(event_id: int) -> Any:
    """A player reports their table's result; the organiser confirms it."""
    session = get_session()
    event = load_event(event_id, lock=True)
    back = url_for("events.event_page", event_id=event_id)
    goes_back(back)
    number = reg.last_round(session=session, event=event)
    match = running.get_match(session=session, event=event, round_number=number, table=form_int("table"))
    running.report_as_player(
        session=session, event=event, match=match, user_id=current_user.id, wins_a=form_int("wins_a"),
        wins_b=form_int("wins_b"), draws=form_int("draws", 0), now=utcnow(),
    )  # fmt: skip
    flash(_("结果已提交，等待主办者确认"))
    return redirect(back, code=303)


@bp.get("/events/mine")
@login_required
def mine() -> Any:
    session = get_session()
    return render_template(
        "events/mine.html",
        rows=reads.events_of_user(session=session, user_id=current_user.id),
        balances=[
            (b, prizes.history(session=session, store_key=b.store_key, player_key=b.player_key)[:50])
            for b in prizes.balances(session=session, user_id=current_user.id)
        ],
    )


@bp.get("/seasons/<code>")
def season_page(code: str) -> Any:
    session = get_session()
    try:
        board = seasons.leaderboard(session=session, season=seasons.get_season(session=session, code=code[:32]))
    except LunzangError as missing:
        abort(404, localized(missing))
    return render_template("events/season.html", board=board)


@bp.get("/seasons/<code>/export.<kind>")
def season_export(code: str, kind: str) -> Any:
    session = get_session()
    if kind not in ("xlsx", "csv"):
        abort(404)
    try:
        board = seasons.leaderboard(session=session, season=seasons.get_season(session=session, code=code[:32]))
    except LunzangError as missing:
        abort(404, localized(missing))
    if kind == "xlsx":
        data = season_workbook(board)
        mimetype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    else:
        data, mimetype = season_csv(board, "en" if str(get_locale()) == "en" else "zh").encode("utf-8-sig"), "text/csv"
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename=season-{board.season.id}.{kind}"
    return response


@bp.get("/stores/<store>/exchange")
def exchange(store: str) -> Any:
    """A store's silver-chest exchange list (offered today, and the dated history)."""
    session = get_session()
    today = utcnow().date()
    items = prizes.exchange_list(session=session, store=store[:100])
    # only the store's staff (and admins) see its balances and edit its list
    manages = stores.is_staff(session=session, user=user(), store_key=fold(store[:100]))
    return render_template(
        "events/exchange.html",
        store=store[:100],
        items=items,
        offered={i.id for i in prizes.exchange_list(session=session, store=store[:100], on=today)},
        manages=manages,
        balances=prizes.balances(session=session, store=store[:100]) if manages else [],
        today=today,
    )

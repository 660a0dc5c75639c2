"""Trading lists on the web (catalog.collection.wants): the want list, the have list with the
keep-N rule, and the public profile showing both when the user made them public. Their own
blueprint, ``wants``: their URLs (/wants, /haves, /u/<name>) are not under /collection.

Every page but the profile is the signed-in user's own; the ids in the URLs are checked
against the owner by the domain functions (another user's id → 404, nothing changed).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import accounts, browse
from catalog.collection import wants as want_lists
from catalog.errors import LunzangError
from catalog.games import GAMES
from catalog.numbers import INT32, BadNumber, parse_int
from webapp.db import get_session
from webapp.helpers import condition_choices, localized, safe_next, utcnow
from webapp.refusal import refuse
from webapp.wording import game_name

bp = Blueprint("wants", __name__)

MAX_KEEP = 1000


def blueprint() -> Blueprint:
    """The blueprint, registered by the app as every area's (its pages are this module's)."""
    return bp


def _user_id() -> int:
    return int(current_user.id)


def _int_field(name: str, default: int | None = None) -> int | None:
    raw = request.form.get(name, "").strip()
    if not raw:
        return default
    try:  # ASCII digits within an integer column (int() took 1_0 and １)
        return parse_int(raw, field=name, low=-INT32)
    except BadNumber:
        return None


def _wants_page(
    *, error: str | None = None, status: int = 200, pasted: str = "", problems: list[str] | None = None
) -> Any:
    session = get_session()
    rows = want_lists.list_wants(session=session, user_id=_user_id())
    page = render_template(
        "wants/wants.html",
        rows=rows,
        games=GAMES,
        conditions=condition_choices(),
        error=error,
        imported=browse.imported_games(session),
        pasted=pasted,
        problems=problems or [],
        pasted_game=request.form.get("game", "") if pasted else "",
    )
    return page, status


@bp.get("/wants")
@login_required
def wants() -> Any:
    return _wants_page()


@bp.get("/wants/proxies.pdf")
@login_required
def want_proxies() -> Any:
    """The want list on A4 proxy sheets (3×3 at 63×88 mm, cut marks): one proxy per wanted
    copy not owned yet, the wanted printing's face (else the card's first printing)."""
    from catalog.images import decks as deckimages
    from catalog.images import proxies
    from webapp.helpers import cache_dir, scan_dir

    session = get_session()
    rows = [r for r in want_lists.list_wants(session=session, user_id=_user_id()) if r.missing]
    if not rows:
        flash(_("需求列表里没有还缺的卡，没有可打印的代理。"), "error")
        return redirect(url_for("wants.wants"))
    wanted = [(r.game, deckimages.FaceKey(r.card_id, r.set, r.number), r.missing) for r in rows]
    data = proxies.proxies_of_cards(
        session=session, wanted=wanted, scan_dir=scan_dir(), cache_dir=cache_dir(), title=str(_("需求列表"))
    )
    response = Response(data, mimetype="application/pdf")
    response.headers["Content-Disposition"] = "attachment; filename=wants-proxies.pdf"
    return response


@bp.post("/wants")
@login_required
def add_want() -> Any:
    """The card page's form: want a card (any printing, or the chosen one)."""
    card_id = _int_field("card_id")
    printing_id = _int_field("printing_id", 0)
    quantity = _int_field("quantity", 1)
    if card_id is None or printing_id is None or quantity is None:
        return _wants_page(error=_("请填写整数数量"), status=400)
    if quantity < 1:
        return _wants_page(error=_("想要的数量至少是 1"), status=400)
    try:
        want_lists.set_want(
            session=get_session(),
            user_id=_user_id(),
            card_id=card_id,
            printing_id=printing_id or None,
            quantity=quantity,
            min_condition=request.form.get("min_condition", "MP"),
            language=request.form.get("language") or None,  # "" (任意) = any
            finish=request.form.get("finish") or None,
            now=utcnow(),
        )
    except want_lists.NotFound as failure:
        abort(404, localized(failure))
    except LunzangError as failure:
        refuse()
        return _wants_page(error=localized(failure), status=400)
    flash(_("已加入需求列表"))
    return redirect(safe_next(request.form.get("next")) or url_for("wants.wants"))


@bp.post("/wants/bulk")
@login_required
def add_wants_in_bulk() -> Any:
    """Wants pasted as a list in decklist format: every line or none (bad lines named, by number)."""
    from catalog.collection.bulk_wants import add_wants_from_list
    from catalog.decks.lists import DecklistError

    text = request.form.get("list", "")
    name = request.form.get("name", "").strip()
    if name and not text.strip():  # the one-card form: a name (suggested while typing) and a count
        count = request.form.get("count", "1").strip()
        text = f"{count if count.isdigit() else 1} {name}\n"
    session = get_session()
    try:
        done = add_wants_from_list(
            session=session,
            user_id=_user_id(),
            text=text,
            game=request.form.get("game") or None,
            min_condition=request.form.get("min_condition", "MP"),
            now=utcnow(),
        )
    except DecklistError as failure:
        refuse()  # nothing of the list is kept, and the page shows what is stored
        english = str(get_locale()) == "en"
        lines = [
            (f"line {p.line}: {p.message.en}" if p.line else p.message.en) if english else str(p)
            for p in failure.problems
        ]
        return _wants_page(error=_("列表有问题，什么都没有加入："), status=400, pasted=text, problems=lines)
    except LunzangError as failure:
        refuse()
        return _wants_page(error=localized(failure), status=400, pasted=text)
    flash(_("已加入需求列表：%(cards)d 种卡，共 %(copies)d 张", cards=done.cards, copies=done.copies))
    return redirect(url_for("wants.wants"))


@bp.post("/wants/<int:want_id>")
@login_required
def update_want(want_id: int) -> Any:
    quantity = _int_field("quantity")
    if quantity is None:
        return _wants_page(error=_("请填写整数数量"), status=400)
    try:
        kept = want_lists.update_want(
            session=get_session(),
            user_id=_user_id(),
            want_id=want_id,
            quantity=quantity,
            min_condition=request.form.get("min_condition", "MP"),
            language=request.form.get("language") or None,  # "" (任意) = any
            finish=request.form.get("finish") or None,
            in_addition=request.form.get("in_addition") == "1",  # a printing want's checkbox
            now=utcnow(),
        )
    except want_lists.NotFound as failure:
        abort(404, localized(failure))
    except LunzangError as failure:
        refuse()
        return _wants_page(error=localized(failure), status=400)
    flash(_("需求已更新") if kept is not None else _("已从需求列表移除"))
    return redirect(url_for("wants.wants"))


@bp.post("/wants/<int:want_id>/delete")
@login_required
def delete_want(want_id: int) -> Any:
    try:
        want_lists.remove_want(session=get_session(), user_id=_user_id(), want_id=want_id)
    except want_lists.NotFound as failure:
        abort(404, localized(failure))
    flash(_("已从需求列表移除"))
    return redirect(url_for("wants.wants"))


def _haves_page(*, error: str | None = None, status: int = 200, marked: dict[str, Any] | None = None) -> Any:
    rows = want_lists.have_list(session=get_session(), user_id=_user_id())
    return (
        render_template(
            "wants/haves.html",
            rows=rows,
            games=GAMES,
            keep_games=browse.imported_games(get_session()),
            keep_rules=current_user.keep_rules or {},
            conditions=dict(condition_choices()),
            error=error,
            marked=marked,
        ),
        status,
    )


@bp.get("/haves")
@login_required
def haves() -> Any:
    return _haves_page()


@bp.post("/haves/keep")
@login_required
def keep_rule() -> Any:
    """The "keep N per rarity" form of one game: every copy over N goes up for trade."""
    wanted = request.form.get("game", "")
    module = next((m for m in browse.imported_games(get_session()) if m.slug == wanted), None)
    if module is None:
        return _haves_page(error=_("请选择游戏"), status=400)
    keep: dict[str, int] = {}
    for code in module.rarity.codes:
        raw = request.form.get(f"keep-{code}", "").strip()
        if not raw:
            continue  # an empty box: this rarity is left as it is
        if not raw.isdigit() or int(raw) > MAX_KEEP:
            return _haves_page(
                error=_("保留数量必须是 0 到 %(max)d 之间的整数（%(rarity)s）", max=MAX_KEEP, rarity=code),
                status=400,
            )
        keep[code] = int(raw)
    if not keep:
        return _haves_page(error=_("请至少填写一个稀有度的保留数量"), status=400)
    try:
        changed = want_lists.mark_extras_for_trade(
            session=get_session(), user_id=_user_id(), game=module.slug, keep=keep, now=utcnow()
        )
    except LunzangError as failure:
        refuse()
        return _haves_page(error=localized(failure), status=400)
    rows = want_lists.have_list(session=get_session(), user_id=_user_id())
    copies = sum(row.for_trade for row in rows if row.game == module.slug)
    flash(
        _(
            "%(game)s：%(items)d 项收藏的可交换数量已更新，现在共有 %(copies)d 张可交换",
            game=game_name(module),
            items=changed,
            copies=copies,
        )
    )
    return redirect(url_for("wants.haves"))


@bp.get("/u/<username>")
def profile(username: str) -> Any:
    """A user's have and want lists, when they made them public (else a 404 saying so)."""
    session = get_session()
    user = accounts.get_user_by_name(session=session, username=username)
    if user is None:
        abort(404, _("没有这个用户"))
    assert user.id is not None
    own = current_user.is_authenticated and current_user.id == user.id
    if not user.lists_public and not own:
        return render_template("error.html", title=_("这个用户的列表不公开"), message=""), 404
    return render_template(
        "wants/profile.html",
        user=user,
        own=own,
        haves=want_lists.have_list(session=session, user_id=user.id),
        wants=want_lists.list_wants(session=session, user_id=user.id),
        games=GAMES,
        conditions=dict(condition_choices()),
    )

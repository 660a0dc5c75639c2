"""Thin views for admins: card scans (catalog.images.scans) and the roles of accounts
(catalog.accounts.grant_role: an admin makes a player a curator).

Scans: upload a printing's scan, remove it (admins only).

Anonymous visitors are sent to sign in; signed-in users without the ``admin`` role get 403.
An upload is read with ``read_limited`` (at most the 20 MB cap + 1 byte) and checked by
``add_scan`` before anything is stored; a refused file flashes the reason and stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlmodel import col, select

from catalog import accounts, password_reset
from catalog.errors import LunzangError
from catalog.games import GAMES
from catalog.lookup import find_printing
from webapp.admin import bp
from webapp.db import get_session
from webapp.helpers import scan_dir, utcnow
from webapp.refusal import flash_back, on_refusal


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Sign-in first (anonymous → the sign-in page), then the ``admin`` role (else 403)."""

    @login_required
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if current_user.role != "admin":
            abort(403)
        return view(*args, **kwargs)

    return wrapper


@bp.errorhandler(403)
def forbidden(_error: Any) -> Any:
    return render_template("error.html", title=_("没有权限"), message=_("只有管理员可以打开这个页面。")), 403


def _localized(error: LunzangError) -> str:
    return error.message.en if str(get_locale()) == "en" else error.message.zh


def _page(status: int = 200, **form: str) -> Any:
    from catalog.images import scans  # Pillow: only the scan pages pay for it

    rows = scans.list_scans(session=get_session())
    uploaded = request.args.get("uploaded", "")
    latest = next((row for row in rows if str(row.printing_id) == uploaded), None)
    page = render_template(
        "admin/scans.html",
        rows=rows,
        latest=latest,
        games=GAMES,
        form={"game": "", "set_code": "", "number": "", **form},
        max_mb=scans.MAX_BYTES // (1024 * 1024),
    )
    return page, status


@bp.get("/scans")
@admin_required
def scans_page() -> Any:
    return _page()


@bp.post("/scans")
@admin_required
def upload_scan() -> Any:
    from catalog.images import scans  # Pillow: only the scan pages pay for it

    game = request.form.get("game", "").strip()
    set_code = request.form.get("set_code", "").strip()
    number = request.form.get("number", "").strip()
    kept = {"game": game, "set_code": set_code, "number": number}
    upload = request.files.get("scan")
    if not number:
        flash(_("请填写收藏编号，例如 M4-001。"), "error")
        return _page(400, **kept)
    if upload is None or not upload.filename:
        flash(_("请选择一个卡图文件（JPEG、PNG 或 WebP）。"), "error")
        return _page(400, **kept)
    session = get_session()

    def refused(error: LunzangError) -> Any:  # a scan or printing refused: nothing of the upload stays
        flash(_localized(error), "error")
        return _page(400, **kept)

    on_refusal(refused)
    printing = find_printing(session=session, number=number, game=game or None, set_code=set_code or None)
    scans.add_scan(
        session=session,
        printing_id=printing.id,
        data=scans.read_limited(upload.stream),
        store_dir=scan_dir(),
        uploaded_by=current_user.id,
        now=utcnow(),
    )
    flash(_("卡图已上传：%(number)s", number=printing.number))
    return redirect(url_for("admin.scans_page", uploaded=printing.id))


@bp.post("/scans/<int:printing_id>/remove")
@admin_required
def remove_scan(printing_id: int) -> Any:
    from catalog.images import scans  # Pillow: only the scan pages pay for it

    removed = scans.remove_scan(session=get_session(), printing_id=printing_id)
    if removed:
        flash(_("已删除这张卡图，卡面恢复为绘制的版本。"))
    else:
        flash(_("这张印刷没有上传的卡图。"), "error")
    return redirect(url_for("admin.scans_page"))


USERS_SHOWN = 100  # one page of the user list; a name filter finds the rest


@bp.get("/users")
@admin_required
def users_page() -> Any:
    """Accounts and their roles (an admin grants the curator role here); name filter, bounded."""
    return _users_page(request.args.get("q", ""))


def _users_page(q: str, *, reset: tuple[str, str] | None = None, status: int = 200) -> Any:
    from catalog.models import RoleGrant, User
    from webapp.auth.routes import role_names

    session = get_session()
    needle = q.strip()[:32]
    query = select(User).order_by(col(User.username_key)).limit(USERS_SHOWN)
    if needle:
        query = query.where(col(User.username_key).contains(accounts.username_key(needle)))
    users = session.exec(query).all()
    grants = session.exec(
        select(RoleGrant, User.username)
        .join(User, col(User.id) == col(RoleGrant.user_id))
        .order_by(col(RoleGrant.id).desc())
        .limit(20)
    ).all()
    page = render_template(
        "admin/users.html",
        users=users,
        needle=needle,
        shown=USERS_SHOWN,
        roles=role_names(),
        grants=grants,
        reset=reset,
        reset_hours=int(password_reset.ADMIN_LIFETIME.total_seconds() // 3600),
    )
    response = make_response(page, status)
    if reset:
        response.headers["Cache-Control"] = "no-store"  # the link is shown in this answer only
    return response


@bp.post("/users/<int:user_id>/reset-link")
@admin_required
def issue_reset_link(user_id: int) -> Any:
    """A one-time password-reset link for the user, shown once to the admin, who hands it over
    (the way a password is reset when the site sends no mail)."""
    from catalog.models import User

    session = get_session()
    user = session.get(User, user_id)
    if user is None:
        abort(404)
    _row, token = password_reset.issue_reset(
        session=session, user=user, now=utcnow(), lifetime=password_reset.ADMIN_LIFETIME, issued_by=current_user
    )
    link = url_for("auth.reset_password", token=token, _external=True)
    return _users_page(request.form.get("q", ""), reset=(user.username, link), status=201)


@bp.post("/users/<int:user_id>/role")
@admin_required
def set_user_role(user_id: int) -> Any:
    from webapp.auth.routes import role_names

    back = url_for("admin.users_page", q=request.form.get("q", "")[:32] or None)
    if request.form.get("confirm") != "1":
        flash(_("请勾选“确认”后再修改角色。"), "error")
        return redirect(back)
    session = get_session()
    on_refusal(flash_back(back, code=302))
    user = accounts.grant_role(
        session=session, by=current_user, user_id=user_id, role=request.form.get("role", ""), now=utcnow()
    )
    flash(_("%(name)s 的角色现在是：%(role)s", name=user.username, role=role_names().get(user.role, user.role)))
    return redirect(back)


@bp.get("/stores")
@admin_required
def stores_page() -> Any:
    """Stores as accounts: create one, set its prize cap, assign and remove staff."""
    from catalog.events import stores

    session = get_session()
    rows = [(store, stores.staff(session=session, store=store)) for store in stores.all_stores(session=session)]
    return render_template("admin/stores.html", rows=rows, max_cap=stores.MAX_PRIZE_CAP)


@bp.post("/stores")
@admin_required
def store_action() -> Any:
    """``action`` create | cap | staff | unstaff; a refused change flashes why and changes nothing."""
    from catalog.events import stores

    session = get_session()
    form = request.form
    action = form.get("action", "")
    on_refusal(flash_back(url_for("admin.stores_page")))  # why flashed, nothing changed
    if action == "create":
        store = stores.create_store(
            session=session, name=form.get("name", ""), city=form.get("city", ""), now=utcnow(),
            prize_cap=_small_int(form.get("prize_cap", "20")),
        )  # fmt: skip
        flash(_("已创建店铺：%(name)s", name=store.name))
    elif action in ("cap", "staff", "unstaff"):
        store = _store(session, form.get("store", ""))
        if action == "cap":
            stores.set_prize_cap(store=store, cap=_small_int(form.get("prize_cap", "")))
            flash(_("%(name)s 每个名次最多 %(n)d 个白银宝箱", name=store.name, n=store.prize_cap))
        elif action == "staff":
            user = stores.add_staff(
                session=session, by=current_user, store=store, username=form.get("username", "").strip()[:64],
                now=utcnow(),
            )  # fmt: skip
            flash(_("%(user)s 现在是 %(name)s 的店员", user=user.username, name=store.name))
        else:
            stores.remove_staff(session=session, by=current_user, store=store, user_id=_small_int(form.get("user", "")))
            flash(_("已移除店员"))
    else:
        abort(400)
    return redirect(url_for("admin.stores_page"), code=303)


def _small_int(text: str) -> int:
    from catalog.errors import Message
    from catalog.events.stores import StoreError

    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise StoreError(Message("请输入一个不太大的整数", "enter a whole number (not too large)"))
    return int(text)


def _store(session: Any, store_id: str) -> Any:
    from catalog.errors import Message
    from catalog.events.stores import StoreError
    from catalog.models import Store

    store = session.get(Store, _small_int(store_id))
    if store is None:
        raise StoreError(Message("没有这家店铺", "no such store"))
    return store

"""Thin views over catalog.accounts: register, sign in/out, the account page.

Sign-in is rate-limited (DESIGN §10). Only *failed* attempts count, so a user who types the
password right is never locked out by their own successes, while a guesser gets:
- 5 failures a minute for one user name from one address (someone mistyping, or a targeted guess),
- 20 failures a minute from one address whatever the names (spraying many accounts).
The window is a moving one: the 6th failure within any 60 seconds is refused with 429, even
when that attempt carries the right password. Registration: 10 new accounts an hour per address.
"""

from __future__ import annotations

from typing import Any

from flask import abort, flash, g, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user

from catalog import accounts, curation
from catalog.curation import proposals
from catalog.errors import LunzangError
from catalog.models import User
from webapp.auth import bp, hash_method
from webapp.auth.forms import (
    ChangePasswordForm,
    ConfirmForm,
    EmailForm,
    ListsPublicForm,
    LoginForm,
    RegisterForm,
    TimeZoneForm,
    TokenForm,
)
from webapp.db import get_session
from webapp.extensions import client_address, limiter
from webapp.helpers import localized, safe_next, utcnow
from webapp.refusal import on_refusal

SIGN_IN_PER_NAME = "5 per minute"
SIGN_IN_PER_ADDRESS = "20 per minute"
REGISTER_PER_ADDRESS = "10 per hour"


def role_names() -> dict[str, str]:
    return {"user": _("普通用户"), "organizer": _("组织者"), "curator": _("目录编辑"), "admin": _("管理员")}


def _sign_in_key() -> str:
    return f"{client_address()}|{accounts.username_key(request.form.get('username', '').strip())}"


def _sign_in_failed(_response: Any) -> bool:
    return bool(g.get("sign_in_failed"))


def _registered(_response: Any) -> bool:
    return bool(g.get("registered"))


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(SIGN_IN_PER_NAME, key_func=_sign_in_key, methods=["POST"], deduct_when=_sign_in_failed)
@limiter.limit(SIGN_IN_PER_ADDRESS, key_func=client_address, methods=["POST"], deduct_when=_sign_in_failed)
def login() -> Any:
    form = LoginForm()
    target = safe_next(request.values.get("next"))
    if request.method == "GET" and current_user.is_authenticated:
        return redirect(target or url_for("cards.home"))
    error = None
    if form.validate_on_submit():
        user = accounts.authenticate(
            session=get_session(),
            username=form.username.data or "",
            password=form.password.data or "",
            hash_method=hash_method(),
        )
        if user is None:
            g.sign_in_failed = True
            error = _("用户名或密码不正确")
        else:
            login_user(user, remember=bool(form.remember.data))
            flash(_("欢迎回来，%(name)s", name=user.username))
            return redirect(target or url_for("cards.home"))
    elif request.method == "POST":
        g.sign_in_failed = True
    form.next.data = target or ""
    status = 401 if error else 200
    return render_template("auth/login.html", form=form, error=error), status


@bp.route("/register", methods=["GET", "POST"])
@limiter.limit(REGISTER_PER_ADDRESS, key_func=client_address, methods=["POST"], deduct_when=_registered)
def register() -> Any:
    form = RegisterForm()
    error = None
    if form.validate_on_submit():
        try:
            user = accounts.create_user(
                session=get_session(),
                username=form.username.data or "",
                password=form.password.data or "",
                now=utcnow(),
                hash_method=hash_method(),
            )
        except LunzangError as failure:
            error = localized(failure)
        else:
            g.registered = True
            login_user(user)
            flash(_("注册成功：欢迎，%(name)s", name=user.username))
            return redirect(url_for("auth.account"))
    status = 400 if error or form.errors else 200
    return render_template("auth/register.html", form=form, error=error), status


@bp.post("/logout")
def logout() -> Any:
    # Ends the session on the server, not only in this browser: every session and remember
    # cookie of the user stops working. The price: signing out on one device signs
    # out the others too — chosen over a table of sessions, which a copied cookie would
    # otherwise outlive.
    if current_user.is_authenticated:
        accounts.sign_out_everywhere(session=get_session(), user=current_user)
    logout_user()
    flash(_("已退出登录"))
    return redirect(url_for("cards.home"))


def _account_page(*, status: int = 200, new_token: str | None = None, **forms: Any) -> Any:
    user: User = current_user
    lists_form = forms.get("lists_form") or ListsPublicForm(lists_public=user.lists_public)
    response = make_response(
        render_template(
            "auth/account.html",
            user=user,
            role_name=role_names().get(user.role, user.role),
            password_form=forms.get("password_form") or ChangePasswordForm(formdata=None),
            token_form=forms.get("token_form") or TokenForm(formdata=None),
            lists_form=lists_form,
            email_form=forms.get("email_form") or EmailForm(email=user.email or ""),
            zone_form=forms.get("zone_form") or TimeZoneForm(time_zone=accounts.time_zone_of(user)),
            zone_names=sorted(accounts.time_zone_names()),
            revoke_form=ConfirmForm(),
            tokens=accounts.list_tokens(session=get_session(), user=user),
            new_token=new_token,
            error=forms.get("error"),
            my_proposals=proposals.of_user(get_session(), user_id=user.id),
            can_curate=curation.can_curate(user),
            pending=proposals.pending_count(get_session()) if curation.can_curate(user) else 0,
        ),
        status,
    )
    response.headers["Cache-Control"] = "no-store"  # the page may hold a token shown once
    return response


@bp.get("/account")
@login_required
def account() -> Any:
    return _account_page()


@bp.post("/account/password")
@login_required
def change_password() -> Any:
    form = ChangePasswordForm()
    if not form.validate_on_submit():
        return _account_page(status=400, password_form=form)

    def refused(failure: LunzangError) -> Any:
        return _account_page(status=400, password_form=form, error=localized(failure))

    on_refusal(refused)
    user = accounts.change_password(
        session=get_session(),
        user=current_user,
        old_password=form.old_password.data or "",
        new_password=form.new_password.data or "",
        hash_method=hash_method(),
        now=utcnow(),
    )
    login_user(user)  # this session carries the new auth_version; every other one is signed out
    flash(_("密码已修改，其他设备上的登录已失效，所有 API 令牌已吊销"))
    return redirect(url_for("auth.account"))


@bp.post("/account/lists")
@login_required
def lists_public() -> Any:
    form = ListsPublicForm()
    if not form.validate_on_submit():
        return _account_page(status=400, lists_form=form)
    accounts.set_lists_public(session=get_session(), user=current_user, public=bool(form.lists_public.data))
    flash(_("已公开收藏与求购列表") if form.lists_public.data else _("收藏与求购列表仅自己可见"))
    return redirect(url_for("auth.account"))


@bp.post("/account/email")
@login_required
def email() -> Any:
    """The address password-reset links are sent to (empty removes it)."""
    from catalog import password_reset

    form = EmailForm()
    if not form.validate_on_submit():
        return _account_page(status=400, email_form=form)

    def refused(failure: LunzangError) -> Any:
        return _account_page(status=400, email_form=form, error=localized(failure))

    on_refusal(refused)
    user = password_reset.set_email(session=get_session(), user=current_user, email=form.email.data or "")
    flash(_("电子邮件地址已保存") if user.email else _("已删除电子邮件地址"))
    return redirect(url_for("auth.account"))


@bp.post("/account/time-zone")
@login_required
def time_zone() -> Any:
    """The zone the user's pages show times in (an IANA name; the default Asia/Shanghai)."""
    form = TimeZoneForm()
    if not form.validate_on_submit():
        return _account_page(status=400, zone_form=form)

    def refused(failure: LunzangError) -> Any:
        return _account_page(status=400, zone_form=form, error=localized(failure))

    on_refusal(refused)
    user = accounts.set_time_zone(session=get_session(), user=current_user, name=form.time_zone.data or "")
    flash(_("时间将按 %(zone)s 显示", zone=accounts.time_zone_of(user)))
    return redirect(url_for("auth.account"))


@bp.post("/account/tokens")
@login_required
def create_token() -> Any:
    form = TokenForm()
    if not form.validate_on_submit():
        return _account_page(status=400, token_form=form)
    if not accounts.check_password(user=current_user, password=form.password.data or ""):
        return _account_page(status=400, token_form=form, error=_("密码不正确，没有创建令牌"))

    def refused(failure: LunzangError) -> Any:
        return _account_page(status=400, token_form=form, error=localized(failure))

    on_refusal(refused)
    _token, plaintext = accounts.issue_token(
        session=get_session(),
        user=current_user,
        name=form.name.data or "",
        now=utcnow(),
    )
    # Shown in this response only (not flashed: the session cookie is signed, not encrypted).
    return _account_page(status=201, new_token=plaintext)


@bp.post("/account/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int) -> Any:
    if not ConfirmForm().validate_on_submit():
        abort(400)
    try:
        accounts.revoke_token(session=get_session(), user=current_user, token_id=token_id, now=utcnow())
    except LunzangError:
        abort(404, _("没有这个令牌"))
    flash(_("令牌已吊销"))
    return redirect(url_for("auth.account"))

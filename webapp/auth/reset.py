"""Password reset on the web: ask for a link, follow it, set a new password.

With MAIL_SERVER set, /password/forgot e-mails a one-time link to the address on the account;
the page says the same whether or not a matching account exists (no way to probe for names).
Without mail, the page says to ask an admin, who issues a link on /admin/users. Following a link
(GET) only shows the form; the POST spends it.
"""

from __future__ import annotations

from typing import Any

from flask import flash, make_response, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_login import current_user, logout_user

from catalog import password_reset
from catalog.errors import LunzangError
from webapp.auth import bp, hash_method
from webapp.auth.forms import ForgotPasswordForm, ResetPasswordForm
from webapp.db import get_session
from webapp.extensions import client_address, limiter
from webapp.helpers import localized, utcnow
from webapp.mail import MailError, mail_configured, send_mail
from webapp.refusal import on_refusal, refuse

FORGOT_PER_ADDRESS = "5 per 15 minutes"
# Both languages in one mail: the request that asks for it may not be in the reader's language.
MAIL_BODY = "\n".join(
    [
        "{name}，你好：",
        "",
        "有人（希望是你）申请重置你在轮藏的密码。",
        "请在 {minutes} 分钟内打开下面的链接设置新密码，链接只能使用一次：",
        "",
        "{link}",
        "",
        "如果不是你申请的，忽略这封邮件即可，密码不会改变。",
        "",
        "Hello {name},",
        "",
        "Someone (hopefully you) asked to reset your Lunzang password. Open the link above within",
        "{minutes} minutes to choose a new one; it works once. If it was not you, ignore this mail:",
        "your password stays as it is.",
        "",
    ]
)


def _private(response: Any) -> Any:
    # The link's token is in the URL: no caching, and no Referer carrying it to another page.
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.route("/password/forgot", methods=["GET", "POST"])
@limiter.limit(FORGOT_PER_ADDRESS, key_func=client_address, methods=["POST"])
def forgot_password() -> Any:
    form = ForgotPasswordForm()
    sent = False
    error = None
    if mail_configured() and form.validate_on_submit():
        session = get_session()
        user = password_reset.find_user_for_reset(session=session, name_or_email=form.name_or_email.data or "")
        if user is not None and user.email:
            _row, token = password_reset.issue_reset(
                session=session, user=user, now=utcnow(), lifetime=password_reset.EMAIL_LIFETIME
            )
            link = url_for("auth.reset_password", token=token, _external=True)
            minutes = int(password_reset.EMAIL_LIFETIME.total_seconds() // 60)
            body = MAIL_BODY.format(name=user.username, minutes=minutes, link=link)
            try:
                send_mail(to=user.email, subject="轮藏：重置密码 / Lunzang: reset your password", body=body)
            except MailError:
                refuse()  # no reset link stays open that nobody was sent
                error = _("邮件发送失败，请稍后再试，或请管理员为你生成重置链接")
        sent = error is None
    status = 503 if error else (400 if form.errors else 200)
    page = render_template("auth/forgot.html", form=form, sent=sent, error=error, mail=mail_configured())
    return _private(make_response(page, status))


def _reset_page(token: str, form: ResetPasswordForm, *, status: int = 200, error: str | None = None) -> Any:
    page = render_template("auth/reset.html", form=form, token=token, error=error)
    return _private(make_response(page, status))


@bp.get("/password/reset/<token>")
def reset_password(token: str) -> Any:
    """The new-password form of an open link; an unknown, used or expired one says so (410)."""
    if password_reset.open_reset(session=get_session(), token=token, now=utcnow()) is None:
        page = render_template("auth/reset.html", form=None, token=token, error=_invalid_link())
        return _private(make_response(page, 410))
    return _reset_page(token, ResetPasswordForm(formdata=None))


def _invalid_link() -> str:
    return _("这个重置密码的链接无效、已使用或已过期，请重新申请")


@bp.post("/password/reset/<token>")
@limiter.limit(FORGOT_PER_ADDRESS, key_func=client_address)
def reset_password_post(token: str) -> Any:
    form = ResetPasswordForm()
    if not form.validate_on_submit():
        return _reset_page(token, form, status=400)
    session = get_session()

    def refused(failure: LunzangError) -> Any:
        gone = isinstance(failure, password_reset.ResetError)
        return _reset_page(token, form, status=410 if gone else 400, error=localized(failure))

    on_refusal(refused)
    password_reset.reset_password(
        session=session,
        token=token,
        password=form.new_password.data or "",
        now=utcnow(),
        hash_method=hash_method(),
    )
    if current_user.is_authenticated:
        logout_user()  # whoever was signed in here, the new password is to be used from now on
    flash(_("密码已重置，请用新密码登录；其他设备上的登录已失效，所有 API 令牌已吊销"))
    return _private(redirect(url_for("auth.login")))

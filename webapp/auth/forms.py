"""Flask-WTF forms of the account pages: each carries the CSRF token."""

from __future__ import annotations

from flask_babel import lazy_gettext as _
from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo


class LoginForm(FlaskForm):
    username = StringField(_("用户名"), validators=[DataRequired(_("请填写用户名"))])
    password = PasswordField(_("密码"), validators=[DataRequired(_("请填写密码"))])
    remember = BooleanField(_("在这台设备上保持登录"))
    next = HiddenField()


class RegisterForm(FlaskForm):
    username = StringField(_("用户名"), validators=[DataRequired(_("请填写用户名"))])
    password = PasswordField(_("密码"), validators=[DataRequired(_("请填写密码"))])
    confirm = PasswordField(
        _("再次输入密码"),
        validators=[DataRequired(_("请再次输入密码")), EqualTo("password", _("两次输入的密码不一致"))],
    )


class ChangePasswordForm(FlaskForm):
    old_password = PasswordField(_("原密码"), validators=[DataRequired(_("请填写原密码"))])
    new_password = PasswordField(_("新密码"), validators=[DataRequired(_("请填写新密码"))])
    confirm = PasswordField(
        _("再次输入新密码"),
        validators=[DataRequired(_("请再次输入新密码")), EqualTo("new_password", _("两次输入的密码不一致"))],
    )


class TokenForm(FlaskForm):
    name = StringField(_("令牌名称（可选，例如“手机”）"))
    # A fresh sign-in: the password again, so a session cookie alone cannot mint a token.
    password = PasswordField(_("当前密码"), validators=[DataRequired(_("请填写当前密码"))])


class ListsPublicForm(FlaskForm):
    lists_public = BooleanField(_("公开我的收藏与求购列表（个人主页可见）"))


class TimeZoneForm(FlaskForm):
    # Checked against zoneinfo's names by catalog.accounts.set_time_zone (a clear message).
    time_zone = StringField(_("时区"), validators=[DataRequired(_("请填写时区"))])


class ConfirmForm(FlaskForm):
    """A form with nothing but the CSRF token: revoke buttons."""


class ForgotPasswordForm(FlaskForm):
    name_or_email = StringField(_("用户名或电子邮件地址"), validators=[DataRequired(_("请填写用户名或电子邮件地址"))])


class ResetPasswordForm(FlaskForm):
    new_password = PasswordField(_("新密码"), validators=[DataRequired(_("请填写新密码"))])
    confirm = PasswordField(
        _("再次输入新密码"),
        validators=[DataRequired(_("请再次输入新密码")), EqualTo("new_password", _("两次输入的密码不一致"))],
    )


class EmailForm(FlaskForm):
    # Checked by catalog.password_reset.set_email (a clear message); empty removes the address.
    email = StringField(_("电子邮件地址（用于重置密码，可留空）"))

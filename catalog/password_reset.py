"""Password reset: a one-time link, e-mailed when the site can send mail,
else issued by an admin and handed over by them.

A link carries a random token; only its SHA-256 is stored (like API tokens). It works once,
until it expires, and setting the password through it signs the user out everywhere, revokes
their API tokens and closes every other open link (:func:`catalog.accounts.set_password`; a
password changed on the account page does the same). Use cases flush and never commit.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from catalog import accounts
from catalog.errors import Message
from catalog.models import PasswordReset, User

RESET_PREFIX = "pr_"
# An e-mailed link lives an hour (the mailbox is the weak point); an admin's, handed over in
# person or by chat, a day.
EMAIL_LIFETIME = timedelta(hours=1)
ADMIN_LIFETIME = timedelta(hours=24)
EMAIL_MAX = 254
# Deliberately loose: one @, something on each side, a dot in the domain, no spaces or angle
# brackets (the address goes into a mail header). Whether it exists, only a mail tells.
_EMAIL = re.compile(r"^[^@\s<>,;\"']+@[^@\s<>,;\"']+\.[^@\s<>,;\"']+$")


class ResetError(accounts.AccountError):
    """A reset link that is unknown, used or expired, or a bad e-mail address."""


INVALID_LINK = Message(
    "这个重置密码的链接无效、已使用或已过期，请重新申请",
    "this password-reset link is invalid, used or expired: ask again",
)


def set_email(*, session: Session, user: User, email: str) -> User:
    """Set (or, with an empty string, remove) the address reset links are sent to."""
    address = email.strip()
    if address and (len(address) > EMAIL_MAX or not _EMAIL.match(address)):
        raise ResetError(Message("电子邮件地址格式不正确", "that is not a valid e-mail address"))
    user.email = address or None
    session.add(user)
    session.flush()
    return user


def find_user_for_reset(*, session: Session, name_or_email: str) -> User | None:
    """The user a reset is asked for: by user name (case and width ignored) or by e-mail
    address (case ignored); None when nobody matches."""
    needle = name_or_email.strip()[:EMAIL_MAX]
    if not needle:
        return None
    if "@" in needle:
        statement = select(User).where(func.lower(col(User.email)) == needle.lower()).order_by(col(User.id))
        return session.exec(statement).first()
    return accounts.get_user_by_name(session=session, username=needle)


def issue_reset(
    *, session: Session, user: User, now: datetime, lifetime: timedelta, issued_by: User | None = None
) -> tuple[PasswordReset, str]:
    """A new one-time reset link token for ``user``: the row (hash only) and the plaintext."""
    assert user.id is not None
    plaintext = RESET_PREFIX + secrets.token_urlsafe(32)
    row = PasswordReset(
        user_id=user.id,
        token_hash=accounts.token_hash(plaintext),
        created_at=now,
        expires_at=now + lifetime,
        issued_by=issued_by.id if issued_by is not None else None,
    )
    session.add(row)
    session.flush()
    return row, plaintext


def _aware(moment: datetime) -> datetime:
    from datetime import UTC

    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def open_reset(*, session: Session, token: str, now: datetime) -> PasswordReset | None:
    """The open (unused, unexpired) reset row of a plaintext token, or None. Reads only."""
    token = token.strip()
    if not token.startswith(RESET_PREFIX) or len(token) > 100:
        return None
    row = session.exec(select(PasswordReset).where(PasswordReset.token_hash == accounts.token_hash(token))).first()
    if row is None or row.used_at is not None or _aware(row.expires_at) <= now:
        return None
    return row


def reset_password(
    *, session: Session, token: str, password: str, now: datetime, hash_method: str | None = None
) -> User:
    """Set the password through a reset link. The link is spent by a conditional UPDATE (of two
    requests racing with one link, one wins); the user is signed out everywhere, their API
    tokens revoked and every other open link closed."""
    row = open_reset(session=session, token=token, now=now)
    if row is None:
        raise ResetError(INVALID_LINK)
    accounts.validate_password(password)  # before spending the link: a short password may retry
    spent = session.execute(
        update(PasswordReset)
        .where(col(PasswordReset.id) == row.id, col(PasswordReset.used_at).is_(None))
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    if not getattr(spent, "rowcount", 0):
        raise ResetError(INVALID_LINK)
    user = session.exec(select(User).where(User.id == row.user_id).with_for_update()).one()
    # set_password signs out, revokes the API tokens and closes the user's other open links
    accounts.set_password(session=session, user=user, password=password, hash_method=hash_method, now=now)
    return user

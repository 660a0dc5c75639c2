"""Accounts: register, authenticate, change password, roles, and API tokens (DESIGN §8, §10).

Passwords are hashed with werkzeug (scrypt by default; tests pass a cheap ``hash_method``).
An API token is shown once: only its SHA-256 is stored, with its first characters as a label.
Use cases flush and never commit: the caller owns the transaction.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import unicodedata
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select
from werkzeug.security import check_password_hash, generate_password_hash

from catalog.errors import LunzangError, Message
from catalog.models import ROLES, ApiToken, PasswordReset, User

USERNAME_MIN, USERNAME_MAX = 2, 32
PASSWORD_MIN, PASSWORD_MAX = 8, 256
TOKEN_PREFIX = "lz_"
TOKEN_LABEL_CHARS = 10  # "lz_" + 7 characters: enough to tell tokens apart, useless to guess
TOKEN_NAME_MAX = 64

# Letters and digits of any script (CJK included), underscore and hyphen. Nothing HTML-ish
# (< > & " ' /), no spaces, so a name is safe in a URL path (/u/<name>) and a mention.
_USERNAME = re.compile(r"^[\w-]+$")
# A dummy hash checked when the name is unknown, so a wrong name costs the same time as a wrong
# password (no user enumeration by timing). Computed lazily per method.
_DUMMY_HASHES: dict[str, str] = {}


class AccountError(LunzangError):
    """Bad account input (name taken, password too short, wrong password, unknown token …)."""

    code = "account"


def username_key(username: str) -> str:
    """The form two names must not share: NFKC (full-width → half-width), then case-folded."""
    return unicodedata.normalize("NFKC", username).casefold()


def validate_username(username: str) -> str:
    """The name, stripped, or an :class:`AccountError` saying what is wrong with it."""
    name = unicodedata.normalize("NFC", username.strip())
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise AccountError(
            Message(
                f"用户名须为 {USERNAME_MIN}–{USERNAME_MAX} 个字符",
                f"a user name has {USERNAME_MIN} to {USERNAME_MAX} characters",
            )
        )
    if not _USERNAME.match(name):
        raise AccountError(
            Message(
                "用户名只能包含字母、数字、汉字、下划线和连字符",
                "a user name may contain only letters, digits, CJK characters, '_' and '-'",
            )
        )
    return name


def validate_password(password: str) -> None:
    if len(password) < PASSWORD_MIN:
        raise AccountError(
            Message(f"密码至少需要 {PASSWORD_MIN} 个字符", f"a password needs at least {PASSWORD_MIN} characters")
        )
    if len(password) > PASSWORD_MAX:
        raise AccountError(
            Message(f"密码最多 {PASSWORD_MAX} 个字符", f"a password has at most {PASSWORD_MAX} characters")
        )


def validate_role(role: str) -> str:
    if role not in ROLES:
        raise AccountError(
            Message(
                f"没有这个角色：{role}（可选：{'、'.join(ROLES)}）",
                f"no such role: {role} (choose one of {', '.join(ROLES)})",
            )
        )
    return role


def _hash(password: str, hash_method: str | None) -> str:
    return generate_password_hash(password, method=hash_method) if hash_method else generate_password_hash(password)


def get_user_by_name(*, session: Session, username: str) -> User | None:
    """The user whose name matches ``username`` ignoring case and width, or None."""
    return session.exec(select(User).where(User.username_key == username_key(username.strip()))).first()


class UnknownUser(AccountError):
    """No user has that name."""

    code = "not_found"
    status = 404


def find_user(*, session: Session, username: str) -> User:
    """Like :func:`get_user_by_name`, but an unknown name is :class:`UnknownUser` (the CLI and
    the API name users by their names, not ids)."""
    user = get_user_by_name(session=session, username=username)
    if user is None:
        raise UnknownUser(Message(f"没有用户名为「{username}」的用户", f"no user named '{username}'"))
    return user


def create_user(
    *,
    session: Session,
    username: str,
    password: str,
    role: str = "user",
    now: datetime,
    hash_method: str | None = None,
) -> User:
    """Register a user; a taken name (ignoring case and width) is a clear error."""
    name = validate_username(username)
    validate_password(password)
    validate_role(role)
    key = username_key(name)
    taken = AccountError(Message(f"用户名“{name}”已被使用", f"the user name {name!r} is taken"))
    if session.exec(select(User.id).where(User.username_key == key)).first() is not None:
        raise taken
    user = User(
        username=name,
        username_key=key,
        password_hash=_hash(password, hash_method),
        role=role,
        created_at=now,
    )
    try:
        # A savepoint: two sign-ups racing for one name leave the caller's transaction usable.
        with session.begin_nested():
            session.add(user)
    except IntegrityError as error:
        raise taken from error
    return user


def authenticate(*, session: Session, username: str, password: str, hash_method: str | None = None) -> User | None:
    """The user when name and password match, else None (same cost whether or not the name exists).

    ``hash_method`` is the method new hashes use: an unknown name is checked against a dummy
    hash of that method, so it takes as long as a wrong password.
    """
    user = get_user_by_name(session=session, username=username)
    if user is None:
        method = hash_method or "scrypt"
        if method not in _DUMMY_HASHES:
            _DUMMY_HASHES[method] = generate_password_hash("not a password", method=method)
        check_password_hash(_DUMMY_HASHES[method], password)
        return None
    return user if check_password_hash(user.password_hash, password) else None


def change_password(
    *,
    session: Session,
    user: User,
    old_password: str,
    new_password: str,
    hash_method: str | None = None,
    now: datetime | None = None,
) -> User:
    """Set a new password after checking the old one; every other session is signed out and
    every API token revoked (a password changed because it leaked must not leave a
    token made with it working)."""
    if not check_password_hash(user.password_hash, old_password):
        raise AccountError(Message("原密码不正确", "the current password is wrong"))
    validate_password(new_password)
    user.password_hash = _hash(new_password, hash_method)
    user.auth_version += 1
    revoke_all_tokens(session=session, user=user, now=now or datetime.now(UTC))
    assert user.id is not None
    close_open_resets(session=session, user_id=user.id, now=now or datetime.now(UTC))
    session.add(user)
    session.flush()
    return user


def set_password(
    *, session: Session, user: User, password: str, hash_method: str | None = None, now: datetime | None = None
) -> User:
    """Set a password without the old one (the command line, run by the site's operator); as
    with :func:`change_password`, sessions are signed out and tokens revoked."""
    validate_password(password)
    user.password_hash = _hash(password, hash_method)
    user.auth_version += 1
    revoke_all_tokens(session=session, user=user, now=now or datetime.now(UTC))
    assert user.id is not None
    close_open_resets(session=session, user_id=user.id, now=now or datetime.now(UTC))
    session.add(user)
    session.flush()
    return user


def check_password(*, user: User, password: str) -> bool:
    """True when ``password`` is the user's (a fresh sign-in before creating a token)."""
    return check_password_hash(user.password_hash, password)


def sign_out_everywhere(*, session: Session, user: User) -> User:
    """End every session of the user on the server: the session id carries ``auth_version``
    (webapp.auth.setup.load_user), so a copied cookie or a remember token stops working."""
    user.auth_version += 1
    session.add(user)
    session.flush()
    return user


def revoke_all_tokens(*, session: Session, user: User, now: datetime) -> int:
    """Revoke every live API token of the user; the number revoked."""
    rows = list(session.exec(select(ApiToken).where(ApiToken.user_id == user.id, col(ApiToken.revoked_at).is_(None))))
    for row in rows:
        row.revoked_at = now
        session.add(row)
    session.flush()
    return len(rows)


def close_open_resets(*, session: Session, user_id: int, now: datetime) -> int:
    """Spend every open password-reset link of the user (catalog.password_reset); how many."""
    result = session.execute(
        update(PasswordReset)
        .where(col(PasswordReset.user_id) == user_id, col(PasswordReset.used_at).is_(None))
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def set_role(*, session: Session, user: User, role: str) -> User:
    user.role = validate_role(role)
    session.add(user)
    session.flush()
    return user


def grant_role(*, session: Session, by: User, user_id: int, role: str, now: datetime) -> User:
    """An admin gives ``user_id`` another role, recorded (RoleGrant: who, to whom, when). Only an
    admin may; an admin cannot take their own admin role (the site would keep none)."""
    from catalog.models import RoleGrant

    if by.role != "admin":
        raise AccountError(Message("只有管理员可以授予角色", "only admins grant roles"))
    new_role = validate_role(role)
    user = session.exec(select(User).where(User.id == user_id).with_for_update()).first()
    if user is None:
        raise AccountError(Message("没有这个用户", "no such user"))
    if user.id == by.id and new_role != "admin":
        raise AccountError(Message("不能取消自己的管理员角色", "you cannot take away your own admin role"))
    if user.role == new_role:
        return user
    assert user.id is not None
    session.add(RoleGrant(user_id=user.id, old_role=user.role, new_role=new_role, by_id=by.id, created_at=now))
    user.role = new_role
    session.add(user)
    session.flush()
    return user


def set_lists_public(*, session: Session, user: User, public: bool) -> User:
    user.lists_public = public
    session.add(user)
    session.flush()
    return user


DEFAULT_TIME_ZONE = "Asia/Shanghai"  # the site's audience; anonymous visitors see it too


@functools.cache
def time_zone_names() -> frozenset[str]:
    """Every IANA zone name this machine's zoneinfo knows (Asia/Shanghai, Europe/Berlin, UTC …)."""
    return frozenset(zoneinfo.available_timezones())


def time_zone_of(user: User | None) -> str:
    """The zone a user's pages show times in: their own when still known, else the default."""
    name = user.time_zone if user is not None else None
    return name if name and name in time_zone_names() else DEFAULT_TIME_ZONE


def set_time_zone(*, session: Session, user: User, name: str) -> User:
    """Show the user's times in zone ``name`` (an IANA name, as zoneinfo spells it); the
    default zone is stored as NULL, so a later change of the default reaches them too."""
    name = name.strip()
    if name not in time_zone_names():
        raise AccountError(
            Message(
                f"未知的时区「{name[:64]}」：请写 IANA 时区名，如 Asia/Shanghai、Asia/Taipei、Europe/London",
                f"unknown time zone '{name[:64]}': use an IANA name such as Asia/Shanghai or Europe/London",
            )
        )
    user.time_zone = None if name == DEFAULT_TIME_ZONE else name
    session.add(user)
    session.flush()
    return user


def list_users(*, session: Session) -> list[User]:
    return list(session.exec(select(User).order_by(User.username_key)))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(*, session: Session, user: User, name: str = "", now: datetime) -> tuple[ApiToken, str]:
    """A new API token for ``user``: the row (hash only) and the plaintext, to be shown once."""
    label = name.strip()
    if len(label) > TOKEN_NAME_MAX:
        raise AccountError(
            Message(f"令牌名称最多 {TOKEN_NAME_MAX} 个字符", f"a token name has at most {TOKEN_NAME_MAX} characters")
        )
    assert user.id is not None
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user_id=user.id,
        name=label,
        token_hash=token_hash(plaintext),
        prefix=plaintext[:TOKEN_LABEL_CHARS],
        created_at=now,
    )
    session.add(token)
    session.flush()
    return token, plaintext


def list_tokens(*, session: Session, user: User) -> list[ApiToken]:
    """The user's tokens, newest first, revoked ones included (they show as revoked)."""
    statement = select(ApiToken).where(ApiToken.user_id == user.id).order_by(col(ApiToken.id).desc())
    return list(session.exec(statement))


def revoke_token(*, session: Session, user: User, token_id: int, now: datetime) -> ApiToken:
    """Revoke one of ``user``'s tokens; someone else's token is 'not found', never touched."""
    token = session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id:
        raise AccountError(Message("没有这个令牌", "no such token"))
    if token.revoked_at is None:
        token.revoked_at = now
        session.add(token)
        session.flush()
    return token


def find_token(*, session: Session, token: str) -> ApiToken | None:
    """The live token row for a plaintext token, or None for an unknown/revoked one. Reads only."""
    token = token.strip()
    if not token.startswith(TOKEN_PREFIX):
        return None
    row = session.exec(select(ApiToken).where(ApiToken.token_hash == token_hash(token))).first()
    if row is None or row.revoked_at is not None:
        return None
    return row


@dataclass(frozen=True)
class TokenOwner:
    """Who a live token belongs to, and whether its use is due to be recorded."""

    user: User
    token_id: int
    use_is_stale: bool  # the recorded last use is older than TOKEN_USE_RESOLUTION (or missing)


def user_for_token(*, session: Session, token: str, now: datetime) -> TokenOwner | None:
    """The owner of a live token, or None for an unknown/revoked one (or a deleted owner).

    Reads only: the caller notes the use apart when it is stale (:func:`note_token_use`), in
    its own short transaction for a read, in the request's for a write. The API calls this one
    function (it had its own copy, so this one's tests proved nothing there).
    """
    row = find_token(session=session, token=token)
    user = None if row is None else session.get(User, row.user_id)
    if row is None or row.id is None or user is None:
        return None
    return TokenOwner(user, row.id, token_use_is_stale(row, now))


# How precisely "last used" is kept. writing it on every request made every GET of a
# token a write — "database is locked" on SQLite, one row lock serialising a token's requests on
# PostgreSQL. Now a request writes it only when the recorded use is older than this, in its own
# short transaction, so "last used" is right to within 5 minutes.
TOKEN_USE_RESOLUTION = timedelta(minutes=5)


def token_use_is_stale(row: ApiToken, now: datetime) -> bool:
    """True when ``row``'s recorded last use is missing or older than the resolution."""
    last = row.last_used_at
    if last is not None and last.tzinfo is None:
        last = last.replace(tzinfo=UTC)
    return last is None or now - last >= TOKEN_USE_RESOLUTION


def note_token_use(*, session: Session, token_id: int, now: datetime) -> bool:
    """Record ``now`` as the token's last use unless a use within the resolution is recorded
    already (one conditional UPDATE, so concurrent requests write it at most once). Flushes
    nothing else; the caller runs it in its own short transaction."""
    stale = now - TOKEN_USE_RESOLUTION
    result = session.execute(
        update(ApiToken)
        .where(col(ApiToken.id) == token_id)
        .where(or_(col(ApiToken.last_used_at).is_(None), col(ApiToken.last_used_at) <= stale))
        .values(last_used_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(getattr(result, "rowcount", 0))

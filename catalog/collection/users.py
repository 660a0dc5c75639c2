"""Finding the user a command names (the CLI takes usernames, not ids)."""

from __future__ import annotations

from sqlmodel import Session

from catalog.errors import LunzangError, Message
from catalog.models import User


class UnknownUser(LunzangError):
    code = "not_found"


def find_user(*, session: Session, username: str) -> User:
    """The user named ``username`` (case-insensitive), or :class:`UnknownUser`."""
    from catalog.accounts import get_user_by_name

    user = get_user_by_name(session=session, username=username)
    if user is None:
        raise UnknownUser(Message(f"没有用户名为「{username}」的用户", f"no user named '{username}'"))
    return user

"""Times on pages in the reader's time zone.

The tables hold aware UTC times and the JSON API answers ISO-8601 UTC; pages show every date
and time through the one Jinja filter ``localtime``, in the signed-in user's zone (set on
``/account``), else Asia/Shanghai (:data:`catalog.accounts.DEFAULT_TIME_ZONE`) — anonymous
visitors included. A form's local time is read back in the same zone (:func:`from_local`).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo
from zoneinfo import ZoneInfo

from flask import Flask, g
from flask_login import current_user

from catalog.accounts import DEFAULT_TIME_ZONE, time_zone_of

STYLES = {
    "minute": "%Y-%m-%d %H:%M",
    "date": "%Y-%m-%d",
    "time": "%H:%M",
    "second": "%Y-%m-%d %H:%M:%S",
}


def zone_name() -> str:
    """The IANA name of the zone this request's pages show times in."""
    if "time_zone" not in g:
        user = current_user if current_user and current_user.is_authenticated else None
        g.time_zone = time_zone_of(user) if user is not None else DEFAULT_TIME_ZONE
    name: str = g.time_zone
    return name


def zone() -> tzinfo:
    return ZoneInfo(zone_name())


def localtime(value: datetime | date | None, style: str = "minute") -> str:
    """A stored time as the reader reads it: in their zone, ``YYYY-MM-DD HH:MM`` (``style``
    ``date``, ``time`` or ``second`` for less or more). A naive time is UTC (SQLite hands some
    back without their zone); a calendar date (an event's day) is shown as it is."""
    if value is None:
        return ""
    if not isinstance(value, datetime):
        return value.isoformat()
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.astimezone(zone()).strftime(STYLES[style])


def from_local(text: str) -> datetime:
    """A time typed into a form (``YYYY-MM-DDTHH:MM``, the reader's zone) as aware UTC;
    ``ValueError`` when unreadable. A time that names its own offset keeps it."""
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone())
    return parsed.astimezone(UTC)


def init_app(app: Flask) -> None:
    app.add_template_filter(localtime, "localtime")
    app.add_template_global(zone_name, "time_zone_name")

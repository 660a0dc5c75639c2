"""Errors the domain raises: every one carries a Chinese message and its English twin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Message:
    """A user-facing message in Simplified Chinese with the English alongside."""

    zh: str
    en: str

    def __str__(self) -> str:
        return self.zh


class LunzangError(Exception):
    """Base class of domain errors that are shown to the user as they are."""

    code = "error"
    # The HTTP status the site and the API answer with, the same for both: 400 unless the error
    # says otherwise (404 names nothing there, 409 conflicts with what is stored, 422 a file
    # that cannot be imported, 503 the service cannot work).
    status = 400

    def __init__(self, message: Message) -> None:
        super().__init__(message.zh)
        self.message = message

    def extra_json(self) -> dict[str, Any]:
        """Fields the JSON error answer carries besides code and messages (none by default)."""
        return {}

    @classmethod
    def from_text(cls, zh: str, en: str) -> LunzangError:
        return cls(Message(zh, en))


class ConfigurationError(LunzangError):
    """The database URL or another setting is missing or unusable."""

    code = "configuration"
    status = 503

"""Errors the domain raises: every one carries a Chinese message and its English twin."""

from __future__ import annotations

from dataclasses import dataclass


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

    def __init__(self, message: Message) -> None:
        super().__init__(message.zh)
        self.message = message

    @classmethod
    def from_text(cls, zh: str, en: str) -> LunzangError:
        return cls(Message(zh, en))


class ConfigurationError(LunzangError):
    """The database URL or another setting is missing or unusable."""

    code = "configuration"

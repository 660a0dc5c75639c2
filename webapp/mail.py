"""Sending mail (password-reset links,): plain SMTP through the standard library.

Configured by MAIL_SERVER (host; empty = the site sends no mail, and an admin issues reset links
instead), MAIL_PORT, MAIL_FROM, MAIL_USERNAME / MAIL_PASSWORD (optional login), MAIL_STARTTLS.
"""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

from flask import current_app

SEND_TIMEOUT = 10  # seconds: a dead mail server must not hold a web worker for long


class MailError(Exception):
    """The mail server could not be reached or refused the message."""


def mail_configured() -> bool:
    return bool(str(current_app.config.get("MAIL_SERVER") or "").strip())


def send_mail(*, to: str, subject: str, body: str) -> None:
    """Send one plain-text message; :class:`MailError` when the server fails."""
    config = current_app.config
    message = EmailMessage()
    message["From"] = config.get("MAIL_FROM") or "lunzang@localhost"
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    try:
        with smtplib.SMTP(str(config["MAIL_SERVER"]), int(config.get("MAIL_PORT") or 25), timeout=SEND_TIMEOUT) as smtp:
            if str(config.get("MAIL_STARTTLS") or "").lower() in {"1", "true", "yes", "on"}:
                smtp.starttls()
            if config.get("MAIL_USERNAME"):
                smtp.login(str(config["MAIL_USERNAME"]), str(config.get("MAIL_PASSWORD") or ""))
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as error:
        raise MailError(str(error)) from error

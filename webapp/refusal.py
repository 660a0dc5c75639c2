"""One way to refuse a write: views raise the domain error, one handler undoes and answers.

A view does its work and lets a :class:`~catalog.errors.LunzangError` (or the API's
``ApiError``) propagate. The app-wide handler (:func:`init_app`, the only handler of domain
errors) marks the request refused, rolls its session back and answers:

- under ``/api/``: the JSON ``{"error": {code, message, message_en}}`` with the error's status;
- on a page that declared its answer (:func:`on_refusal` in the view before the work, or the
  :func:`answers_refusal` decorator): that answer — a flash and a redirect back, or the form
  again with its message and status — built after the rollback so it reads what is stored;
- on any other page: the site's error page with the message and the error's status.

(The API blueprint answers its own ``ApiError`` and domain errors the same way:
:func:`domain_error_json` refuses the request first.) A page that shows its form
again with what only the view holds may catch the error itself, but then calls :func:`refuse`
before answering (the wants pages).

What commits (:mod:`webapp.db`): a request's transaction commits only when nothing refused it —
:func:`refuse` was not called — **and** its answer is below 400. A 4xx/5xx answer a view builds
without raising (a form shown again with 400) is a refusal too and never commits what the view
wrote before it; work that must outlive a refusal runs in its own transaction (as the token's
"last used" stamp, :func:`webapp.api.auth._note_use_apart`), not in the request's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Flask, current_app, flash, g, jsonify, redirect, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from catalog.errors import LunzangError
from webapp.db import REFUSED

F = TypeVar("F", bound=Callable[..., Any])
PageAnswer = Callable[[LunzangError], Any]

_ANSWER = "lunzang_refusal_answer"


def refuse() -> None:
    """Mark the request refused (it will not commit) and undo its writes now, so whatever the
    answer reads next (the form again, the signed-in user) is what is stored. The session stays
    open: objects loaded in it reload from the database."""
    setattr(g, REFUSED, True)
    session = g.get("db_session")
    if session is not None:
        session.rollback()


def on_refusal(answer: PageAnswer) -> None:
    """Declare, in a page view before its work, how the page answers a domain error raised from
    here on: ``answer(error)`` runs in the app-wide handler after the rollback. A later call
    replaces the answer (a view whose way back depends on what it was asked to do)."""
    setattr(g, _ANSWER, answer)


def answers_refusal(answer: PageAnswer) -> Callable[[F], F]:
    """Declare how a page answers a domain error its view raises: ``answer(error)`` runs in the
    app-wide handler after the rollback. Without it a page answers with the error page."""

    def decorate(view: F) -> F:
        @wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            on_refusal(answer)
            return view(*args, **kwargs)

        return cast(F, wrapper)

    return decorate


def flash_back(target: str | Callable[[], str], *, code: int = 303) -> PageAnswer:
    """A page answer: the error's message flashed, then a redirect to ``target()`` (a URL or a
    function returning one, called after the rollback)."""

    def answer(error: LunzangError) -> Any:
        from webapp.helpers import localized

        flash(localized(error), "error")
        return redirect(target if isinstance(target, str) else target(), code=code)

    return answer


def _wants_api() -> bool:
    return request.path.startswith("/api/")


def error_body(code: str, message: str, message_en: str, **extra: Any) -> dict[str, Any]:
    """DESIGN §8's error shape: ``{"error": {"code", "message", "message_en", …}}``."""
    return {"error": {"code": code, "message": message, "message_en": message_en, **extra}}


def domain_error_json(error: LunzangError) -> tuple[Any, int]:
    """A domain error as the API's JSON answer, with its status; the request is refused, its
    writes dropped (:func:`refuse`)."""
    refuse()
    return jsonify(error_body(error.code, error.message.zh, error.message.en, **error.extra_json())), error.status


def handle_domain_error(error: LunzangError) -> Any:
    """The one answer to a refused request (see the module's docstring)."""
    refuse()
    if _wants_api():
        return domain_error_json(error)
    answer: PageAnswer | None = g.get(_ANSWER)
    if answer is not None:
        try:
            return answer(error)
        except HTTPException as refused_outright:  # an answer may abort (403): as a view's abort
            return current_app.handle_http_exception(refused_outright)
    from webapp.helpers import localized

    return render_template("error.html", title=_("无法处理的输入"), message=localized(error)), error.status


def init_app(app: Flask) -> None:
    app.register_error_handler(LunzangError, handle_domain_error)

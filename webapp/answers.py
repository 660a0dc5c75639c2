"""Answers that depend only on the catalogue, kept until it changes.

The catalogue changes only when someone imports (vocabulary included), uploads or removes a
scan: each moves its game's ``catalogue_version`` in the database. A page or API answer of a
view wrapped in :func:`cached` is kept under a key of what it depends on — every game's
``catalogue_version`` (one short statement per request, in the request's transaction, so a
server never answers from a catalogue older than the one its transaction sees), the language,
the URL's path and query — and nothing else. Two servers on one database therefore agree
without telling each other anything: an import on one changes the key on both.

What belongs to the visitor is never kept. While the kept answer is rendered, every visitor's
part of the page (its CSRF token, flashed messages, the account links, the deck and collection
buttons with their counts) is a *part*: a marker in the text with the name and arguments of
the renderer that draws it (:func:`part`). Each request draws its own parts into the kept text,
so one kept page serves anonymous and signed-in visitors alike and a signed-in page pays only
for its own counts. A search whose hits are the user's own (``own>0``) is never kept.

Kept in the process (cachetools, ``ANSWER_CACHE_MB``) and, when ``ANSWER_CACHE_URL`` (or a
``redis://`` ``RATELIMIT_STORAGE_URI``) names Redis, there as well, so every server shares the
work. HTTP: a strong ETag of the key (and, when a part is drawn, of what the parts depend on),
``304`` on ``If-None-Match``, ``Cache-Control: no-cache`` (keep, but ask again: the next
import may change it), ``private`` when the answer carries the visitor's parts, ``Vary: Cookie``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from cachetools import LRUCache
from flask import Flask, Response, current_app, g, make_response, request
from flask import session as web_session
from flask_babel import get_locale
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup
from sqlalchemy import select
from sqlmodel import col

from catalog.models import Game
from webapp.db import get_engine, get_session

MARK = "\x00"  # never in a rendered page or JSON (both escape it): splits the kept text into parts
PLAIN_CSRF = "\x00csrf\x00"  # the CSRF token's place in a plain visitor's text
RENDERERS: dict[str, Callable[..., str]] = {}  # part name → what draws it for this request
# part name → what reads, once per request, what all of that name on a page need (one query for
# every tile's owned count); called with the arguments of each such part before any is drawn,
# it may return what draws each of them in this request (instead of the part's renderer)
PREPARERS: dict[str, Callable[[list[list[Any]]], Callable[..., str] | None]] = {}


def renderer(name: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register the function that draws part ``name`` (its arguments: JSON values)."""

    def register(function: Callable[..., str]) -> Callable[..., str]:
        RENDERERS[name] = function
        return function

    return register


@renderer("csrf")
def _csrf() -> str:
    # a plain visitor's text is shared: the token stays a marker there, whoever draws it
    return PLAIN_CSRF if g.get("answer_plain") else str(generate_csrf())


def _macro_part(name: str) -> None:
    """Part ``name`` drawn by the macro of that name in ``_parts.html``."""

    def draw(*args: Any) -> str:
        module = g.get("parts_module")
        if module is None:  # once per request, with the context processors' values (current_user …)
            context: dict[str, Any] = {}
            current_app.update_template_context(context)
            module = g.parts_module = current_app.jinja_env.get_template("_parts.html").make_module(context)
        return str(getattr(module, name)(*args))

    RENDERERS[name] = draw


for _name in ("trades_link", "account_nav", "flashes", "collection_js"):
    _macro_part(_name)


def capturing() -> bool:
    """Whether the answer being rendered is to be kept (the visitor's parts become markers)."""
    return bool(g.get("answer_parts") is not None)


def part(name: str, *args: Any) -> Markup:
    """Part ``name`` of this visitor: drawn now, or a marker when the answer is to be kept."""
    parts: list[Any] | None = g.get("answer_parts")
    if parts is None:
        return Markup(RENDERERS[name](*args))
    parts.append([name, *args])
    return Markup(f"{MARK}{len(parts) - 1}{MARK}")


def csrf_token() -> str:
    """The template's ``csrf_token()``: this session's token, or its marker in a kept answer."""
    return str(part("csrf"))


@dataclass
class Kept:
    status: int
    mimetype: str
    body: str  # text with MARK-delimited part numbers
    parts: list[Any]  # [name, *args] per part number
    digest: str  # of the key: the ETag when no part is drawn
    # the text as a plain visitor sees it (anonymous, no working deck, no flashed message):
    # every part drawn once but the CSRF token, left as PLAIN_CSRF (kept in this process only)
    plain: str | None = None

    def dumps(self) -> bytes:
        return json.dumps([self.status, self.mimetype, self.body, self.parts, self.digest]).encode()

    @classmethod
    def loads(cls, data: bytes) -> Kept:
        status, mimetype, body, parts, digest = json.loads(data)
        return cls(status, mimetype, body, parts, digest)


class Store:
    """The process's LRU (bytes of text counted) in front of an optional Redis."""

    def __init__(self, megabytes: float, redis_url: str | None) -> None:
        self.local: LRUCache[str, Kept] = LRUCache(
            maxsize=int(megabytes * 1024 * 1024), getsizeof=lambda kept: len(kept.body) + 256
        )
        self.lock = threading.Lock()
        self.redis: Any = None
        if redis_url:
            import redis

            self.redis = redis.Redis.from_url(redis_url, socket_timeout=1)

    def get(self, key: str) -> Kept | None:
        with self.lock:
            kept = self.local.get(key)
        if kept is not None or self.redis is None:
            return kept
        try:
            data = self.redis.get(f"lunzang:answer:{key}")
        except Exception:  # Redis away: answer from the database, as without it
            return None
        if data is None:
            return None
        kept = Kept.loads(data)
        self._keep_locally(key, kept)
        return kept

    def put(self, key: str, kept: Kept) -> None:
        self._keep_locally(key, kept)
        if self.redis is not None:
            try:  # an hour: the key changes with the catalogue, so old ones only age out
                self.redis.set(f"lunzang:answer:{key}", kept.dumps(), ex=3600)
            except Exception:
                current_app.logger.warning("answer cache: Redis did not take %s", key)

    def _keep_locally(self, key: str, kept: Kept) -> None:
        if len(kept.body) + 256 <= self.local.maxsize:
            with self.lock:
                self.local[key] = kept

    def clear(self) -> None:
        with self.lock:
            self.local.clear()


def store(app: Flask | None = None) -> Store | None:
    app = app or current_app
    found: Store | None = app.extensions.get("answers")
    return found


def init_app(app: Flask) -> None:
    url = app.config.get("ANSWER_CACHE_URL")
    if url is None:
        limiter_store = str(app.config.get("RATELIMIT_STORAGE_URI") or "")
        url = limiter_store if limiter_store.startswith(("redis://", "rediss://")) else ""
    off = url == "off"
    app.extensions["answers"] = None if off else Store(float(app.config.get("ANSWER_CACHE_MB", 64)), url or None)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["part"] = part


VERSIONS = select(col(Game.slug), col(Game.catalogue_version)).order_by(col(Game.slug))


def catalogue_key() -> str:
    """Every game's ``catalogue_version``, read once per request in its transaction."""
    if "catalogue_key" not in g:
        rows = get_session().connection().execute(VERSIONS).all()
        g.catalogue_key = ",".join(f"{slug}={version}" for slug, version in rows)
        g.catalogue_versions = {slug: version for slug, version in rows}  # for what else is kept by them
    return str(g.catalogue_key)


# (database, catalogue key) → every game's search row (slug, id, vocabulary, version): what the
# versions name cannot change without moving them (an import writes the vocabulary and a new
# version in one transaction), so a search of a known catalogue needs no statement of its own
_GAME_ROWS: LRUCache[tuple[str, str], tuple[Any, ...]] = LRUCache(maxsize=8)
_GAME_ROWS_LOCK = threading.Lock()


def game_rows() -> tuple[Any, ...] | None:
    """Every game's ``catalog.search.run.GAME_ROWS`` for a search in this request, when the
    request read the catalogue versions already (an answer being kept): read once per catalogue
    version and process, then none. ``None`` otherwise (the search reads them itself)."""
    if "catalogue_key" not in g:
        return None
    from catalog.search.run import GAME_ROWS

    key = (_database(), str(g.catalogue_key))
    with _GAME_ROWS_LOCK:
        rows = _GAME_ROWS.get(key)
    if rows is None:
        rows = tuple(tuple(row) for row in get_session().connection().execute(GAME_ROWS))
        if {slug: version for slug, _id, _vocabulary, version in rows} != g.catalogue_versions:
            return rows  # the versions changed in between (another transaction): this request's only
        with _GAME_ROWS_LOCK:
            _GAME_ROWS[key] = rows
    return rows


def _database() -> str:
    database = current_app.config.get("_ANSWER_DATABASE")
    if database is None:
        database = current_app.config["_ANSWER_DATABASE"] = get_engine().url.render_as_string(hide_password=False)
    return str(database)


def _key() -> str:
    database = _database()
    raw = "\n".join(
        (database, catalogue_key(), str(get_locale()), request.script_root, request.path, request.query_string.decode())
    )
    return hashlib.sha256(raw.encode()).hexdigest()


def alike() -> bool:
    """For :func:`cached`'s ``everyone``: nothing on the page is the visitor's but its parts
    (base.html's account links, flashes, CSRF token)."""
    return True


def dont_keep() -> None:
    """This answer is the visitor's own (e.g. a search counting their collection): not kept."""
    g.answer_not_kept = True


def cached(view: Callable[..., Any] | None = None, *, everyone: Callable[[], bool] | None = None) -> Any:
    """Keep ``view``'s 200 answers by catalogue, language and URL (see the module's notes).

    For a signed-in visitor or one building a deck only when ``everyone()`` says this answer
    draws all of their parts as parts (e.g. the results grid); otherwise theirs is rendered
    as before, and only anonymous visitors without a working deck share the kept one."""
    if view is None:
        return lambda function: cached(function, everyone=everyone)

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kept_answers = store()
        if kept_answers is None or request.method not in ("GET", "HEAD") or request.authorization is not None:
            return view(*args, **kwargs)
        own = current_user.is_authenticated or bool(web_session.get("working_deck"))
        if own and not (everyone is not None and everyone()):
            return view(*args, **kwargs)
        key = _key()
        kept = kept_answers.get(key)
        if kept is None:
            g.answer_parts = []
            try:
                response = make_response(view(*args, **kwargs))
            finally:
                parts, g.answer_parts = g.answer_parts, None
            if response.status_code != 200 or response.direct_passthrough or g.get("answer_not_kept"):
                return _drawn(response, parts)
            kept = Kept(200, response.mimetype or "text/html", response.get_data(as_text=True), parts, key[:32])
            kept_answers.put(key, kept)
        return answer(kept)

    return wrapper


def _drawn(response: Response, parts: list[Any]) -> Response:
    """A response rendered with markers but not kept: its parts drawn now."""
    if parts and not response.direct_passthrough:
        response.set_data(_draw(response.get_data(as_text=True), parts))
    return response


def _draw(body: str, parts: list[Any], *, plain: bool = False) -> str:
    """``body`` with every part drawn for this visitor (``plain``: the CSRF token left as PLAIN_CSRF)."""
    if plain:
        g.answer_plain = True
    try:
        drawers = dict(RENDERERS)
        for name, prepare in PREPARERS.items():
            batch = [args for part_name, *args in parts if part_name == name]
            if batch:
                drawer = prepare(batch)
                if drawer is not None:
                    drawers[name] = drawer
        pieces = body.split(MARK)
        for index in range(1, len(pieces), 2):
            name, *args = parts[int(pieces[index])]
            pieces[index] = drawers[name](*args)
        return "".join(pieces)
    finally:
        g.answer_plain = False


def plain_visitor() -> bool:
    """Anonymous, no working deck, no flashed message: every part of theirs is everyone's."""
    if current_user.is_authenticated:
        return False
    return not web_session.get("working_deck") and not web_session.get("_flashes")


def answer(kept: Kept) -> Response:
    """The kept answer with this visitor's parts, its validators and caching headers."""
    personal = bool(kept.parts)
    etag: str | None = kept.digest
    if current_user.is_authenticated:
        etag = None  # a signed-in page counts the user's rows, which change without a new URL
    elif personal:
        # The parts of a visitor depend on the session alone (its CSRF token, working deck,
        # flashed messages): the validator names them, and only this browser may keep the page.
        # A page with no form of its own (the home page) makes no token: no session cookie is
        # set for a visitor who has none, and none is signed for every request.
        if any(name == "csrf" for name, *_args in kept.parts):
            generate_csrf()
        state = f"{web_session.get('csrf_token', '')}\n{json.dumps(web_session.get('working_deck'), sort_keys=True)}"
        etag = hashlib.sha256(f"{etag}\n{state}".encode()).hexdigest()[:32]
    if etag is not None and etag in request.if_none_match and not web_session.get("_flashes"):
        response = Response(status=304)
    else:
        if not personal:
            body = kept.body
        elif plain_visitor():
            if kept.plain is None:
                kept.plain = _draw(kept.body, kept.parts, plain=True)
            body = kept.plain.replace(PLAIN_CSRF, generate_csrf()) if PLAIN_CSRF in kept.plain else kept.plain
        else:
            body = _draw(kept.body, kept.parts)
        response = Response(body, status=kept.status, mimetype=kept.mimetype)
    if etag is not None:
        response.set_etag(etag)
    response.headers["Cache-Control"] = "private, no-cache" if personal else "public, no-cache"
    response.vary.add("Cookie")
    return response

"""Thin views: read the list, call catalog.decks.check / deckstats, render.

The deck being built is kept in the browser's (signed) session and travels in POST bodies, not in
URLs: the checker's form, its + / − buttons and "add a card" post the list, the
server keeps it and answers with a redirect to the bare ``/decks?game=…&format=…``. A list too
long for the session cookie is answered directly instead. ``/decks?list=…`` still reads (an old
bookmark); checking a deck writes nothing in the database.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, abort, jsonify, redirect, render_template, request, url_for
from flask import session as web_session
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user

from catalog.decks import stats as deckstats
from catalog.decks.check import DeckCheckError, check_decklist, format_choices
from catalog.decks.lists import (
    DecklistError,
    add_card,
    adjust_line,
    copies_by_name,
    merged,
    remove_card,
    write_json,
    write_text,
)
from catalog.games import GAMES
from catalog.rules import SECTIONS, Rulebook
from catalog.text import fold
from webapp.answers import alike, cached
from webapp.db import get_session
from webapp.decks import bp
from webapp.helpers import WORKING_DECK, cache_dir, safe_next, scan_dir, working_deck

MAX_TURNS = 10


def section_labels() -> dict[str, str]:
    return {"main": _("主卡组"), "extra": _("额外卡组"), "side": _("备牌")}


MAX_SESSION_BYTES = 3000  # a cookie holds ~4 KB; longer lists live in the URL only


def _params() -> tuple[str, str | None, str | None, int]:
    given = request.form if request.method == "POST" else request.args
    text = given.get("list", "")
    game = given.get("game") or None
    format_code = given.get("format") or None
    saved = web_session.get(WORKING_DECK)
    if "list" not in given and isinstance(saved, dict) and (game is None or game == saved.get("game")):
        text = str(saved.get("list") or "")
        game = game or saved.get("game") or None
        format_code = format_code or saved.get("format") or None
    try:
        turns = max(1, min(MAX_TURNS, int(given.get("turns", "5"))))
    except ValueError:
        turns = 5
    return text, game, format_code, turns


def _run(text: str, game: str | None, format_code: str | None) -> tuple[Any, list[str]]:
    """The check, or (None, problems) when the list is unreadable or the game/format unknown."""
    try:
        return check_decklist(session=get_session(), text=text, game=game, format_code=format_code), []
    except DecklistError as error:
        return None, [str(p) for p in error.problems]
    except DeckCheckError as error:
        return None, [error.message.zh]


def _edited(text: str) -> str | None:
    """The list after a + / − button (``inc`` / ``dec`` = line) or the add-a-card form, else ``None``."""
    given = request.form if request.method == "POST" else request.args
    for key, delta in (("inc", 1), ("dec", -1)):
        if given.get(key, "").isdigit():
            return adjust_line(text, int(given[key]), delta)
    name = given.get("add", "").strip()
    if name:
        count = given.get("add_count", "1")
        section = given.get("add_section", "main")
        return add_card(text, name, int(count) if count.isdigit() else 1, section)
    return None


def _remember(text: str, game: str, format_code: str | None) -> bool:
    """Keep the deck in the session when it fits the cookie; whether it did."""
    if len(text.encode()) <= MAX_SESSION_BYTES:
        web_session[WORKING_DECK] = {"list": text, "game": game, "format": format_code or ""}
        return True
    return False


def _kept(text: str) -> bool:
    """True when the session holds exactly this list (links then need not carry it)."""
    saved = web_session.get(WORKING_DECK)
    return isinstance(saved, dict) and str(saved.get("list") or "") == text


@bp.post("/decks/working")
def edit_working() -> Any:
    """+ / − from search results and the card page: one copy more or fewer of a card in the
    working deck (added to ``section``, main by default), then back to the page the button was
    on. Only the browser's own session changes."""
    game, name = request.form.get("game", ""), request.form.get("name", "").strip()
    target = safe_next(request.form.get("next")) or url_for("decks.check")
    saved_game, text = working_deck()
    changed = game in GAMES and bool(name) and (not text.strip() or saved_game == game)
    section = request.form.get("section") or "main"  # the card page may name the section
    changed = changed and section in SECTIONS
    if changed:
        text = remove_card(text, name) if request.form.get("action") == "remove" else add_card(text, name, 1, section)
        _remember(text, game, None)
    if request.accept_mimetypes.best == "application/json":  # the search page's script
        copies = copies_by_name(text).get(fold(name), 0)
        label = _("卡组中 %(n)d 张", n=copies)
        return jsonify({"copies": copies, "label": label, "changed": changed})
    return redirect(target)


@bp.route("/decks", methods=["GET", "POST"])
def check() -> Any:
    if request.args.get("clear"):
        web_session.pop(WORKING_DECK, None)
        return redirect(url_for("decks.check"))
    text, game, format_code, turns = _params()
    edited = _edited(text)
    if edited is not None or request.method == "POST":
        text = text if edited is None else edited
        query: dict[str, Any] = {"game": game or "", "format": format_code or "", "turns": turns}
        # The deck goes to the session, and the answer to its bare URL (no list in it); a list
        # too long for the cookie is answered right here (a POST) or, from an old link, in the URL.
        if _remember(text, game or "", format_code):
            anchor = "#deck-list-heading" if edited is not None else ""
            return redirect(url_for("decks.check", **{k: v for k, v in query.items() if v}) + anchor, code=303)
        if request.method == "GET":
            return redirect(url_for("decks.check", **{k: v for k, v in {**query, "list": text}.items() if v}))
    choices = format_choices(get_session())
    problems: list[str] = []
    result, page = None, None
    if text.strip():
        result, problems = _run(text, game, format_code)
        if result is not None:
            _remember(text, result.pool.game, format_code)
            module = GAMES[result.pool.game]
            page = deckstats.report(
                text,
                result,
                attributes=module.attributes.canonical,
                types=module.types.canonical,
                turns=turns,
            )
    return render_template(
        "decks/check.html",
        text=text,
        game=game or (result.pool.game if result else ""),
        format_code=format_code or "",
        turns=turns,
        choices=choices,
        result=result,
        problems=problems,
        page=page,
        module=GAMES.get(result.pool.game) if result else None,
        sections=SECTIONS,
        section_labels=section_labels(),
        games_for_rules={slug: GAMES[slug] for slug in _rulebooks()},
        list_in_links=not _kept(text),
    )


@bp.route("/decks/export.<kind>")
def export(kind: str) -> Response:
    if kind not in ("txt", "json"):
        abort(404)
    text, game, format_code, _turns = _params()
    result, problems = _run(text, game, format_code)
    if result is None:
        abort(400, "; ".join(problems) or _("卡组是空的"))
    result.deck.name = result.deck.name or _("卡组")
    if kind == "json":
        body = json.dumps(write_json(result.deck), ensure_ascii=False, indent=2)
        mimetype = "application/json"
    else:
        body, mimetype = write_text(result.deck), "text/plain"
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename=deck.{kind}"
    return response


def _drawable() -> Any:
    """The checked deck, or 400 when it is empty, unreadable or names cards we do not have."""
    from catalog.images import decks as deckimages  # Pillow: only drawing pays for it

    text, game, format_code, _turns = _params()
    result, problems = _run(text, game, format_code)
    if result is None:
        abort(400, "; ".join(problems) or _("卡组是空的"))
    missing = deckimages.unresolved(result.verdict)
    if missing or not result.deck.entries:
        abort(400, "; ".join(missing) or _("卡组是空的"))
    if not result.deck.name:  # a saved deck's links name it (its list has no 名称: line)
        result.deck.name = request.args.get("name", "").strip()[:100]
    return result


def _download(data: bytes, mimetype: str, filename: str) -> Response:
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename={filename}"
    return response


@bp.route("/decks/image.png")
def deck_image() -> Response:
    """The checked deck as a PNG to share (grid of card images, counts, legality badge)."""
    from catalog.images import decks as deckimages  # Pillow: only drawing pays for it

    data, _rows = deckimages.deck_image_of(
        session=get_session(), check=_drawable(), scan_dir=scan_dir(), cache_dir=cache_dir()
    )
    return _download(data, "image/png", "deck.png")


@bp.route("/decks/proxies.pdf")
def proxies() -> Response:
    """Every copy of the checked deck on A4 proxy sheets (3×3 cards of 63×88 mm, cut marks);
    ``no_basics=1`` leaves out the game's basic cards (永恒之轮: basic 法力石)."""
    from catalog.images import proxies as proxysheets  # Pillow: only drawing pays for it

    try:
        data, _copies = proxysheets.deck_proxies_of(
            session=get_session(),
            check=_drawable(),
            scan_dir=scan_dir(),
            cache_dir=cache_dir(),
            skip_basics=request.args.get("no_basics") == "1",
        )
    except proxysheets.ProxiesRefused as error:
        abort(400, error.message.en if str(get_locale()) == "en" else error.message.zh)
    return _download(data, "application/pdf", "proxies.pdf")


@bp.route("/decks/print")
def print_sheet() -> str:
    text, game, format_code, _turns = _params()
    result, problems = _run(text, game, format_code)
    if result is None:
        abort(400, "; ".join(problems) or _("卡组是空的"))
    rows = merged(result.deck.entries)
    return render_template(
        "decks/print.html",
        result=result,
        module=GAMES[result.pool.game],
        rows={s: [r for r in rows if r[0] == s] for s in SECTIONS},
        section_labels=section_labels(),
        # the signed-in player's name unless another is asked for (it was blank)
        player=request.args.get("player", "") or (current_user.username if current_user.is_authenticated else ""),
    )


@bp.route("/rules/<game_slug>")
@cached(everyone=alike)
def rules(game_slug: str) -> str:
    module = GAMES.get(game_slug)
    book = module.rulebook if module is not None else None
    if module is None or book is None:
        abort(404, _("没有这个游戏：%(slug)s", slug=game_slug))
    return render_template("decks/rules.html", module=module, book=book, games=GAMES, rulebooks=_rulebooks())


def _rulebooks() -> dict[str, Rulebook]:
    """Slug → rulebook of every game that has a rules page."""
    return {slug: game.rulebook for slug, game in GAMES.items() if game.rulebook is not None}

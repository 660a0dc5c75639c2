"""Thin views: read the list from the query string, call catalog.decks.check / deckstats, render.

The deck lives in the URL (``?game=…&format=…&list=…``): checking a deck writes nothing, so a
GET form works without accounts, JavaScript or CSRF, and a checked deck can be bookmarked.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, abort, jsonify, redirect, render_template, request, url_for
from flask import session as web_session
from flask_babel import get_locale
from flask_babel import gettext as _

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
    text = request.args.get("list", "")
    game = request.args.get("game") or None
    format_code = request.args.get("format") or None
    saved = web_session.get(WORKING_DECK)
    if "list" not in request.args and isinstance(saved, dict) and (game is None or game == saved.get("game")):
        text = str(saved.get("list") or "")
        game = game or saved.get("game") or None
        format_code = format_code or saved.get("format") or None
    try:
        turns = max(1, min(MAX_TURNS, int(request.args.get("turns", "5"))))
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
    """The list after a + / − link (``inc`` / ``dec`` = line) or the add-a-card form, else ``None``."""
    for key, delta in (("inc", 1), ("dec", -1)):
        if request.args.get(key, "").isdigit():
            return adjust_line(text, int(request.args[key]), delta)
    name = request.args.get("add", "").strip()
    if name:
        count = request.args.get("add_count", "1")
        section = request.args.get("add_section", "main")
        return add_card(text, name, int(count) if count.isdigit() else 1, section)
    return None


def _remember(text: str, game: str, format_code: str | None) -> None:
    if len(text.encode()) <= MAX_SESSION_BYTES:
        web_session[WORKING_DECK] = {"list": text, "game": game, "format": format_code or ""}


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


@bp.route("/decks")
def check() -> Any:
    if request.args.get("clear"):
        web_session.pop(WORKING_DECK, None)
        return redirect(url_for("decks.check"))
    text, game, format_code, turns = _params()
    edited = _edited(text)
    if edited is not None:  # back to the canonical URL of the edited deck
        query: dict[str, Any] = {"game": game or "", "format": format_code or "", "turns": turns, "list": edited}
        return redirect(url_for("decks.check", **{k: v for k, v in query.items() if v}) + "#deck-list-heading")
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
    from catalog.images import decks as deckimages  # Pillow: only drawing pays for it (issue 17)

    text, game, format_code, _turns = _params()
    result, problems = _run(text, game, format_code)
    if result is None:
        abort(400, "; ".join(problems) or _("卡组是空的"))
    missing = deckimages.unresolved(result.verdict)
    if missing or not result.deck.entries:
        abort(400, "; ".join(missing) or _("卡组是空的"))
    return result


def _download(data: bytes, mimetype: str, filename: str) -> Response:
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename={filename}"
    return response


@bp.route("/decks/image.png")
def deck_image() -> Response:
    """The checked deck as a PNG to share (grid of card images, counts, legality badge)."""
    from catalog.images import decks as deckimages  # Pillow: only drawing pays for it (issue 17)

    data, _rows = deckimages.deck_image_of(
        session=get_session(), check=_drawable(), scan_dir=scan_dir(), cache_dir=cache_dir()
    )
    return _download(data, "image/png", "deck.png")


@bp.route("/decks/proxies.pdf")
def proxies() -> Response:
    """Every copy of the checked deck on A4 proxy sheets (3×3 cards of 63×88 mm, cut marks);
    ``no_basics=1`` leaves out the game's basic cards (永恒之轮: basic 法力石)."""
    from catalog.images import proxies as proxysheets  # Pillow: only drawing pays for it (issue 17)

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
        player=request.args.get("player", ""),
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

"""轮藏 Lunzang web application: the app factory (flaskr / Microblog pattern).

Importing the package costs nothing beyond Flask: ``lunzang`` (``webapp.__main__``)
is in it, and ``lunzang --help`` builds no app, so what the app needs — the extensions, the
models, the blueprints, the games — is imported when :func:`create_app` runs.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, request

LANGUAGES = {"zh": "简体中文", "en": "English"}


def select_locale() -> str:
    chosen = request.args.get("lang") or request.cookies.get("lang")
    return chosen if chosen in LANGUAGES else "zh"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The app: settings (:mod:`webapp.config`), extensions, every blueprint, the commands, the
    error pages (:mod:`webapp.errors`)."""
    from flask_babel import Babel, get_locale

    from webapp import assets, errors, health, security, timezones, validation, wording

    app = _new_app()
    app.json.ensure_ascii = False  # type: ignore[attr-defined]  # Chinese readable in the API, not \uXXXX
    _settings_and_database(app, test_config)
    security.init_app(app)
    assets.init_app(app)
    validation.init_app(app)
    health.init_app(app)
    Babel(app, locale_selector=select_locale)
    from webapp.auth.setup import init_auth

    init_auth(app)
    timezones.init_app(app)
    wording.init_app(app)

    from webapp import admin, api, auth, boosters, cards, collection, curation, decks, events, images, trading
    from webapp.collection import wants
    from webapp.extensions import csrf

    for area in (cards, images, decks, boosters, collection, wants, trading, events, curation, admin, api, auth):
        app.register_blueprint(area.blueprint())
    csrf.exempt(api.bp)  # the API authenticates writes by bearer token, not by cookie (DESIGN §8)

    from webapp import answers, cli

    answers.init_app(app)
    cli.register(app)
    errors.init_app(app)

    app.add_template_global(wording.game_name)
    app.add_template_global(term)
    app.add_template_global(attribute_word)
    app.add_template_global(format_name)
    app.add_template_global(ui_locale)

    @app.context_processor
    def inject_globals() -> dict[str, Any]:
        return {"languages": LANGUAGES, "current_locale": str(get_locale())}

    @app.after_request
    def remember_language(response: Any) -> Any:
        chosen = request.args.get("lang")
        if chosen in LANGUAGES:
            response.set_cookie("lang", chosen, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
        return response

    return app


def create_settings_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The app's settings and its database, nothing else: the part of :func:`create_app` a
    command that only reads and writes the database needs (``lunzang search``, ``lunzang deck
    check``: :func:`webapp.cli_index.with_settings`). No extension, blueprint, page or error
    page is imported or set up — most of a command's start. The settings are the
    full app's, read the same way from the same instance folder, refused the same way; what
    only an extension checks as it is set up (the rate limiter's storage URI and strategy) is
    not checked here, so such a command does not fail on a limiter it does not use."""
    app = _new_app()
    _settings_and_database(app, test_config)
    return app


def _new_app() -> Flask:
    from webapp.config import ROOT

    return Flask(__name__, instance_relative_config=True, static_folder=str(ROOT / "static"))


def _settings_and_database(app: Flask, test_config: dict[str, Any] | None) -> None:
    from webapp import config, db

    config.load(app, test_config)
    db.init_app(app)


def ui_locale() -> str:
    """The page's language code (``zh`` or ``en``), for macros imported without context."""
    from flask_babel import get_locale

    return str(get_locale())


def format_name(game: Any, name: str) -> str:
    """A format's name (as its catalogue writes it) in the reader's language: the game's English
    name for it on English pages (标准 → Standard), else as written."""
    from catalog.games import GAMES

    module = GAMES.get(game if isinstance(game, str) else getattr(game, "slug", ""))
    return module.format_name(name, ui_locale()) if module is not None else name


def term(game: Any, kind: str, word: str | None) -> str:
    """A game word (kind ``types``, ``attributes`` or ``houses``) in the reader's language: English in
    English (``战魂`` → Soul, as search accepts ``t:soul``); card data stays as written."""
    from catalog.games import GAMES

    module = GAMES.get(game if isinstance(game, str) else getattr(game, "slug", ""))
    vocabulary = getattr(module, kind, None)  # ``houses``: KeyForge's only (as search reads it)
    if kind == "houses" and word and "|" in word:  # a multi-house card: every house
        return "、".join(term(game, kind, house) for house in word.split("|"))
    if not word or ui_locale() != "en" or vocabulary is None:
        return word or ""
    return str(vocabulary.english_name(word))


def attribute_word(char: str, game: Any = None) -> str:
    """An attribute or colour of a card (``火``) in the reader's language: English in English
    (Fire). Without ``game``, the one game whose canonical attribute ``char`` is (their
    characters differ: 火水风地光暗无, 白藍黑紅綠); as written when none or several are."""
    from catalog.games import GAMES

    if ui_locale() != "en":
        return char
    if game is not None:
        return term(game, "attributes", char)
    owners = [module for module in GAMES.values() if char in module.attributes.canonical]
    return term(owners[0], "attributes", char) if len(owners) == 1 else char

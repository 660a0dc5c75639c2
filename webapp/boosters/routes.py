"""Thin views: parse the query string, call catalog.boosters, render.

Every page is a GET (nothing is written): an opening's URL carries its seed, so the address
bar is the replay link. A request without a seed is redirected to one with a fresh seed.
The one write: a signed-in user's "加入我的收藏" form re-opens the same set, seed and count
(deterministic) and adds the cards once (:func:`catalog.collection.openings.add_opening_once`
refuses a second add of the same set and seed, so a double-click adds nothing more).
"""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import boosters
from catalog.collection.openings import OpeningAlreadyAdded, add_opening_once, opening_added
from catalog.games import GAMES
from webapp.answers import alike, cached
from webapp.boosters import bp
from webapp.boosters.charts import histogram_svg
from webapp.db import get_session
from webapp.helpers import utcnow

# The web is gentler than the CLI: completion runs inside a request.
WEB_MAX_TRIALS = 20_000
WEB_DEFAULT_TRIALS = 2_000


@bp.errorhandler(boosters.BoosterError)
def booster_error(error: boosters.BoosterError) -> Any:
    missing = isinstance(error, boosters.UnknownSet | boosters.UnknownGame)
    message = error.message.en if str(get_locale()) == "en" else error.message.zh
    return render_template("error.html", title=_("无法开包"), message=message), 404 if missing else 400


def _arg(name: str, zh: str, en: str, error: type[boosters.BoosterError] = boosters.BadCount) -> int | None:
    return boosters.parse_int(request.args.get(name), what_zh=zh, what_en=en, error=error)


def _module(slug: str) -> Any:
    module = GAMES.get(slug)
    if module is None:
        raise boosters.UnknownGame.from_text(f"没有这个游戏：{slug}", f"unknown game {slug!r}")
    return module


@bp.route("/")
def index() -> str:
    sets = boosters.model.booster_sets(get_session())
    return render_template("packs/index.html", sets=sets, games=GAMES, max_boxes=boosters.MAX_BOXES)


@bp.route("/open")
def open_form() -> Any:
    """The choose-a-set form: ``set=game:CODE`` and one of the three buttons → the opening URL."""
    game, _sep, code = (request.args.get("set") or "").partition(":")
    if not code:
        raise boosters.UnknownSet.from_text("请选择一个系列", "choose a set")
    what = request.args.get("open", "box")
    if what == "pack":
        amount: dict[str, Any] = {"packs": 1}
    elif what == "boxes":
        amount = {"boxes": _arg("n", "盒数", "boxes") or 0}
    else:
        amount = {"boxes": 1}
    seed = boosters.check_seed(_arg("seed", "种子", "the seed", boosters.BadSeed))  # none → a fresh one
    return redirect(url_for("packs.opening", game_slug=game, code=code, seed=seed, **amount))


@bp.route("/<game_slug>/<code>/open")
def opening(game_slug: str, code: str) -> Any:
    packs = _arg("packs", "包数", "packs")
    boxes = _arg("boxes", "盒数", "boxes")
    if packs is None and boxes is None:
        boxes = 1
    seed = _arg("seed", "种子", "the seed", boosters.BadSeed)
    boosters.model.check_counts(packs=packs, boxes=boxes)
    if seed is None:
        fresh = boosters.check_seed(None)
        amount = {"packs": packs} if packs is not None else {"boxes": boxes}
        return redirect(url_for("packs.opening", game_slug=game_slug, code=code, seed=fresh, **amount))
    result = boosters.open_packs(
        session=get_session(), set_code=code, game=game_slug, packs=packs, boxes=boxes, seed=seed
    )
    amount = {"packs": packs} if packs is not None else {"boxes": boxes}
    replay = url_for(
        "packs.opening", game_slug=game_slug, code=result.model.set_code, seed=seed, _external=True, **amount
    )
    added = current_user.is_authenticated and opening_added(
        session=get_session(), user_id=current_user.id, opening=result
    )
    return render_template(
        "packs/open.html",
        opening=result,
        module=_module(result.model.game),
        replay=replay,
        packs=packs,
        boxes=boxes,
        best=result.best_pulls(limit=24),
        added=added,
    )


@bp.post("/<game_slug>/<code>/open/collection")
@login_required
def add_to_collection(game_slug: str, code: str) -> Any:
    """Re-open the set with the form's seed and count and add the cards to the collection, once."""

    def field(name: str, zh: str, en: str, error: type[boosters.BoosterError] = boosters.BadCount) -> int | None:
        return boosters.parse_int(request.form.get(name), what_zh=zh, what_en=en, error=error)

    packs = field("packs", "包数", "packs")
    boxes = field("boxes", "盒数", "boxes")
    seed = field("seed", "种子", "the seed", boosters.BadSeed)
    if seed is None:
        raise boosters.BadSeed.from_text("缺少种子：请从开包结果页提交", "the seed is missing")
    if packs is None and boxes is None:
        boxes = 1
    boosters.model.check_counts(packs=packs, boxes=boxes)
    session = get_session()
    result = boosters.open_packs(session=session, set_code=code, game=game_slug, packs=packs, boxes=boxes, seed=seed)
    amount = {"packs": packs} if packs is not None else {"boxes": boxes}
    back = url_for("packs.opening", game_slug=game_slug, code=result.model.set_code, seed=seed, **amount)
    try:
        add_opening_once(session=session, user_id=current_user.id, opening=result, now=utcnow())
    except OpeningAlreadyAdded as error:
        flash(error.message.en if str(get_locale()) == "en" else error.message.zh, "error")
        return redirect(back)
    count = len(result.all_cards())
    flash(ngettext("已把 %(num)d 张卡加入你的收藏。", "已把 %(num)d 张卡加入你的收藏。", count))
    return redirect(back)


@bp.route("/<game_slug>/<code>/odds")
@cached(everyone=alike)
def odds(game_slug: str, code: str) -> str:
    n_boxes = _arg("boxes", "盒数", "boxes") or 3
    boosters.model.check_counts(packs=None, boxes=n_boxes)
    model = boosters.load_pack_model(session=get_session(), set_code=code, game=game_slug)
    return render_template(
        "packs/odds.html", odds=boosters.pack_odds(model, n_boxes=n_boxes), module=_module(model.game)
    )


@bp.route("/<game_slug>/<code>/complete")
def complete(game_slug: str, code: str) -> Any:
    trials = _arg("trials", "模拟次数", "trials") or WEB_DEFAULT_TRIALS
    if not 1 <= trials <= WEB_MAX_TRIALS:
        raise boosters.BadCount.from_text(
            f"网页上的模拟次数应在 1 到 {WEB_MAX_TRIALS} 之间（命令行可以更多）",
            f"trials must be between 1 and {WEB_MAX_TRIALS} on the web (the CLI allows more)",
        )
    seed = _arg("seed", "种子", "the seed", boosters.BadSeed)
    model = boosters.load_pack_model(session=get_session(), set_code=code, game=game_slug)
    mine = request.args.get("mine") == "1" and current_user.is_authenticated
    if seed is None:
        fresh = boosters.check_seed(None)
        again: dict[str, Any] = {"trials": trials, "seed": fresh, **({"mine": 1} if mine else {})}
        return redirect(url_for("packs.complete", game_slug=game_slug, code=model.set_code, **again))
    owned = None
    if mine:  # how many more boxes, given what I own (every grade counts)
        from catalog.collection.reads import owned_counts

        ids = [p.id for p in model.printings]
        have = owned_counts(session=get_session(), user_id=int(current_user.id), printing_ids=ids)
        owned = tuple(have.get(i, 0) for i in ids)
    result = boosters.complete_set(model, trials=trials, seed=seed, owned=owned)
    return render_template(
        "packs/complete.html",
        result=result,
        module=_module(model.game),
        charts={
            "complete": histogram_svg(result.complete.histogram, label=_("集齐")),
            "playset": histogram_svg(result.playset.histogram, label=_("满编")),
        },
        max_trials=WEB_MAX_TRIALS,
        mine=mine,
    )

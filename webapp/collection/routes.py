"""My collection (``GET /collection``) and the item forms every page posts to.

``POST /collection/items`` is the one form route for +1/−1 and "add to collection" from
anywhere (card pages, search results, the collection itself). Contract:

- ``printing_id`` (int) **or** ``set`` + ``number`` (+ optional ``game``);
- ``delta`` (int, e.g. 1 or -1); optional ``condition``, ``language``, ``finish`` (any alias;
  defaults NM / 简中 / 普通); optional ``next``: a local path to go back to (else /collection);
- the CSRF token (the app-wide CSRFProtect checks it).

Success: a flash "已加入收藏：名称 ×n" / "已移出收藏：名称 ×n" and 303 to ``next``. An error
(quantity would go below zero, unknown printing, bad grade or delta): the message flashed, 303
to ``next``, nothing changed. With ``Accept: application/json`` or an ``X-Requested-With``
header the answer is JSON instead: ``{"item": {…}, "message": …}`` 200, or
``{"error": {"code", "message"}}`` with 400/404/409 (for a later JS enhancement).
``POST /collection/items/trade`` (``for_trade``) and ``POST /collection/items/note`` (``note``)
take the same item fields.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from flask import flash, jsonify, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf.csrf import generate_csrf

from catalog.collection import reads
from catalog.collection.grades import (
    CONDITION_NAMES,
    CONDITIONS,
    FINISHES,
    GRADE_NAMES,
    LANGUAGES,
    ItemGrade,
)
from catalog.collection.items import ItemResult
from catalog.collection.ledger import set_note
from catalog.collection.listing import filter_key_of
from catalog.collection.manual import change_printing, printing_info, trade_printing
from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.lookup import UnknownPrinting, find_printing
from catalog.numbers import INT32, BadNumber, parse_int
from catalog.search import QueryError, printing_ids_matching
from webapp.collection import bp
from webapp.collection.rows import row_text, row_views, table_rows
from webapp.db import get_session
from webapp.helpers import localized, mark_error, safe_next, utcnow
from webapp.refusal import answers_refusal
from webapp.shapes.collection import CollectionItem

PER_PAGE = 50
SORTS = ("set", "name")
MAX_PAGE = 100_000


class BadForm(LunzangError):
    code = "bad_request"


def wants_json() -> bool:
    """A script (fetch with X-Requested-With, or asking for JSON) rather than a plain form post."""
    return "X-Requested-With" in request.headers or request.accept_mimetypes.best == "application/json"


@bp.app_template_global()
def grade_choices() -> dict[str, list[tuple[str, str]]]:
    """The grade vocabularies for the selects: (stored value, label)."""
    english = str(get_locale()) == "en"
    conditions = [(c, f"{c} · {CONDITION_NAMES[c].en if english else CONDITION_NAMES[c].zh}") for c in CONDITIONS]
    return {
        "condition": conditions,
        "language": [(code, grade_label(code, "language")) for code in LANGUAGES],
        "finish": [(code, grade_label(code, "finish")) for code in FINISHES],
    }


@bp.app_template_filter()
def grade_label(value: str, kind: str) -> str:
    """A stored grade as the reader's language shows it: the value itself in Chinese (简中, 闪,
    NM — what the CSV files hold), its English name in English; conditions stay codes."""
    names = GRADE_NAMES.get(kind, {})
    if kind == "condition" or value not in names:
        return value
    if str(get_locale()) == "en":
        return names[value].en
    return names[value].zh if kind == "finish" else value


# ---------------------------------------------------------------------------- my collection


@dataclass(frozen=True)
class CollectionState:
    """What the URL of the collection page says; every link on the page is built from it."""

    q: str = ""
    game: str = ""
    set: str = ""
    sort: str = "set"
    trade: bool = False
    page: int = 1

    def url(self, **changes: Any) -> str:
        state = replace(self, **changes)
        params: dict[str, Any] = {
            "q": state.q,
            "game": state.game,
            "set": state.set,
            "sort": state.sort if state.sort != "set" else "",
            "trade": "1" if state.trade else "",
            "page": state.page if state.page != 1 else "",
        }
        return url_for("collection.index", **{k: v for k, v in params.items() if v})


def _state_from_args() -> CollectionState:
    args = request.args
    raw_page = args.get("page", "")
    return CollectionState(
        q=args.get("q", ""),
        game=args.get("game", "") if args.get("game") in GAMES else "",
        set=args.get("set", "").strip(),
        sort=args.get("sort", "") if args.get("sort") in SORTS else "set",
        trade=args.get("trade") == "1",
        page=int(raw_page) if raw_page.isdigit() and 1 <= int(raw_page) <= MAX_PAGE else 1,
    )


def page_numbers(page: int, pages: int) -> list[int | None]:
    """Page numbers to link: the first, the last and two either side of the current; None is a gap."""
    shown = sorted({1, pages, *range(page - 2, page + 3)} & set(range(1, pages + 1)))
    out: list[int | None] = []
    for number in shown:
        if out and number - (out[-1] or 0) > 1:
            out.append(None)
        out.append(number)
    return out


@bp.get("")
@login_required
def index() -> Any:
    state = _state_from_args()
    session = get_session()
    user_id = current_user.id
    filters: dict[str, Any] = {"set_code": state.set or None, "game": state.game or None}
    error = None
    listing = None
    if state.q.strip():
        try:
            filters["printing_ids"] = printing_ids_matching(
                session=session, text=state.q, user_id=user_id, game=state.game or None
            )
            filters["filter_key"] = filter_key_of(state.q, state.game)
        except QueryError as failure:
            error = failure
    if error is None:
        listing = reads.collection_page(
            session=session,
            user_id=user_id,
            for_trade_only=state.trade,
            page=state.page,
            per_page=PER_PAGE,
            order=state.sort,
            **filters,
        )
    pages = max(1, -(-listing.total // PER_PAGE)) if listing else 1
    body = render_template(
        "collection/index.html",
        state=state,
        listing=listing,
        pages=pages,
        page_numbers=page_numbers(state.page, pages),
        page_link=lambda number: state.url(page=number),
        rows_html=(
            table_rows(row_views(listing, grade_label), row_text(), generate_csrf(), request.full_path.rstrip("?"))
            if listing and listing.items
            else ""
        ),
        totals=reads.totals(session=session, user_id=user_id, version=listing.collection_version if listing else None),
        games=GAMES,
        error=error,
        marked=mark_error(state.q, error, state.game) if error else None,
    )
    return body, (400 if error else 200)


# ---------------------------------------------------------------------------- the item forms


def _form_int(name: str, message: Message) -> int:
    """A whole number of the form: ASCII digits within an integer column (``int()`` took ``1_0``
    and ``１``), else ``message``."""
    try:
        return parse_int(request.form.get(name, ""), field=name, low=-INT32)
    except BadNumber:
        raise BadForm(message) from None


def _form_printing() -> int:
    """The printing the form names: ``printing_id``, else ``set`` + ``number`` (+ ``game``)."""
    form = request.form
    if form.get("printing_id", "").strip():
        return _form_int("printing_id", Message("printing_id 必须是整数", "printing_id must be a whole number"))
    set_code, number = form.get("set", "").strip(), form.get("number", "").strip()
    if not set_code or not number:
        raise BadForm(Message("请给出 printing_id，或系列和编号", "give printing_id, or set and number"))
    game = form.get("game", "").strip() or None
    return find_printing(session=get_session(), set_code=set_code, number=number, game=game).id


def _form_grade() -> ItemGrade:
    form = request.form
    return ItemGrade.parse(form.get("condition"), form.get("language"), form.get("finish"))


def _back() -> str:
    return safe_next(request.form.get("next")) or url_for("collection.index")


def _answer(result: ItemResult | None, message: str, error: LunzangError | None = None) -> Any:
    """JSON for scripts; else the flash and a 303 back to ``next``."""
    if wants_json():
        if error is not None:
            body = {"error": {"code": error.code, "message": localized(error), "message_en": error.message.en}}
            return jsonify(body), error.status
        assert result is not None
        # the page's item, as the API's without the rarity
        return jsonify({"item": CollectionItem.changed(result).body(leave_out={"rarity"}), "message": message})
    flash(message, "error" if error is not None else "message")
    return redirect(_back(), code=303)


def _refused(error: LunzangError) -> Any:
    """The answer to a refused change (:mod:`webapp.refusal`: nothing of it is written, not even
    an item row a failed change inserted): JSON for scripts, else the flash and back."""
    return _answer(None, localized(error), error)


def _label(result: ItemResult) -> str:
    printing = result.printing
    return f"{printing.name}（{printing.set.code} {printing.number}）"


@bp.post("/items")
@login_required
@answers_refusal(_refused)
def change_item() -> Any:
    delta = _form_int("delta", Message("数量变化必须是整数", "delta must be a whole number"))
    result = change_printing(
        session=get_session(),
        user_id=current_user.id,
        printing_id=_form_printing(),
        delta=delta,
        grade=_form_grade(),
        now=utcnow(),
    )
    if delta > 0:
        message = _("已加入收藏：%(name)s ×%(count)d", name=_label(result), count=delta)
    elif delta < 0:
        message = _("已移出收藏：%(name)s ×%(count)d", name=_label(result), count=-delta)
    else:
        message = _("收藏未变：%(name)s", name=_label(result))
    return _answer(result, message)


@bp.post("/items/trade")
@login_required
@answers_refusal(_refused)
def change_trade() -> Any:
    for_trade = _form_int("for_trade", Message("可交换数量必须是整数", "for_trade must be a whole number"))
    result = trade_printing(
        session=get_session(),
        user_id=current_user.id,
        printing_id=_form_printing(),
        for_trade=for_trade,
        grade=_form_grade(),
        now=utcnow(),
    )
    message = _("可交换数量已设为 %(count)d：%(name)s", count=result.change.for_trade_after, name=_label(result))
    return _answer(result, message)


@bp.post("/items/note")
@login_required
@answers_refusal(_refused)
def change_note() -> Any:
    session = get_session()
    printing = printing_info(session=session, printing_id=_form_printing())
    grade = _form_grade()
    note = request.form.get("note", "")
    if len(note.strip()) > 500:
        raise BadForm(Message("备注最多 500 个字", "a note holds at most 500 characters"))
    if not set_note(
        session=session, user_id=current_user.id, printing_id=printing.id, grade=grade, note=note, now=utcnow()
    ):
        raise UnknownPrinting(
            Message("你的收藏里没有这一项，无法添加备注", "this item is not in your collection"), "printing_id"
        )
    label = f"{printing.name}（{printing.set.code} {printing.number}）"
    message = _("备注已保存：%(name)s", name=label)
    if wants_json():
        return jsonify({"message": message, "note": note.strip()[:500]})
    flash(message)
    return redirect(_back(), code=303)

"""Set completion (``/collection/sets``) and the set checklist (``/collection/sets/<game>/<code>``).

The checklist is a form of number fields, one per printing in collector-number order, holding
the quantity owned in one grade (NM / 简中 / 普通 unless the grade selector says otherwise).
Each field travels with the quantity the page showed (``was-<id>``), so one submit applies
only what the user changed, as ledgered deltas in one transaction
(:func:`catalog.collection.manual.apply_checklist`). Bad numbers (negative, not whole,
> 9999) come back at their fields with nothing written.
"""

from __future__ import annotations

import re
from typing import Any

from flask import abort, render_template, request
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import browse
from catalog.collection import reads
from catalog.collection.grades import BadGrade, ItemGrade
from catalog.collection.manual import MAX_CHECKLIST_QUANTITY, apply_checklist, set_quantities
from catalog.games import GAMES
from webapp.collection import bp
from webapp.db import get_session
from webapp.helpers import localized, utcnow

WHOLE_NUMBER = re.compile(r"\d{1,9}")


@bp.get("/sets")
@login_required
def sets() -> Any:
    game = request.args.get("game", "")
    game = game if game in GAMES else ""
    started = request.args.get("started") == "1"
    completion = reads.set_completion(
        session=get_session(), user_id=current_user.id, game=game or None, only_started=started
    )
    groups: dict[str, list[reads.SetCompletion]] = {}
    for entry in completion:
        groups.setdefault(entry.game, []).append(entry)
    return render_template("collection/sets.html", groups=groups, games=GAMES, game=game, started=started)


def _grade(values: Any) -> tuple[ItemGrade, str | None]:
    """The grade the page shows (query string or form), and an error if a word is unknown."""
    try:
        return ItemGrade.parse(values.get("condition"), values.get("language"), values.get("finish")), None
    except BadGrade as error:
        return ItemGrade(), localized(error)


@bp.route("/sets/<game_slug>/<code>", methods=["GET", "POST"])
@login_required
def checklist(game_slug: str, code: str) -> Any:
    session = get_session()
    module = GAMES.get(game_slug)
    game = browse.get_game_row(session, game_slug) if module else None
    page = browse.set_page(session, game, code) if game is not None else None
    if game is None or module is None or page is None:
        abort(404, _("没有这个系列：%(game)s %(code)s", game=game_slug, code=code))
    card_set = page.card_set
    assert card_set.id is not None
    user_id = current_user.id
    posted = request.method == "POST"
    grade, grade_error = _grade(request.form if posted else request.args)
    errors: dict[int, str] = {}
    typed: dict[int, str] = {}
    changes = None
    status = 200
    if posted and grade_error is None:
        entries: dict[int, tuple[int, int]] = {}
        shown = set_quantities(session=session, user_id=user_id, set_id=card_set.id, grade=grade)
        for printing, _card in page.rows:
            pid = printing.id or 0
            raw = request.form.get(f"q-{pid}")
            if raw is None:
                continue
            text = raw.strip()
            typed[pid] = raw
            if text and not WHOLE_NUMBER.fullmatch(text):
                errors[pid] = _("请填写 0 到 %(max)d 之间的整数", max=MAX_CHECKLIST_QUANTITY)
                continue
            quantity = int(text or "0")
            if quantity > MAX_CHECKLIST_QUANTITY:
                errors[pid] = _("不能超过 %(max)d 张", max=MAX_CHECKLIST_QUANTITY)
                continue
            was_text = request.form.get(f"was-{pid}", "").strip()
            was = int(was_text) if WHOLE_NUMBER.fullmatch(was_text) else shown.get(pid, 0)
            entries[pid] = (was, quantity)
        if errors:
            status = 400
        else:
            result = apply_checklist(session=session, user_id=user_id, grade=grade, entries=entries, now=utcnow())
            if result.conflicts:
                status = 409
                for pid, now_owned in result.conflicts.items():
                    errors[pid] = _("打开此页后，这一项的数量已变为 %(count)d：请核对后再保存", count=now_owned)
            else:
                changes = result.changes
                typed = {}
    elif posted:
        status = 400
    quantities = set_quantities(session=session, user_id=user_id, set_id=card_set.id, grade=grade)
    completion = next(
        (s for s in reads.set_completion(session=session, user_id=user_id, game=game_slug) if s.code == card_set.code),
        None,
    )
    by_id = {printing.id: (printing, card) for printing, card in page.rows}
    body = render_template(
        "collection/checklist.html",
        game=game,
        module=module,
        page=page,
        card_set=card_set,
        grade=grade,
        grade_error=grade_error,
        quantities=quantities,
        typed=typed,
        errors=errors,
        changes=changes,
        by_id=by_id,
        completion=completion,
        max_quantity=MAX_CHECKLIST_QUANTITY,
    )
    return body, status

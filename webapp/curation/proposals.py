"""Thin views over catalog.curation.proposals: a signed-in player proposes a correction to a card
or a printing, or a new printing in a set, with a source (a text reference and/or a photo that
goes through the scan checks); curators review the queue (diff, approve, edit then approve,
reject with a reason); the proposer follows the state on their account page. A refused proposal
shows the form again with its message and the player's cells, and stores nothing in the tables
(a photo's files, named by content, may stay in the scan store as every refused scan's do not:
they are written only once every check has passed)."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import curation
from catalog.curation import proposals
from catalog.curation.create import new_printing_columns
from catalog.errors import LunzangError
from catalog.games import get_game
from catalog.models import Card, CardSet, CatalogueProposal, Game, Printing, PrintingScan
from webapp.curation import bp
from webapp.curation.routes import _card_or_404, _message, _printing_or_404, _require_curator
from webapp.db import get_session
from webapp.helpers import scan_dir, utcnow
from webapp.refusal import on_refusal


def _photo() -> proposals.Scan | None:
    """The uploaded photo, checked and stored by content hash; None when none was sent."""
    upload = request.files.get("photo")
    if upload is None or not upload.filename:
        return None
    from catalog.images import scans  # Pillow: only an upload pays for it

    stored = scans.store_upload(data=scans.read_limited(upload.stream), store_dir=scan_dir())
    return proposals.Scan(stored.sha256, stored.width, stored.height)


def _scanless(printing_ids: list[int]) -> set[int]:
    session = get_session()
    return {pid for pid in printing_ids if session.get(PrintingScan, pid) is None}


def _form(target: dict[str, Any], cells: dict[str, str], status: int = 200, **extra: Any) -> Any:
    return render_template("curation/propose.html", cells=cells, **target, **extra), status


def _card_target(card_id: int) -> dict[str, Any]:
    card, game = _card_or_404(card_id)
    module = get_game(game.slug)
    assert module is not None
    printings = curation.printings_of(get_session(), card.id)
    free = _scanless([p.id for _s, p in printings if p.id is not None])
    return {
        "kind": "card",
        "game": game,
        "module": module,
        "title": card.name,
        "columns": curation.card_columns(module),
        "action": url_for("curation.propose_card", card_id=card_id),
        "back": url_for("cards.card_detail", game_slug=game.slug, name=card.name),
        "scan_choices": [(p.id, f"{s.code} {p.number}") for s, p in printings if p.id in free],
    }


def _printing_target(printing_id: int) -> dict[str, Any]:
    printing, card_set, card, game = _printing_or_404(printing_id)
    module = get_game(game.slug)
    assert module is not None and printing.id is not None
    label = f"{card_set.code} {printing.number}"
    return {
        "kind": "printing",
        "game": game,
        "module": module,
        "title": f"{card.name} · {label}",
        "columns": curation.PRINTING_COLUMNS,
        "action": url_for("curation.propose_printing", printing_id=printing_id),
        "back": url_for(
            "cards.card_detail", game_slug=game.slug, name=card.name, set=card_set.code, number=printing.number
        ),
        "scan_choices": [(printing.id, label)] if _scanless([printing.id]) else [],
    }


def _set_target(set_id: int) -> dict[str, Any]:
    session = get_session()
    card_set = session.get(CardSet, set_id)
    game = session.get(Game, card_set.game_id) if card_set else None
    module = get_game(game.slug) if game else None
    if card_set is None or game is None or module is None:
        abort(404, _("没有这个系列"))
    return {
        "kind": "new_printing",
        "game": game,
        "module": module,
        "title": f"{card_set.code} {card_set.name}",
        "columns": new_printing_columns(session, card_set),
        "action": url_for("curation.propose_new", set_id=set_id),
        "back": url_for("cards.set_detail", game_slug=game.slug, code=card_set.code),
        "scan_choices": [(proposals.NEW_PRINTING, _("新增的这张印刷"))],
    }


def _submit(target: dict[str, Any], target_id: int) -> Any:
    cells = {column: request.form.get(column, "") for column in target["columns"] if column in request.form}
    source = request.form.get("source", "")
    raw_target = request.form.get("scan_printing", "")
    session = get_session()

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        return _form(target, {**target.get("current", {}), **cells}, error.status, source=source)

    on_refusal(refused)
    scan_printing = int(raw_target) if raw_target.lstrip("-").isdigit() and len(raw_target) < 10 else None
    scan = _photo()
    proposal = proposals.propose(
        session=session,
        by=current_user,
        kind=target["kind"],
        target_id=target_id,
        cells=cells,
        source=source,
        scan=scan,
        scan_printing_id=scan_printing,
        now=utcnow(),
    )
    flash(_("已提交提案 #%(id)s，等待目录编辑审核。", id=proposal.id))
    return redirect(url_for("curation.proposal", proposal_id=proposal.id))


@bp.route("/card/<int:card_id>/propose", methods=["GET", "POST"])
@login_required
def propose_card(card_id: int) -> Any:
    target = _card_target(card_id)
    card, _game = _card_or_404(card_id)
    try:
        target["current"] = curation.card_cells(get_session(), card)
    except LunzangError as error:
        flash(_message(error), "error")
        return redirect(target["back"])
    if request.method == "POST":
        return _submit(target, card_id)
    return _form(target, target["current"], source="")


@bp.route("/printing/<int:printing_id>/propose", methods=["GET", "POST"])
@login_required
def propose_printing(printing_id: int) -> Any:
    target = _printing_target(printing_id)
    printing = get_session().get(Printing, printing_id)
    assert printing is not None
    target["current"] = curation.printing_cells(get_session(), printing)
    if request.method == "POST":
        return _submit(target, printing_id)
    return _form(target, target["current"], source="")


@bp.route("/sets/<int:set_id>/propose", methods=["GET", "POST"])
@login_required
def propose_new(set_id: int) -> Any:
    target = _set_target(set_id)
    if request.method == "POST":
        return _submit(target, set_id)
    return _form(target, {}, source="")


@bp.get("/proposals")
@login_required
def queue() -> Any:
    _require_curator()
    session = get_session()
    return render_template("curation/queue.html", lines=proposals.queue(session), limit=proposals.QUEUE_LIMIT)


def _visible(proposal_id: int) -> proposals.ProposalLine:
    found = proposals.line(get_session(), proposal_id)
    if found is None:
        abort(404, _("没有这个提案"))
    if not curation.can_curate(current_user) and found.proposal.user_id != current_user.id:
        abort(404, _("没有这个提案"))  # someone else's proposal: as if it did not exist
    return found


def _proposal_page(proposal_id: int, status: int = 200, cells: dict[str, str] | None = None) -> Any:
    found = _visible(proposal_id)
    proposal = found.proposal
    session = get_session()
    game = session.get(Game, proposal.game_id)
    module = get_game(game.slug) if game else None
    assert game is not None and module is not None
    card = _card_of(proposal)
    page = render_template(
        "curation/proposal.html",
        line=found,
        proposal=proposal,
        game=game,
        module=module,
        card=card,
        diff=proposals.diff(session, proposal),
        cells=cells or {},
        can_curate=curation.can_curate(current_user),
    )
    return page, status


def _card_of(proposal: CatalogueProposal) -> Card | None:
    session = get_session()
    if proposal.kind == "card":
        return session.get(Card, proposal.target_id)
    if proposal.kind == "printing":
        printing = session.get(Printing, proposal.target_id)
        return session.get(Card, printing.card_id) if printing else None
    return None


@bp.get("/proposals/<int:proposal_id>")
@login_required
def proposal(proposal_id: int) -> Any:
    return _proposal_page(proposal_id)


@bp.get("/proposals/<int:proposal_id>/photo")
@login_required
def proposal_photo(proposal_id: int) -> Any:
    from catalog.images import scans  # Pillow: only the photo pays for it

    found = _visible(proposal_id)
    sha = found.proposal.scan_sha256
    data = scans.read_scan(scan_dir(), sha, "normal", "webp") if sha else None
    if data is None:
        abort(404, _("这个提案没有照片"))
    return data, 200, {"Content-Type": "image/webp", "Cache-Control": "private, max-age=86400"}


@bp.post("/proposals/<int:proposal_id>/approve")
@login_required
def approve(proposal_id: int) -> Any:
    _require_curator()
    found = _visible(proposal_id)
    cells = {column: request.form[column] for column in found.proposal.cells if column in request.form}
    session = get_session()

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        return _proposal_page(proposal_id, error.status, cells)

    on_refusal(refused)
    revision = proposals.approve(
        session=session,
        by=current_user,
        proposal_id=proposal_id,
        cells=cells or None,
        note=request.form.get("note", ""),
        now=utcnow(),
    )
    flash(_("已采纳提案 #%(id)s（修订 #%(rev)s）。", id=proposal_id, rev=revision.id))
    return redirect(url_for("curation.queue"))


@bp.post("/proposals/<int:proposal_id>/reject")
@login_required
def reject(proposal_id: int) -> Any:
    _require_curator()
    _visible(proposal_id)
    session = get_session()

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        return _proposal_page(proposal_id, error.status)

    on_refusal(refused)
    reason = request.form.get("reason", "")
    proposals.reject(session=session, by=current_user, proposal_id=proposal_id, reason=reason, now=utcnow())
    flash(_("已拒绝提案 #%(id)s。", id=proposal_id))
    return redirect(url_for("curation.queue"))

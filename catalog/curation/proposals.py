"""Everyone can propose: a signed-in player proposes a correction to a card or
a printing, or a new printing (and card) in a set, with a source — a text reference, a photo or
scan stored through the scan checks (catalog.images.scans), or both. Curators review the queue:
the diff against the data as it is now, approve (the change becomes a revision crediting the
proposer, made by the same code as a curator's own edit, so through the importer's checks),
edit then approve, or reject with a reason. A photo may be asked to become the face of a
printing that has no scan; approving attaches it.

A proposal is checked when it is made, by applying it inside a savepoint that is rolled back:
the player learns at once what the importer would refuse, and the queue holds only proposals
that applied when they were made. Each function is one use case owning no transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import aliased
from sqlmodel import Session, col, func, select

from catalog import curation
from catalog.curation import (
    PRINTING_COLUMNS,
    CurationError,
    NothingChanged,
    NothingToRevise,
    _cell,
    _edit_card,
    _edit_printing,
    _locked_card,
    _locked_printing,
    _require_curator,
    card_cells,
    card_columns,
    printing_cells,
)
from catalog.curation.create import _add_printing, new_row
from catalog.errors import Message
from catalog.models import Card, CardSet, CatalogueProposal, CatalogueRevision, Printing, PrintingScan, User

PROPOSALS_PER_DAY = 10  # per player, over the last 24 hours: enough for a real correction spree
SOURCE_MAX = 1000
REASON_MAX = 500
QUEUE_LIMIT = 100
NEW_PRINTING = -1  # scan_printing_id of a photo meant for the printing a proposal adds


class TooManyProposals(CurationError):
    code = "rate_limited"
    status = 429

    def __init__(self) -> None:
        super().__init__(
            Message(
                f"24 小时内最多提交 {PROPOSALS_PER_DAY} 个提案，请明天再来",
                f"at most {PROPOSALS_PER_DAY} proposals in 24 hours: come back tomorrow",
            )
        )


class SourceMissing(CurationError):
    code = "source_required"

    def __init__(self) -> None:
        super().__init__(
            Message(
                f"请给出出处：上传卡牌照片或扫描图，或写明文字出处（最多 {SOURCE_MAX} 个字符）",
                "give a source: upload a photo or scan of the card, or a text reference "
                f"(at most {SOURCE_MAX} characters)",
            )
        )


class ProposalClosed(CurationError):
    code = "already_reviewed"
    status = 409

    def __init__(self) -> None:
        super().__init__(Message("这个提案已经审核过了", "this proposal was already reviewed"))


class ReasonMissing(CurationError):
    code = "reason_required"

    def __init__(self) -> None:
        super().__init__(
            Message(f"请写明拒绝原因（1–{REASON_MAX} 个字符）", f"say why you reject it (1–{REASON_MAX} characters)")
        )


class ScanTargetRefused(CurationError):
    code = "bad_scan_target"

    def __init__(self) -> None:
        super().__init__(
            Message(
                "只能为这张卡的、还没有卡图扫描的印刷提供卡图，且需要上传照片",
                "a photo can only become the face of this card's printing that has no scan yet",
            )
        )


@dataclass(frozen=True)
class ProposalLine:
    proposal: CatalogueProposal
    username: str | None  # the proposer (None: account deleted)
    reviewer: str | None


@dataclass(frozen=True)
class Scan:
    """A photo already checked and stored (catalog.images.scans.store_upload)."""

    sha256: str
    width: int
    height: int


def propose(
    *,
    session: Session,
    by: User,
    kind: str,
    target_id: int,
    cells: dict[str, str],
    source: str,
    now: datetime,
    scan: Scan | None = None,
    scan_printing_id: int | None = None,
) -> CatalogueProposal:
    """Record a player's proposal (``kind``: card, printing or new_printing with a set's id)."""
    reference = " ".join((source or "").split())
    if len(reference) > SOURCE_MAX or (not reference and scan is None):
        raise SourceMissing()
    _within_limit(session, by, now)
    if kind == "card":
        card = _locked_card(session, target_id)
        base = card_cells(session, card)
        proposed = _changed(base, cells, card_columns(_module_of(session, card.game_id)))
        game_id, label = card.game_id, card.name
        printings = {p.id for p in session.exec(select(Printing).where(Printing.card_id == card.id)).all()}
    elif kind == "printing":
        printing = _locked_printing(session, target_id)
        base = printing_cells(session, printing)
        proposed = _changed(base, cells, PRINTING_COLUMNS)
        card_set = session.get(CardSet, printing.set_id)
        assert card_set is not None
        game_id, label, printings = card_set.game_id, f"{card_set.code} {printing.number}", {printing.id}
    elif kind == "new_printing":
        card_set = session.get(CardSet, target_id)
        if card_set is None:
            raise NothingToRevise("系列", "set")
        row = new_row(session, card_set, cells)
        base, proposed = {}, {column: value for column, value in row.items() if column != "set"}
        game_id, label, printings = card_set.game_id, f"{card_set.code} {row.get('number', '')}", {NEW_PRINTING}
    else:
        raise NothingToRevise("提案类型", "kind of proposal")
    if scan_printing_id is not None and (
        scan is None or scan_printing_id not in printings or _has_scan(session, scan_printing_id)
    ):
        raise ScanTargetRefused()
    proposal = CatalogueProposal(
        game_id=game_id,
        kind=kind,
        target_id=target_id,
        label=label[:200],
        user_id=by.id,
        created_at=now,
        cells=proposed,
        base=base,
        source=reference,
        scan_sha256=scan.sha256 if scan else None,
        scan_width=scan.width if scan else 0,
        scan_height=scan.height if scan else 0,
        scan_printing_id=scan_printing_id,
    )
    # Applied as a curator's edit would be, then undone: what the importer refuses is refused now.
    with session.begin_nested() as trial:
        _apply(session, proposal, proposed, by, "提案试用", now)
        trial.rollback()
    session.add(proposal)
    session.flush()
    return proposal


def approve(
    *, session: Session, by: User, proposal_id: int, now: datetime, cells: dict[str, str] | None = None, note: str = ""
) -> CatalogueRevision:
    """Adopt a pending proposal (with the curator's ``cells`` when edited first): a revision by
    the curator crediting the proposer; a photo meant as a face becomes the printing's scan."""
    _require_curator(by)
    proposal = _pending(session, proposal_id)
    final = dict(proposal.cells)
    if cells is not None:
        final = {**final, **{column: _cell(value) for column, value in cells.items() if column in final}}
    why = " ".join((note or "").split()) or f"采纳提案 #{proposal.id}：{proposal.source or '照片'}"
    revision = _apply(session, proposal, final, by, why[:500], now, credit=proposal.user_id)
    if proposal.scan_printing_id is not None and proposal.scan_sha256:
        from catalog.images import scans  # Pillow: only a proposal with a photo pays for it

        printing_id = revision.target_id if proposal.scan_printing_id == NEW_PRINTING else proposal.scan_printing_id
        scans.attach_scan(
            session=session,
            printing_id=printing_id,
            sha256=proposal.scan_sha256,
            width=proposal.scan_width,
            height=proposal.scan_height,
            uploaded_by=proposal.user_id,
            now=now,
        )
    proposal.status, proposal.reviewed_by_id, proposal.reviewed_at = "approved", by.id, now
    proposal.revision_id = revision.id
    session.add(proposal)
    session.flush()
    return revision


def reject(*, session: Session, by: User, proposal_id: int, reason: str, now: datetime) -> CatalogueProposal:
    """Close a pending proposal with the curator's reason, which the proposer reads."""
    _require_curator(by)
    why = " ".join((reason or "").split())
    if not why or len(why) > REASON_MAX:
        raise ReasonMissing()
    proposal = _pending(session, proposal_id)
    proposal.status, proposal.reviewed_by_id, proposal.reviewed_at, proposal.reason = "rejected", by.id, now, why
    session.add(proposal)
    session.flush()
    return proposal


def diff(session: Session, proposal: CatalogueProposal) -> list[tuple[str, str, str]]:
    """(column, the data now, proposed) for every proposed cell: what approving would change."""
    current: dict[str, str] = {}
    if proposal.kind == "card":
        card = session.get(Card, proposal.target_id)
        current = card_cells(session, card) if card else {}
    elif proposal.kind == "printing":
        printing = session.get(Printing, proposal.target_id)
        current = printing_cells(session, printing) if printing else {}
    return [(column, current.get(column, ""), str(value)) for column, value in proposal.cells.items()]


def queue(session: Session, *, limit: int = QUEUE_LIMIT) -> list[ProposalLine]:
    """Pending proposals, oldest first."""
    return _lines(session, col(CatalogueProposal.status) == "pending", col(CatalogueProposal.id).asc(), limit)


def of_user(session: Session, *, user_id: int | None, limit: int = 50) -> list[ProposalLine]:
    """A player's proposals, newest first (their account page)."""
    return _lines(session, col(CatalogueProposal.user_id) == user_id, col(CatalogueProposal.id).desc(), limit)


def line(session: Session, proposal_id: int) -> ProposalLine | None:
    found = _lines(session, col(CatalogueProposal.id) == proposal_id, col(CatalogueProposal.id).asc(), 1)
    return found[0] if found else None


def pending_count(session: Session) -> int:
    query = select(func.count()).select_from(CatalogueProposal).where(CatalogueProposal.status == "pending")
    return int(session.exec(query).one())


# --- inside -----------------------------------------------------------------------------------


def _lines(session: Session, where: Any, order: Any, limit: int) -> list[ProposalLine]:
    proposer, reviewer = aliased(User), aliased(User)
    rows = session.exec(
        select(CatalogueProposal, proposer.username, reviewer.username)
        .join(proposer, col(proposer.id) == col(CatalogueProposal.user_id), isouter=True)
        .join(reviewer, col(reviewer.id) == col(CatalogueProposal.reviewed_by_id), isouter=True)
        .where(where)
        .order_by(order)
        .limit(limit)
    ).all()
    return [ProposalLine(p, u, r) for p, u, r in rows]


def _apply(
    session: Session,
    proposal: CatalogueProposal,
    cells: dict[str, Any],
    by: User,
    note: str,
    now: datetime,
    *,
    credit: int | None = None,
) -> CatalogueRevision:
    if proposal.kind == "card":
        return _edit_card(session, by, proposal.target_id, cells, note, now, reverts=None, credit=credit)
    if proposal.kind == "printing":
        return _edit_printing(session, by, proposal.target_id, cells, note, now, reverts=None, credit=credit)
    return _add_printing(session, by, proposal.target_id, cells, note, now, credit=credit)


def _changed(base: dict[str, str], cells: dict[str, str], columns: tuple[str, ...]) -> dict[str, str]:
    proposed = {c: _cell(cells[c]) for c in columns if c in cells and _cell(cells[c]) != base.get(c)}
    if not proposed:
        raise NothingChanged()
    return proposed


def _pending(session: Session, proposal_id: int) -> CatalogueProposal:
    proposal = session.exec(
        select(CatalogueProposal).where(CatalogueProposal.id == proposal_id).with_for_update()
    ).first()
    if proposal is None:
        raise NothingToRevise("提案", "proposal")
    if proposal.status != "pending":
        raise ProposalClosed()
    return proposal


def _within_limit(session: Session, by: User, now: datetime) -> None:
    # the proposer's row locked first: two proposals sent at once cannot both pass the count
    session.exec(select(User.id).where(User.id == by.id).with_for_update()).first()
    recent = session.exec(
        select(func.count())
        .select_from(CatalogueProposal)
        .where(CatalogueProposal.user_id == by.id, col(CatalogueProposal.created_at) > now - timedelta(days=1))
    ).one()
    if recent >= PROPOSALS_PER_DAY:
        raise TooManyProposals()


def _has_scan(session: Session, printing_id: int) -> bool:
    return printing_id != NEW_PRINTING and session.get(PrintingScan, printing_id) is not None


def _module_of(session: Session, game_id: int) -> Any:
    return curation._module(session, game_id)

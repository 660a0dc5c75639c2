"""Where a set's data comes from and its history: the revisions of its printings and
of the cards printed in it, newest first, for the set page's provenance line and history page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import aliased
from sqlmodel import Session, col, func, or_, select

from catalog.curation import HISTORY_LIMIT, HistoryLine
from catalog.models import CardSet, CatalogueRevision, Printing, User


@dataclass(frozen=True)
class Provenance:
    """``sample``: our own sample data; ``imported``: a catalogue file (``source`` says which,
    when its manifest did); ``community``: neither — the set's cards came from the site.
    ``revisions``/``contributors`` count the community's changes either way."""

    kind: str
    source: str
    revisions: int
    contributors: int


def _touching(card_set: CardSet) -> Any:
    printing_ids = select(Printing.id).where(Printing.set_id == card_set.id)
    card_ids = select(Printing.card_id).where(Printing.set_id == card_set.id)
    return or_(
        col(CatalogueRevision.kind).in_(("printing", "new_printing"))
        & col(CatalogueRevision.target_id).in_(printing_ids),
        (col(CatalogueRevision.kind) == "card") & col(CatalogueRevision.target_id).in_(card_ids),
        (col(CatalogueRevision.kind) == "set") & (col(CatalogueRevision.target_id) == card_set.id),
    )


def provenance(session: Session, card_set: CardSet) -> Provenance:
    where = (col(CatalogueRevision.game_id) == card_set.game_id) & _touching(card_set)
    revisions = int(session.exec(select(func.count()).select_from(CatalogueRevision).where(where)).one())
    people: set[int] = set()
    if revisions:
        for editor, credited in session.exec(
            select(CatalogueRevision.user_id, CatalogueRevision.credited_id).where(where)
        ).all():
            people.update(p for p in (editor, credited) if p is not None)
    printings = session.exec(select(func.count()).select_from(Printing).where(Printing.set_id == card_set.id)).one()
    added = 0
    if revisions:
        added = int(
            session.exec(
                select(func.count())
                .select_from(CatalogueRevision)
                .where(where, col(CatalogueRevision.kind) == "new_printing")
            ).one()
        )
    if card_set.sample:
        kind = "sample"
    elif card_set.source or added < printings:
        kind = "imported"
    else:
        kind = "community"
    return Provenance(kind, card_set.source, revisions, len(people))


def set_history(session: Session, card_set: CardSet) -> list[HistoryLine]:
    """The newest HISTORY_LIMIT revisions touching the set's printings or cards."""
    proposer = aliased(User)
    rows = session.exec(
        select(CatalogueRevision, User.username, proposer.username)
        .join(User, col(User.id) == col(CatalogueRevision.user_id), isouter=True)
        .join(proposer, col(proposer.id) == col(CatalogueRevision.credited_id), isouter=True)
        .where(col(CatalogueRevision.game_id) == card_set.game_id, _touching(card_set))
        .order_by(col(CatalogueRevision.id).desc())
        .limit(HISTORY_LIMIT)
    ).all()
    return [HistoryLine(revision, username, None, credited) for revision, username, credited in rows]

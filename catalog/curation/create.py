"""Adding a printing on the web (and its card, when the name is new): one row of the import
format for a set the catalogue holds, checked and written by :func:`catalog.ingest.import_rows`
exactly as an import of a file holding it would be, recorded as a ``new_printing`` revision
whose cells go from empty to the row's. Used by an approved proposal (catalog.curation.proposals)
and by a curator's own "add a printing" form."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from catalog.curation import (
    PRINTING_COLUMNS,
    CurationError,
    NothingToRevise,
    _cell,
    _module,
    _note,
    _require_curator,
)
from catalog.errors import Message
from catalog.ingest.apply import import_rows
from catalog.models import CardSet, CatalogueRevision, Game, Printing, User


class NumberTaken(CurationError):
    code = "number_taken"
    status = 409

    def __init__(self, code: str, number: str) -> None:
        super().__init__(
            Message(
                f"{code} 中已有编号 {number} 的印刷：请对它提出修改，而不是新增",
                f"{code} already has a printing numbered {number}: correct it instead of adding one",
            )
        )


def new_printing_columns(session: Session, card_set: CardSet) -> tuple[str, ...]:
    """The cells of a new printing: every column of the game's import format but ``set``."""
    return tuple(c for c in _module(session, card_set.game_id).columns if c != "set")


def new_row(session: Session, card_set: CardSet, cells: dict[str, str]) -> dict[str, str]:
    """The import row a new printing of ``card_set`` would be, refused when its number is taken."""
    columns = new_printing_columns(session, card_set)
    row = {column: _cell(cells.get(column, "")) for column in columns}
    number = row.get("number", "")
    taken = select(Printing.id).where(Printing.set_id == card_set.id, Printing.number == number)
    if number and session.exec(taken).first() is not None:
        raise NumberTaken(card_set.code, number)
    return {"set": card_set.code, **row}


def add_printing(
    *,
    session: Session,
    by: User,
    set_id: int,
    cells: dict[str, str],
    note: str,
    now: datetime,
    credit: int | None = None,
) -> CatalogueRevision:
    """Add one printing to a set (a curator's use case): the row is checked as an import's."""
    _require_curator(by)
    return _add_printing(session, by, set_id, cells, _note(note), now, credit=credit)


def _add_printing(
    session: Session,
    by: User,
    set_id: int,
    cells: dict[str, str],
    why: str,
    now: datetime,
    *,
    credit: int | None = None,
) -> CatalogueRevision:
    card_set = session.exec(select(CardSet).where(CardSet.id == set_id).with_for_update()).first()
    if card_set is None:
        raise NothingToRevise("系列", "set")
    game = session.get(Game, card_set.game_id)
    assert game is not None
    row = new_row(session, card_set, cells)
    label = f"{card_set.code} {row.get('number', '')}"
    import_rows(session=session, game=game.slug, rows=[row], label=f"新增「{label}」")
    printing = session.exec(
        select(Printing).where(Printing.set_id == card_set.id, Printing.number == row["number"])
    ).one()
    assert printing.id is not None
    changes = {column: ["", value] for column, value in row.items() if column != "set" and value}
    revision = CatalogueRevision(
        game_id=card_set.game_id,
        kind="new_printing",
        target_id=printing.id,
        label=label[:200],
        user_id=by.id,
        created_at=now,
        note=why,
        changes=changes,
        credited_id=credit,
    )
    session.add(revision)
    session.flush()
    return revision


__all__ = ["PRINTING_COLUMNS", "NumberTaken", "_add_printing", "add_printing", "new_printing_columns", "new_row"]

"""The community catalogue: curators edit cards and printings on the web, every change a revision.

An edit is made in the import format's own terms: the card's (or printing's) current cells are
the row :mod:`catalog.ingest.export` would write, the curator changes some of them, and the new
rows of every printing of that card go through :func:`catalog.ingest.import_rows` — the
importer's own checks and writer — so a web edit can never store what an import would refuse,
and the search rows, the catalogue version (every cache keyed by it) and the card's printing
summaries move exactly as an import moves them. The revision keeps the cells changed
(``{"column": [old, new]}``); a revert puts the old cells back the same way, refused when
someone changed those cells since.

Each function is one use case: it owns no transaction (its caller owns one) and locks the row
it changes before reading it, so two curators saving at once cannot both win on stale cells.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import aliased
from sqlmodel import Session, col, or_, select

from catalog.errors import LunzangError, Message
from catalog.games import GameModule, get_game
from catalog.ingest.apply import import_rows
from catalog.ingest.export import printing_row
from catalog.models import Card, CardSet, CatalogueRevision, Game, Printing, User

CURATOR_ROLES = ("curator", "admin")
PRINTING_COLUMNS = ("rarity", "flavor", "illustrator", "image")
NOTE_MAX = 500
CELL_MAX = 4000  # one cell of a card (its rules text is the longest)
HISTORY_LIMIT = 200  # revisions shown on one history page, newest first


# Reverts of the other kinds of revision, registered by the module making them (catalog.curation
# .catalogue: "set", "format"), which builds on this one and so cannot be imported from it.
REVERTERS: dict[str, Callable[[Session, User, CatalogueRevision, str, datetime], CatalogueRevision]] = {}


class CurationError(LunzangError):
    code = "curation"


class NotCurator(CurationError):
    code = "forbidden"
    status = 403

    def __init__(self) -> None:
        super().__init__(
            Message(
                "只有目录编辑（curator）或管理员可以修改卡牌目录", "only curators and admins can edit the catalogue"
            )
        )


class NothingToRevise(CurationError):
    code = "not_found"
    status = 404

    def __init__(self, what: str, what_en: str) -> None:
        super().__init__(Message(f"没有这个{what}", f"no such {what_en}"))


class NothingChanged(CurationError):
    code = "unchanged"

    def __init__(self) -> None:
        super().__init__(Message("没有任何改动：请修改至少一项", "nothing changed: change at least one field"))


class NoteMissing(CurationError):
    code = "note_required"

    def __init__(self) -> None:
        super().__init__(
            Message(
                f"请写明修改原因（1–{NOTE_MAX} 个字符），例如出处",
                f"say why you make this change (1–{NOTE_MAX} characters), e.g. your source",
            )
        )


class NameTaken(CurationError):
    code = "name_taken"
    status = 409

    def __init__(self, name: str) -> None:
        super().__init__(
            Message(
                f"已有名为「{name}」的卡：改名不能把两张卡合并为一张",
                f"a card named {name!r} exists: a rename cannot merge two cards",
            )
        )


class StaleRevert(CurationError):
    code = "changed_since"
    status = 409

    def __init__(self, columns: list[str]) -> None:
        names = "、".join(columns)
        super().__init__(
            Message(
                f"这些字段在这次修订之后又被改过：{names}；请直接编辑，而不是撤销",
                f"these fields changed after this revision: {', '.join(columns)}; edit them instead of reverting",
            )
        )


class NoPrintings(CurationError):
    code = "no_printings"

    def __init__(self) -> None:
        super().__init__(
            Message(
                "这张卡目前没有任何印刷，无法编辑（请先添加印刷）", "this card has no printing to edit (add one first)"
            )
        )


@dataclass(frozen=True)
class HistoryLine:
    revision: CatalogueRevision
    username: str | None  # None: the account was deleted
    reverted_by: int | None  # the id of a later revision that reverted this one
    credited: str | None = None  # the player whose proposal it adopted


def can_curate(user: Any) -> bool:
    """Whether ``user`` (a User, an anonymous visitor or None) may edit the catalogue."""
    return getattr(user, "role", None) in CURATOR_ROLES


def card_columns(module: GameModule) -> tuple[str, ...]:
    """The cells a card edit may change: the card's own (name, type, text …), not a printing's."""
    return tuple(c for c in module.columns if c not in ("set", "number", *PRINTING_COLUMNS))


def card_cells(session: Session, card: Card) -> dict[str, str]:
    """The card's cells as the export writes them (every printing shares them)."""
    module = _module(session, card.game_id)
    first = printings_of(session, card.id)
    if not first:
        raise NoPrintings()
    card_set, printing = first[0]
    row = printing_row(module, card_set, printing, card)
    return {column: row[column] for column in card_columns(module)}


def printing_cells(session: Session, printing: Printing) -> dict[str, str]:
    card_set = session.get(CardSet, printing.set_id)
    card = session.get(Card, printing.card_id)
    assert card_set is not None and card is not None  # foreign keys
    row = printing_row(_module(session, card.game_id), card_set, printing, card)
    return {column: row[column] for column in PRINTING_COLUMNS}


def edit_card(
    *, session: Session, by: User, card_id: int, cells: dict[str, str], note: str, now: datetime
) -> CatalogueRevision:
    """Change a card's cells (any of :func:`card_columns`) on every printing of it."""
    _require_curator(by)
    return _edit_card(session, by, card_id, cells, _note(note), now, reverts=None)


def edit_printing(
    *, session: Session, by: User, printing_id: int, cells: dict[str, str], note: str, now: datetime
) -> CatalogueRevision:
    """Change a printing's own cells: rarity, flavour text, illustrator, image."""
    _require_curator(by)
    return _edit_printing(session, by, printing_id, cells, _note(note), now, reverts=None)


def revert(*, session: Session, by: User, revision_id: int, note: str, now: datetime) -> CatalogueRevision:
    """A new revision putting back the old cells of ``revision_id``; refused when any of those
    cells was changed again after it (the curator then edits instead)."""
    _require_curator(by)
    why = _note(note)
    revision = session.exec(select(CatalogueRevision).where(CatalogueRevision.id == revision_id)).first()
    if revision is None:
        raise NothingToRevise("修订", "revision")
    if revision.kind in REVERTERS:
        return REVERTERS[revision.kind](session, by, revision, why, now)
    if revision.kind not in ("card", "printing"):
        raise CurationError(
            Message(
                "新增的印刷不能撤销：请编辑它，或请管理员删除", "an added printing cannot be reverted: edit it instead"
            )
        )
    old = {column: pair[0] for column, pair in revision.changes.items()}
    expected = {column: pair[1] for column, pair in revision.changes.items()}
    if revision.kind == "card":
        card = _locked_card(session, revision.target_id)
        current = card_cells(session, card)
    else:
        printing = _locked_printing(session, revision.target_id)
        current = printing_cells(session, printing)
    moved = [column for column, value in expected.items() if current.get(column) != value]
    if moved:
        raise StaleRevert(moved)
    if revision.kind == "card":
        return _edit_card(session, by, revision.target_id, old, why, now, reverts=revision.id)
    return _edit_printing(session, by, revision.target_id, old, why, now, reverts=revision.id)


def _revisions_of(card: Card, limit: int) -> Any:
    """The newest ``limit`` revisions of a card and of its printings, with their authors."""
    printing_ids = select(Printing.id).where(Printing.card_id == card.id)
    proposer = aliased(User)
    return (
        select(CatalogueRevision, User.username, proposer.username)
        .join(User, col(User.id) == col(CatalogueRevision.user_id), isouter=True)
        .join(proposer, col(proposer.id) == col(CatalogueRevision.credited_id), isouter=True)
        .where(
            or_(
                (col(CatalogueRevision.kind) == "card") & (col(CatalogueRevision.target_id) == card.id),
                col(CatalogueRevision.kind).in_(("printing", "new_printing"))
                & col(CatalogueRevision.target_id).in_(printing_ids),
            )
        )
        .order_by(col(CatalogueRevision.id).desc())
        .limit(limit)
    )


def history(session: Session, *, card: Card) -> list[HistoryLine]:
    """The revisions of a card and of its printings, newest first (at most HISTORY_LIMIT)."""
    rows = session.exec(_revisions_of(card, HISTORY_LIMIT)).all()
    ids = [revision.id for revision, _, _ in rows]
    reverted = {
        reverts: revision_id
        for revision_id, reverts in session.exec(
            select(CatalogueRevision.id, CatalogueRevision.reverts_id).where(col(CatalogueRevision.reverts_id).in_(ids))
        ).all()
    }
    return [
        HistoryLine(revision, username, reverted.get(revision.id), credited) for revision, username, credited in rows
    ]


def last_change(session: Session, *, card: Card) -> HistoryLine | None:
    """The newest revision of the card or its printings (one row read), for the card page."""
    row = session.exec(_revisions_of(card, 1)).first()
    return HistoryLine(row[0], row[1], None, row[2]) if row else None


# --- the edits themselves -------------------------------------------------------------------


def _edit_card(
    session: Session,
    by: User,
    card_id: int,
    cells: dict[str, Any],
    note: str,
    now: datetime,
    *,
    reverts: int | None,
    credit: int | None = None,
) -> CatalogueRevision:
    card = _locked_card(session, card_id)
    game = session.get(Game, card.game_id)
    assert game is not None
    old = card_cells(session, card)
    new = {**old, **{column: _cell(cells[column]) for column in old if column in cells}}
    changes = {column: [old[column], new[column]] for column in old if old[column] != new[column]}
    if not changes:
        raise NothingChanged()
    module = _module(session, card.game_id)
    printings = printings_of(session, card.id)
    rows = [{**printing_row(module, card_set, printing, card), **new} for card_set, printing in printings]
    if new["name"] != old["name"] and new["name"]:
        taken = session.exec(
            select(Card.id).where(Card.game_id == card.game_id, Card.name == new["name"], Card.id != card.id)
        ).first()
        if taken is not None:
            raise NameTaken(new["name"])
        # Renamed in place, so the card keeps its id (want lists, ban lists, history point to
        # it); its digest cleared, so the import below rewrites it whole — search keys included.
        card.name = new["name"]
        card.rules_hash = ""
        session.add(card)
        session.flush()
    import_rows(session=session, game=game.slug, rows=rows, label=_label(new["name"]))
    revision = CatalogueRevision(
        game_id=card.game_id,
        kind="card",
        target_id=card_id,
        label=new["name"][:200],
        user_id=by.id,
        created_at=now,
        note=note,
        changes=changes,
        reverts_id=reverts,
        credited_id=credit,
    )
    session.add(revision)
    session.flush()
    return revision


def _edit_printing(
    session: Session,
    by: User,
    printing_id: int,
    cells: dict[str, Any],
    note: str,
    now: datetime,
    *,
    reverts: int | None,
    credit: int | None = None,
) -> CatalogueRevision:
    printing = _locked_printing(session, printing_id)
    card = session.get(Card, printing.card_id)
    card_set = session.get(CardSet, printing.set_id)
    game = session.get(Game, card.game_id) if card else None
    assert card is not None and card_set is not None and game is not None
    old = printing_cells(session, printing)
    new = {**old, **{column: _cell(cells[column]) for column in old if column in cells}}
    changes = {column: [old[column], new[column]] for column in old if old[column] != new[column]}
    if not changes:
        raise NothingChanged()
    module = _module(session, card.game_id)
    row = {**printing_row(module, card_set, printing, card), **new}
    label = f"{card_set.code} {printing.number}"
    import_rows(session=session, game=game.slug, rows=[row], label=_label(label))
    revision = CatalogueRevision(
        game_id=card.game_id,
        kind="printing",
        target_id=printing_id,
        label=label[:200],
        user_id=by.id,
        created_at=now,
        note=note,
        changes=changes,
        reverts_id=reverts,
        credited_id=credit,
    )
    session.add(revision)
    session.flush()
    return revision


def _require_curator(user: User) -> None:
    if not can_curate(user):
        raise NotCurator()


def _note(note: str) -> str:
    cleaned = " ".join((note or "").split())
    if not cleaned or len(cleaned) > NOTE_MAX:
        raise NoteMissing()
    return cleaned


def _cell(value: Any) -> str:
    text = str(value if value is not None else "").replace("\r\n", "\n").strip()
    if len(text) > CELL_MAX or "\x00" in text:
        raise CurationError(
            Message(
                f"字段过长（最多 {CELL_MAX} 个字符）或含有 NUL", f"a field is over {CELL_MAX} characters or holds NUL"
            )
        )
    return text


def _label(name: str) -> str:
    return f"编辑「{name}」"


def _module(session: Session, game_id: int) -> GameModule:
    game = session.get(Game, game_id)
    module = get_game(game.slug) if game else None
    assert game is not None and module is not None
    return module.with_vocabulary(game.vocabulary)


def _locked_card(session: Session, card_id: int) -> Card:
    card = session.exec(select(Card).where(Card.id == card_id).with_for_update()).first()
    if card is None:
        raise NothingToRevise("卡", "card")
    return card


def _locked_printing(session: Session, printing_id: int) -> Printing:
    printing = session.exec(select(Printing).where(Printing.id == printing_id).with_for_update()).first()
    if printing is None:
        raise NothingToRevise("印刷", "printing")
    return printing


def printings_of(session: Session, card_id: int | None) -> list[tuple[CardSet, Printing]]:
    """The card's printings with their sets, in the catalogue's order."""
    rows = session.exec(
        select(CardSet, Printing)
        .join(Printing, col(Printing.set_id) == col(CardSet.id))
        .where(Printing.card_id == card_id)
        .order_by(col(CardSet.position), col(Printing.id))
    ).all()
    return [(card_set, printing) for card_set, printing in rows]

"""Importing a collection CSV (modes ``add`` and ``replace``, dry run) and undoing an import.

All or nothing: every row is read, resolved and checked first; any problem raises
:class:`CollectionFileError` listing all of them (line, column, message) and nothing is
written. Then the changes go through the ledger in bulk, each ledger row carrying the import id,
so :func:`undo_import` can reverse the whole import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlmodel import Session

from catalog.collection.csvio import CollectionFileError, CsvProblem, ParsedCsv, parse_count, read_rows, row_grades
from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import (
    ItemChange,
    Key,
    NegativeQuantity,
    lock_items,
    lock_user,
    plan_targets,
    write_changes,
)
from catalog.collection.presets import TRADE_BINDERS
from catalog.errors import LunzangError, Message
from catalog.lookup import PrintingIndex, PrintingInfo, UnknownPrinting
from catalog.models import CollectionImport, LedgerEntry, table_of
from catalog.models.columns import PRINTING
from catalog.text import fold

MODES = ("add", "replace")
PREVIEW_LIMIT = 1000  # changes listed in a report (the totals count them all)


class ImportNotFound(LunzangError):
    code = "not_found"
    status = 404


@dataclass
class CollectionImportReport:
    """What an import did (or, in a dry run, would do)."""

    mode: str
    dry_run: bool
    import_id: int | None = None
    preset: str = "lunzang"
    preset_label: str = ""  # the tool recognised, for people ("Deckbox (classic)")
    ignored_columns: list[str] = field(default_factory=list)  # columns as written that were not read
    mapped: bool = False  # the columns were named by the user's mapping
    header: list[str] = field(default_factory=list)  # the header row as written
    source: dict[str, str] = field(default_factory=dict)  # kind (csv/xlsx), encoding, delimiter, sheet
    rows: int = 0  # data rows read
    merged: int = 0  # rows folded into an earlier identical (printing, grade) row
    lines_added: int = 0  # items that go from 0 to some
    lines_changed: int = 0
    lines_removed: int = 0  # items that go to 0
    cards_added: int = 0  # sum of quantity increases
    cards_removed: int = 0
    changes: list[dict[str, Any]] = field(default_factory=list)  # the first PREVIEW_LIMIT, for a preview

    @property
    def changed(self) -> bool:
        return bool(self.lines_added or self.lines_changed or self.lines_removed)


def _describe(change: ItemChange, info: dict[int, PrintingInfo]) -> dict[str, Any]:
    printing = info.get(change.printing_id)
    return {
        "set": printing.set.code if printing else None,
        "number": printing.number if printing else None,
        "name": printing.name if printing else None,
        "condition": change.grade.condition,
        "language": change.grade.language,
        "finish": change.grade.finish,
        "before": change.before,
        "after": change.after,
        "for_trade_before": change.for_trade_before,
        "for_trade_after": change.for_trade_after,
    }


def read_file(
    *, session: Session, data: bytes, mapping: dict[str, str] | None = None, sheet: str | None = None
) -> tuple[ParsedCsv, dict[Key, tuple[int, int]], dict[int, PrintingInfo]]:
    """Read, parse, resolve and merge a file: (the parsed file, (printing, grade) → (qty, for
    trade), printings). ``mapping``: header key → field for columns the user named.

    Raises :class:`CollectionFileError` with every problem.
    """
    parsed = read_rows(data, mapping=mapping, sheet=sheet)
    problems: list[CsvProblem] = list(parsed.problems)
    if problems:
        raise CollectionFileError(problems)
    index = PrintingIndex(session)
    rows = parsed.rows
    # Bulk loads first: the printings of every set named, then of every card named without a set.
    set_ids: set[int] = set()
    for text in {r.cells.get("set", "") or r.cells.get("set_name", "") for r in rows}:
        if text:
            set_ids.update(s.id for s in index.find_sets(text))
    index.load_sets(set_ids)
    index.load_names(
        r.cells.get("name", "")
        for r in rows
        if not r.cells.get("set") and not r.cells.get("set_name") and r.cells.get("name")
    )
    merged: dict[Key, tuple[int, int]] = {}
    printings: dict[int, PrintingInfo] = {}
    games = set(index.sets[s].game for s in index.sets)
    for row in rows:
        cells = row.cells
        col = row.columns.get
        quantity = parse_count(cells.get("quantity", ""), 1)
        if quantity is None:
            problems.append(
                CsvProblem(
                    row.line,
                    col("quantity", "quantity"),
                    Message(
                        f"数量「{cells.get('quantity')}」不是 0 到 100000 之间的整数",
                        f"quantity '{cells.get('quantity')}' is not a whole number from 0 to 100000",
                    ),
                )
            )
        for_trade = parse_count(cells.get("for_trade", ""), 0)
        if quantity is not None and "for_trade" not in cells and fold(cells.get("binder", "")) in TRADE_BINDERS:
            for_trade = quantity  # ManaBox / Dragon Shield: a binder named "Trade" holds cards for trade
        if for_trade is None:
            problems.append(
                CsvProblem(
                    row.line,
                    col("for_trade", "for_trade"),
                    Message(
                        f"可交换数量「{cells.get('for_trade')}」不是非负整数",
                        f"for_trade '{cells.get('for_trade')}' is not a non-negative whole number",
                    ),
                )
            )
        elif quantity is not None and for_trade > quantity:
            problems.append(
                CsvProblem(
                    row.line,
                    col("for_trade", "for_trade"),
                    Message(
                        f"可交换数量 {for_trade} 大于数量 {quantity}",
                        f"for_trade {for_trade} exceeds quantity {quantity}",
                    ),
                )
            )
        grades = row_grades(row, problems, parsed.values)
        game = fold(cells.get("game", "")) or None
        if game is not None and game not in games:
            problems.append(
                CsvProblem(
                    row.line,
                    col("game", "game"),
                    Message(f"未知的游戏「{cells.get('game')}」", f"unknown game '{cells.get('game')}'"),
                )
            )
            continue
        try:
            printing = index.resolve(
                set_text=cells.get("set", ""),
                number=cells.get("number", ""),
                name=cells.get("name", ""),
                game=game,
                set_name=cells.get("set_name", ""),
            )
        except UnknownPrinting as error:
            problems.append(CsvProblem(row.line, col(error.column, error.column), error.message))
            continue
        if quantity is None or for_trade is None or grades is None:
            continue
        printings[printing.id] = printing
        key = (printing.id, ItemGrade(*grades))
        before = merged.get(key, (0, 0))
        merged[key] = (before[0] + quantity, before[1] + for_trade)
    if problems:
        problems.sort(key=lambda p: p.line)
        raise CollectionFileError(problems)
    return parsed, merged, printings


def import_collection(
    *,
    session: Session,
    user_id: int,
    data: bytes,
    filename: str = "",
    mode: str = "add",
    dry_run: bool = False,
    now: datetime,
    mapping: dict[str, str] | None = None,
    sheet: str | None = None,
) -> CollectionImportReport:
    """Import a collection CSV (no commit). ``add`` adds the file's quantities; ``replace`` makes
    the file the collection (items absent from it go to 0). A dry run writes nothing.

    The file is a CSV or an XLSX (``sheet``: which one, else the first); its tool is recognised
    from the header, and ``mapping`` (header key → field or ``ignore``) names columns no preset
    knows. Raises :class:`CollectionFileError` (every problem, line + column) and then writes nothing.
    """
    if mode not in MODES:
        raise LunzangError(
            Message(
                f"未知的导入方式「{mode}」，可用：add、replace", f"unknown import mode '{mode}'; known: add, replace"
            )
        )
    parsed, merged, printings = read_file(session=session, data=data, mapping=mapping, sheet=sheet)
    row_count = len(parsed.rows)
    report = CollectionImportReport(
        mode=mode,
        dry_run=dry_run,
        preset=parsed.preset,
        preset_label=parsed.label,
        ignored_columns=parsed.ignored,
        mapped=parsed.mapped,
        header=parsed.header,
        source=parsed.source,
        rows=row_count,
        merged=row_count - len(merged),
    )
    record = None
    if not dry_run:
        # The user is locked before the import row is written: that row's foreign key takes a
        # share lock on the user, and two imports upgrading it to FOR UPDATE deadlocked on
        # PostgreSQL. On SQLite the first write takes the lock that the item reads below rely on.
        lock_user(session, user_id)
        record = CollectionImport(user_id=user_id, mode=mode, filename=filename[:255], rows=row_count, created_at=now)
        session.add(record)
        session.flush()
    current = lock_items(session, user_id) if not dry_run else _read_items(session, user_id)
    if mode == "add":
        targets = {}
        for key, (quantity, for_trade) in merged.items():
            state = current.get(key)
            have, trade = (state.quantity, state.for_trade) if state else (0, 0)
            targets[key] = (have + quantity, trade + for_trade)
    else:
        targets = {key: (0, 0) for key, state in current.items() if state.quantity or state.for_trade}
        targets.update(merged)
    changes = plan_targets(current, targets)
    for ch in changes:
        if ch.before == 0 and ch.after > 0:
            report.lines_added += 1
        elif ch.before > 0 and ch.after == 0:
            report.lines_removed += 1
        else:
            report.lines_changed += 1
        if ch.delta > 0:
            report.cards_added += ch.delta
        else:
            report.cards_removed -= ch.delta
    _name_missing(session, changes, printings)
    report.changes = [_describe(ch, printings) for ch in changes[:PREVIEW_LIMIT]]
    if record is not None:
        assert record.id is not None
        record.cards_added, record.cards_removed = report.cards_added, report.cards_removed
        report.import_id = record.id
        write_changes(
            session=session,
            user_id=user_id,
            current=current,
            changes=changes,
            reason="import",
            ref=f"import #{record.id}",
            import_id=record.id,
            now=now,
        )
        session.flush()
    return report


def _read_items(session: Session, user_id: int) -> Any:
    # A dry run neither locks nor writes.
    from catalog.collection import ledger

    c = ledger.ITEMS.c
    return {
        (pid, ItemGrade(cond, lang, fin)): ledger.ItemState(item_id, q, ft)
        for item_id, pid, cond, lang, fin, q, ft in session.execute(
            select(c.id, c.printing_id, c.condition, c.language, c.finish, c.quantity, c.for_trade).where(
                c.user_id == user_id
            )
        )
    }


def _name_missing(session: Session, changes: list[ItemChange], printings: dict[int, PrintingInfo]) -> None:
    """Describe the printings a replace removes (not in the file, so not resolved yet)."""
    missing = {ch.printing_id for ch in changes[:PREVIEW_LIMIT]} - set(printings)
    if not missing:
        return
    index = PrintingIndex(session)

    set_ids = session.scalars(select(PRINTING.set_id).where(PRINTING.id.in_(missing)).distinct())
    index.load_sets(set_ids)
    for info in index.numbers.values():
        if info.id in missing:
            printings[info.id] = info


def undo_import(*, session: Session, user_id: int, import_id: int, now: datetime) -> list[ItemChange]:
    """Reverse every change of one import (ledger reason ``undo``); the import is marked undone.

    Refuses with :class:`NegativeQuantity` (nothing changed) when cards the import added have
    since been removed. Another user's import, or one already undone → :class:`ImportNotFound`.
    """
    imports = table_of(CollectionImport)
    claimed = session.execute(
        update(imports)
        .where(imports.c.id == import_id, imports.c.user_id == user_id, imports.c.undone_at.is_(None))
        .values(undone_at=now)
        # why the type: ignore below: an UPDATE's CursorResult has rowcount; Session.execute is typed as Result
    ).rowcount  # type: ignore[attr-defined]
    if not claimed:
        exists = session.scalar(select(imports.c.id).where(imports.c.id == import_id, imports.c.user_id == user_id))
        if exists:
            raise ImportNotFound(Message(f"导入 #{import_id} 已经撤销过了", f"import #{import_id} is already undone"))
        raise ImportNotFound(Message(f"没有编号为 {import_id} 的导入", f"no import #{import_id}"))
    L = table_of(LedgerEntry).c
    sums = session.execute(
        select(L.printing_id, L.condition, L.language, L.finish, func.sum(L.delta), func.sum(L.trade_delta))
        .where(L.import_id == import_id, L.user_id == user_id, L.reason == "import")
        .group_by(L.printing_id, L.condition, L.language, L.finish)
    )
    current = lock_items(session, user_id)
    targets: dict[Key, tuple[int, int]] = {}
    short = 0
    for pid, cond, lang, fin, delta, trade_delta in sums:
        key = (pid, ItemGrade(cond, lang, fin))
        state = current.get(key)
        have, trade = (state.quantity, state.for_trade) if state else (0, 0)
        if have - int(delta) < 0:
            short += 1
        targets[key] = (have - int(delta), trade - int(trade_delta))
    if short:
        session.execute(update(imports).where(imports.c.id == import_id).values(undone_at=None))
        raise NegativeQuantity(
            Message(
                f"无法撤销导入 #{import_id}：其中 {short} 种卡牌此后已被移出收藏，撤销会使数量小于 0；未作任何改动",
                f"cannot undo import #{import_id}: {short} of its cards have been removed since, and undoing would "
                f"take quantities below 0; nothing changed",
            )
        )
    changes = plan_targets(current, targets)
    write_changes(
        session=session,
        user_id=user_id,
        current=current,
        changes=changes,
        reason="undo",
        ref=f"undo import #{import_id}",
        import_id=import_id,
        now=now,
    )
    return changes

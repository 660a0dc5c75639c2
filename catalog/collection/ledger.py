"""The ledger: the only way collection quantities change (DESIGN §2, §10).

Every change of ``quantity`` or ``for_trade`` of a :class:`CollectionItem` writes a
:class:`LedgerEntry` in the same transaction, so per (user, printing, grade) the ledger's
``delta`` sums to the quantity and its ``trade_delta`` to the quantity for trade
(:func:`check_ledger` verifies it with one GROUP BY).

Race-freedom: :func:`adjust` first locks the item with an UPDATE that changes nothing
(PostgreSQL: a row lock, READ COMMITTED then re-reads the latest version; SQLite: the first
write of the transaction takes the database write lock, waiting on ``busy_timeout``), reads the
current values through its RETURNING, and only then decides. Two concurrent +1/−1 therefore
serialise and never lose an update nor go negative. On SQLite this needs the caller's
transaction not to have read before (a read first pins a snapshot, and SQLite refuses to turn
a stale snapshot into a writer: "database is locked" rather than a lost update).
Items that fall to zero stay as rows of quantity 0 (their ledger keeps pointing at them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import and_, func, select, update
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.errors import LunzangError, Message
from catalog.models import CollectionItem, LedgerEntry, User, table_of

REASONS = ("manual", "import", "undo", "pack", "trade")
ITEMS = table_of(CollectionItem)
LEDGER = table_of(LedgerEntry)
USERS = table_of(User)
GRADE_COLUMNS = ("condition", "language", "finish")
Key = tuple[int, ItemGrade]  # (printing id, grade)
DEFAULT_GRADE = ItemGrade()


class NegativeQuantity(LunzangError):
    """The change would take a quantity below zero: nothing was changed."""

    code = "negative_quantity"
    status = 409


class BadTradeQuantity(LunzangError):
    """The quantity for trade would be negative or above the quantity owned."""

    code = "bad_for_trade"
    status = 409


@dataclass(frozen=True)
class ItemState:
    id: int
    quantity: int
    for_trade: int


@dataclass(frozen=True)
class ItemChange:
    """One item before and after a change."""

    printing_id: int
    grade: ItemGrade
    before: int
    after: int
    for_trade_before: int
    for_trade_after: int

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def trade_delta(self) -> int:
        return self.for_trade_after - self.for_trade_before


def _key_filter(user_id: int, printing_id: int, grade: ItemGrade) -> Any:
    c = ITEMS.c
    return and_(
        c.user_id == user_id,
        c.printing_id == printing_id,
        c.condition == grade.condition,
        c.language == grade.language,
        c.finish == grade.finish,
    )


def _lock(session: Session, user_id: int, printing_id: int, grade: ItemGrade) -> ItemState | None:
    """Lock the item (an UPDATE that changes nothing) and read it; None if there is none."""
    c = ITEMS.c
    row = session.execute(
        update(ITEMS)
        .where(_key_filter(user_id, printing_id, grade))
        .values(quantity=c.quantity)
        .returning(c.id, c.quantity, c.for_trade)
    ).first()
    return ItemState(*row) if row else None


def _insert_missing(session: Session, rows: list[dict[str, Any]]) -> None:
    """INSERT … ON CONFLICT DO NOTHING: a row a concurrent transaction created wins, quietly."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    # The dialects here, not at the top: importing PostgreSQL's (with asyncpg's) costs every
    # command ~40 ms, and a SQLite server never needs it.
    index_elements = ["user_id", "printing_id", *GRADE_COLUMNS]
    statement: Any
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        statement = postgresql.insert(ITEMS).on_conflict_do_nothing(index_elements=index_elements)
    else:
        from sqlalchemy.dialects import sqlite

        statement = sqlite.insert(ITEMS).on_conflict_do_nothing(index_elements=index_elements)
    session.execute(statement, rows)


def _new_item(user_id: int, printing_id: int, grade: ItemGrade, now: datetime) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "printing_id": printing_id,
        "condition": grade.condition,
        "language": grade.language,
        "finish": grade.finish,
        "quantity": 0,
        "for_trade": 0,
        "note": "",
        "updated_at": now,
    }


def _ledger_row(
    user_id: int, change: ItemChange, reason: str, ref: str, import_id: int | None, now: Any
) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "printing_id": change.printing_id,
        "condition": change.grade.condition,
        "language": change.grade.language,
        "finish": change.grade.finish,
        "delta": change.delta,
        "trade_delta": change.trade_delta,
        "reason": reason,
        "ref": ref[:64],
        "import_id": import_id,
        "at": now,
    }


def negative_message(before: int, delta: int) -> Message:
    return Message(
        f"数量不能小于 0：现有 {before} 张，要减少 {-delta} 张",
        f"quantity cannot go below 0: {before} owned, removing {-delta}",
    )


def lock_user(session: Session, user_id: int) -> None:
    """Serialise one user's collection writes on PostgreSQL: a row lock on the user, taken
    first by every writer (single changes, bulk imports, checklists, openings).

    Without it a bulk write that planned to INSERT a new item could meet the same item created
    meanwhile by a concurrent +1 and fail on the unique index (a 500 instead of a wait). On
    SQLite the writer transaction (``BEGIN IMMEDIATE``) already serialises every write.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(USERS.c.id).where(USERS.c.id == user_id).with_for_update())


def adjust(
    *,
    session: Session,
    user_id: int,
    printing_id: int,
    grade: ItemGrade = DEFAULT_GRADE,
    delta: int,
    trade_delta: int = 0,
    reason: str,
    ref: str = "",
    import_id: int | None = None,
    now: datetime,
) -> ItemChange:
    """Change one item's quantity by ``delta`` (and its quantity for trade by ``trade_delta``).

    When the quantity falls below the quantity for trade, the latter follows it down (that
    change is ledgered too). Raises :class:`NegativeQuantity` (quantity < 0) or
    :class:`BadTradeQuantity` (for trade < 0 or > quantity) and then changes nothing.
    """
    assert reason in REASONS, reason
    lock_user(session, user_id)
    state = _lock(session, user_id, printing_id, grade)
    if state is None:
        if delta < 0:
            raise NegativeQuantity(negative_message(0, delta))
        if delta == 0 and trade_delta == 0:
            return ItemChange(printing_id, grade, 0, 0, 0, 0)
        _insert_missing(session, [_new_item(user_id, printing_id, grade, now)])
        state = _lock(session, user_id, printing_id, grade)
        assert state is not None
    after = state.quantity + delta
    if after < 0:
        raise NegativeQuantity(negative_message(state.quantity, delta))
    trade_after = state.for_trade + trade_delta
    if trade_after < 0 or (trade_delta > 0 and trade_after > after):
        raise BadTradeQuantity(
            Message(
                f"可交换数量必须在 0 到 {after} 之间（现为 {state.for_trade}，变化 {trade_delta:+d}）",
                f"quantity for trade must be between 0 and {after} (now {state.for_trade}, change {trade_delta:+d})",
            )
        )
    change = ItemChange(printing_id, grade, state.quantity, after, state.for_trade, min(trade_after, after))
    if change.delta or change.trade_delta:
        session.execute(
            update(ITEMS)
            .where(ITEMS.c.id == state.id)
            .values(quantity=change.after, for_trade=change.for_trade_after, updated_at=now)
        )
        session.execute(LEDGER.insert(), [_ledger_row(user_id, change, reason, ref, import_id, now)])
        if change.trade_delta < 0:
            _for_trade_fell(session, user_id, [change], now)
    return change


class ForTradeFell(Protocol):
    """Told that a user's copies for trade went down: {(printing id, grade): for trade after}."""

    def __call__(
        self, session: Session, *, user_id: int, for_trade_after: Mapping[tuple[int, ItemGrade], int], now: datetime
    ) -> object: ...


# Packages built on the collection register here what must follow a fall in copies for trade
# (trading marks the open offers that held them "needs attention"), so the ledger never imports
# them. catalog/trading/__init__.py registers trading's: anything that can have an open offer has
# imported trading.
_FOR_TRADE_FELL: list[ForTradeFell] = []


def on_for_trade_fell(hook: ForTradeFell) -> ForTradeFell:
    """Call ``hook`` (once, however often registered) whenever a user's copies for trade go down."""
    if hook not in _FOR_TRADE_FELL:
        _FOR_TRADE_FELL.append(hook)
    return hook


def _for_trade_fell(session: Session, user_id: int, changes: Sequence[ItemChange], now: datetime) -> None:
    """Copies for trade went down: tell the registered hooks (trading's flags the open offers that
    held them)."""
    fell = {(ch.printing_id, ch.grade): ch.for_trade_after for ch in changes if ch.trade_delta < 0}
    if fell:
        for hook in _FOR_TRADE_FELL:
            hook(session, user_id=user_id, for_trade_after=fell, now=now)


def set_for_trade(
    *, session: Session, user_id: int, printing_id: int, grade: ItemGrade = DEFAULT_GRADE, for_trade: int, now: datetime
) -> ItemChange:
    """Set how many copies of one item are offered for trade (0 … quantity), ledgered."""
    # The user first, as every writer does: locking the item first and the user second (inside
    # adjust) deadlocked on PostgreSQL against a trade settling the same item.
    lock_user(session, user_id)
    state = _lock(session, user_id, printing_id, grade)
    current = state.for_trade if state else 0
    return adjust(
        session=session,
        user_id=user_id,
        printing_id=printing_id,
        grade=grade,
        delta=0,
        trade_delta=for_trade - current,
        reason="manual",
        now=now,
    )


def set_note(
    *, session: Session, user_id: int, printing_id: int, grade: ItemGrade = DEFAULT_GRADE, note: str, now: datetime
) -> bool:
    """Set an item's note (not a quantity: no ledger row). False if the user has no such item."""
    result = session.execute(
        update(ITEMS).where(_key_filter(user_id, printing_id, grade)).values(note=note.strip()[:500], updated_at=now)
    )
    # why the type: ignore below: Session.execute is typed as Result; an UPDATE gives a CursorResult, which has rowcount
    return bool(result.rowcount)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- bulk changes


def lock_items(session: Session, user_id: int) -> dict[Key, ItemState]:
    """Every item of the user, locked on PostgreSQL (the user, then FOR UPDATE in id order)."""
    lock_user(session, user_id)
    c = ITEMS.c
    query = select(c.id, c.printing_id, c.condition, c.language, c.finish, c.quantity, c.for_trade).where(
        c.user_id == user_id
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.order_by(c.id).with_for_update()
    return {
        (pid, ItemGrade(cond, lang, fin)): ItemState(item_id, q, ft)
        for item_id, pid, cond, lang, fin, q, ft in session.execute(query)
    }


def plan_targets(current: Mapping[Key, ItemState], targets: Mapping[Key, tuple[int, int]]) -> list[ItemChange]:
    """The changes that take ``current`` to ``targets`` (key → (quantity, for trade)), sorted."""
    changes = []
    for key, (quantity, for_trade) in targets.items():
        state = current.get(key)
        before, trade_before = (state.quantity, state.for_trade) if state else (0, 0)
        trade_after = max(0, min(for_trade, quantity))
        if quantity != before or trade_after != trade_before:
            changes.append(ItemChange(key[0], key[1], before, quantity, trade_before, trade_after))
    changes.sort(key=lambda ch: (ch.printing_id, ch.grade))
    return changes


def write_changes(
    *,
    session: Session,
    user_id: int,
    current: Mapping[Key, ItemState],
    changes: Sequence[ItemChange],
    reason: str,
    ref: str = "",
    import_id: int | None = None,
    now: datetime,
) -> None:
    """Write planned changes (from :func:`plan_targets` over :func:`lock_items`) in bulk.

    executemany for the items (new ones inserted first) and one for the ledger rows.
    """
    assert reason in REASONS, reason
    if any(ch.after < 0 for ch in changes):
        bad = next(ch for ch in changes if ch.after < 0)
        raise NegativeQuantity(negative_message(bad.before, bad.delta))
    connection = session.connection()
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    # Straight to the driver (executemany): SQLAlchemy's per-row parameter processing cost more
    # than the statements on 100,000 rows. Times are aware UTC (SQLModel's UTCDateTime);
    # SQLite stores them as UTC text without the offset, as SQLAlchemy does.
    utc = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    at: Any = utc.strftime("%Y-%m-%d %H:%M:%S.%f") if connection.dialect.name == "sqlite" else utc
    missing = [ch for ch in changes if (ch.printing_id, ch.grade) not in current]
    present = [ch for ch in changes if (ch.printing_id, ch.grade) in current]
    if missing:
        # New items are inserted with their final values. A plain INSERT: should a concurrent
        # transaction have created one of them meanwhile, the unique index refuses and the
        # whole change fails (nothing written) rather than overwrite it.
        columns = ("user_id", "printing_id", *GRADE_COLUMNS, "quantity", "for_trade", "note", "updated_at")
        _insert_rows(
            connection,
            "collection_item",
            columns,
            [
                (
                    user_id,
                    ch.printing_id,
                    ch.grade.condition,
                    ch.grade.language,
                    ch.grade.finish,
                    ch.after,
                    ch.for_trade_after,
                    "",
                    at,
                )
                for ch in missing
            ],
        )
    if present:
        connection.exec_driver_sql(
            f"UPDATE collection_item SET quantity = {mark}, for_trade = {mark}, updated_at = {mark} WHERE id = {mark}",
            [(ch.after, ch.for_trade_after, at, current[(ch.printing_id, ch.grade)].id) for ch in present],
        )
    rows = [_ledger_row(user_id, ch, reason, ref, import_id, at) for ch in changes]
    if rows:
        names = tuple(rows[0])
        _insert_rows(connection, "ledger_entry", names, [tuple(row[n] for n in names) for row in rows])
    _for_trade_fell(session, user_id, changes, now)


def _insert_rows(connection: Any, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
    """Many rows into a table: COPY on PostgreSQL (several times faster), executemany elsewhere."""
    if connection.dialect.name == "postgresql":
        driver: Any = connection.connection.driver_connection
        with driver.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    marks = ", ".join("?" for _ in columns)
    connection.exec_driver_sql(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)


def apply_deltas(
    *,
    session: Session,
    user_id: int,
    deltas: Mapping[Key, int],
    reason: str,
    ref: str = "",
    import_id: int | None = None,
    now: datetime,
) -> list[ItemChange]:
    """Add quantities to many items at once (e.g. a booster opening), all or nothing."""
    current = lock_items(session, user_id)
    targets = {}
    for key, delta in deltas.items():
        state = current.get(key)
        quantity = (state.quantity if state else 0) + delta
        targets[key] = (quantity, min(state.for_trade if state else 0, quantity))
    changes = plan_targets(current, targets)
    write_changes(
        session=session,
        user_id=user_id,
        current=current,
        changes=changes,
        reason=reason,
        ref=ref,
        import_id=import_id,
        now=now,
    )
    return changes


def add_opening(
    *, session: Session, user_id: int, opening: Any, grade: ItemGrade = DEFAULT_GRADE, now: datetime
) -> list[ItemChange]:
    """Put every card of a booster opening into the collection (reason pack, ref "SET seed S").

    ``opening`` is a :class:`catalog.boosters.opening.Opening`; its ``collection_lines`` give
    the printings and copies. The seed in the ref lets anyone replay the very opening.
    """
    from catalog.boosters.opening import collection_lines

    deltas: dict[Key, int] = {}
    for line in collection_lines(opening):
        deltas[(line.printing_id, grade)] = deltas.get((line.printing_id, grade), 0) + line.quantity
    ref = f"{opening.model.set_code} seed {opening.seed}"
    return apply_deltas(session=session, user_id=user_id, deltas=deltas, reason="pack", ref=ref, now=now)


# ---------------------------------------------------------------------------- the invariant


def check_ledger(session: Session, user_ids: Iterable[int] | None = None) -> list[str]:
    """Discrepancies between the ledger and the items (empty when all is well).

    Per (user, printing, grade): the sums of ``delta`` and ``trade_delta`` must equal the
    item's quantity and quantity for trade (a missing item counts as 0 / 0), and no quantity
    may be negative or below its quantity for trade. Two GROUP BY queries.
    """
    L, c = LEDGER.c, ITEMS.c
    keys = (L.user_id, L.printing_id, L.condition, L.language, L.finish)
    sums_q = select(*keys, func.sum(L.delta), func.sum(L.trade_delta)).group_by(*keys)
    items_q = select(c.user_id, c.printing_id, c.condition, c.language, c.finish, c.quantity, c.for_trade)
    if user_ids is not None:
        wanted = list(user_ids)
        sums_q = sums_q.where(L.user_id.in_(wanted))
        items_q = items_q.where(c.user_id.in_(wanted))
    sums = {tuple(row[:5]): (int(row[5] or 0), int(row[6] or 0)) for row in session.execute(sums_q)}
    problems = []
    for row in session.execute(items_q):
        key, quantity, for_trade = tuple(row[:5]), row[5], row[6]
        expected = sums.pop(key, (0, 0))
        if (quantity, for_trade) != expected:
            problems.append(f"item {key}: quantity {quantity}/for trade {for_trade}, ledger sums {expected}")
        if quantity < 0 or not 0 <= for_trade <= quantity:
            problems.append(f"item {key}: impossible quantity {quantity}/for trade {for_trade}")
    for key, expected in sums.items():
        if expected != (0, 0):
            problems.append(f"no item {key}, but the ledger sums to {expected}")
    return problems

"""The collection's shapes: an item, a change to one, the ledger, a CSV import's report."""

from __future__ import annotations

from datetime import UTC
from typing import Any, Literal

from pydantic import Field

from catalog.collection.csvio import CsvProblem as Problem
from catalog.collection.imports import CollectionImportReport
from catalog.collection.items import MAX_DELTA, ItemResult
from catalog.collection.reads import HistoryRow
from webapp.shapes import Shape, WholeNumber

_CONDITION = "品相 NM / LP / MP / HP / DMG（别名也可），默认 NM"
_LANGUAGE = "语言 简中 / 繁中 / EN / 日，默认 简中"
_FINISH = "工艺 普通 / 闪，默认 普通"


class CollectionItem(Shape):
    """One item of a collection (a printing in one grade); after a change, ``delta`` too."""

    game: str | None = None
    set: str
    number: str
    name: str
    rarity: str
    condition: str = Field(description=_CONDITION)
    language: str = Field(description=_LANGUAGE)
    finish: str = Field(description=_FINISH)
    quantity: int = Field(ge=0)
    for_trade: int = Field(ge=0)
    note: str | None = None
    delta: int | None = Field(None, description="POST only: the change just made")

    @classmethod
    def changed(cls, result: ItemResult) -> CollectionItem:
        """The item after :func:`catalog.collection.change_item`."""
        grade, change = result.change.grade, result.change
        return cls(
            game=result.printing.set.game,
            set=result.printing.set.code,
            number=result.printing.number,
            name=result.printing.name,
            condition=grade.condition,
            language=grade.language,
            finish=grade.finish,
            quantity=change.after,
            for_trade=change.for_trade_after,
            delta=change.delta,
            rarity=result.printing.rarity,
        )


class CollectionPage(Shape):
    items: list[CollectionItem]
    total: int
    page: int
    per_page: int
    has_more: bool


class CollectionChange(Shape):
    """Add (or remove, delta < 0) copies of one printing. null is read as "not given" (the
    default grade), as the server does."""

    set: str = Field(min_length=1, description="系列代号，如 M4")
    number: str = Field(min_length=1, description="收藏编号，如 M4-001")
    delta: WholeNumber = Field(ge=-MAX_DELTA, le=MAX_DELTA)
    game: str | None = Field(None, description="a set code used by several games needs it")
    condition: str | None = Field(None, description=_CONDITION)
    language: str | None = Field(None, description=_LANGUAGE)
    finish: str | None = Field(None, description=_FINISH)


class CsvProblem(Shape):
    line: int = Field(description="1 = the header row")
    column: str = Field(description="the column as written")
    message: str
    message_en: str

    @classmethod
    def of(cls, problem: Problem) -> CsvProblem:
        return cls(line=problem.line, column=problem.column, message=problem.message.zh, message_en=problem.message.en)


class ImportReport(Shape):
    """What an import did (or, in a dry run, would do)."""

    mode: str
    dry_run: bool
    import_id: int | None
    preset: str
    preset_label: str
    ignored_columns: list[str]
    mapped: bool
    header: list[str]
    source: dict[str, Any] = Field(description="kind (csv/xlsx), encoding, delimiter, sheet")
    rows: int
    merged: int
    lines_added: int
    lines_changed: int
    lines_removed: int
    cards_added: int
    cards_removed: int
    changes: list[dict[str, Any]]

    @classmethod
    def of(cls, report: CollectionImportReport) -> ImportReport:
        return cls.model_validate(report, from_attributes=True)


class LedgerEntry(Shape):
    id: int
    set: str
    number: str
    name: str
    condition: str
    language: str
    finish: str
    delta: int
    trade_delta: int
    reason: Literal["manual", "import", "undo", "pack", "trade"]
    ref: str = Field(description="import #N, 'M4 seed 42', trade id …")
    import_id: int | None
    at: str = Field(json_schema_extra={"format": "date-time"})

    @classmethod
    def of(cls, row: HistoryRow) -> LedgerEntry:
        at = row.at if row.at.tzinfo else row.at.replace(tzinfo=UTC)
        return cls.model_validate(
            {**row.__dict__, "at": at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")},
        )


class Ledger(Shape):
    entries: list[LedgerEntry]
    page: int
    per_page: int
    has_more: bool

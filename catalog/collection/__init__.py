"""Collections: items, the ledger, CSV import/export, wants and haves, read models.

Quantities change only through :mod:`catalog.collection.ledger`; every other module here goes
through it. The modules, split along the domain:

- ``grades``: condition / language / finish vocabularies and their aliases;
- ``items``: one item by set + number (what the API calls);
- ``ledger``: ``adjust`` (one item), bulk changes, booster openings, ``check_ledger``;
- ``presets`` / ``sheets`` / ``csvio`` / ``imports``: reading files from every tool (CSV, XLSX),
  importing and undoing them; ``mappings``: remembered column mappings; ``exports``: files for
  the same tools;
- ``wants``: want list, have list, the keep-N rule;
- ``views``: totals, set completion, the item list, history.

Saved decks live with the other deck code, in :mod:`catalog.collection.saved_decks`; finding printings from
set + number / name is :mod:`catalog.lookup`.
"""

from catalog.collection.csvio import CollectionFileError, CsvProblem
from catalog.collection.exports import export_collection, export_xlsx
from catalog.collection.grades import BadGrade, ItemGrade
from catalog.collection.imports import CollectionImportReport, import_collection, undo_import
from catalog.collection.items import ItemResult, change_for_trade, change_item
from catalog.collection.ledger import (
    BadTradeQuantity,
    ItemChange,
    NegativeQuantity,
    add_opening,
    adjust,
    check_ledger,
    set_for_trade,
    set_note,
)

__all__ = [
    "BadGrade",
    "BadTradeQuantity",
    "CollectionFileError",
    "CollectionImportReport",
    "CsvProblem",
    "ItemChange",
    "ItemGrade",
    "ItemResult",
    "NegativeQuantity",
    "add_opening",
    "adjust",
    "change_for_trade",
    "change_item",
    "check_ledger",
    "export_collection",
    "export_xlsx",
    "import_collection",
    "set_for_trade",
    "set_note",
    "undo_import",
]

"""Catalogue import (DESIGN §3): ``import_catalogue`` and what it reports."""

from catalog.ingest.apply import import_catalogue, import_rows
from catalog.ingest.bulk import vacuum_after_import
from catalog.ingest.crosscheck import legal_set_codes
from catalog.ingest.sources import Problem
from catalog.ingest.validate import ImportFailed
from catalog.ingest.write import ImportReport

__all__ = [
    "ImportFailed",
    "ImportReport",
    "Problem",
    "import_catalogue",
    "import_rows",
    "legal_set_codes",
    "vacuum_after_import",
]

"""Catalogue import (DESIGN §3): ``import_catalogue`` and what it reports."""

from catalog.ingest.apply import ImportFailed, ImportReport, import_catalogue, legal_set_codes
from catalog.ingest.sources import Problem

__all__ = ["ImportFailed", "ImportReport", "Problem", "import_catalogue", "legal_set_codes"]

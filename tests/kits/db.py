"""Test helpers shared by several modules."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine

from catalog.models import load_all


def table_counts(engine: Engine) -> dict[str, int]:
    """Row count of every table: the 'database unchanged' check of the bad-input tests."""
    with engine.connect() as connection:
        return {
            table.name: connection.execute(text(f'SELECT COUNT(*) FROM "{table.name}"')).scalar_one()
            for table in load_all().sorted_tables
        }

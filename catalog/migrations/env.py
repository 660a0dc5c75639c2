"""Alembic environment: runs against the engine handed over in ``config.attributes``."""

from __future__ import annotations

from alembic import context

from catalog.db import schema_filter
from catalog.models import load_all

config = context.config
target_metadata = load_all()  # every table of every area (catalog/models/__init__.py)


def run_migrations_online() -> None:
    engine = config.attributes["engine"]
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            include_object=schema_filter(connection.dialect.name),
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()

"""Tests share templates, never rows: each run of this test must find the pristine database its
fixture promises, then leaves rows behind (the next run would see them if anything leaked)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.accounts import create_user
from catalog.models import Card, Printing, User
from tests.kits.db import table_counts

LEAK = "漏网之鱼"


def _write_rows(engine: Engine) -> None:
    with catalog_db.transaction(engine) as session:
        create_user(
            session=session,
            username="leaky",
            password="correct horse battery",
            role="user",
            now=datetime(2026, 1, 1, tzinfo=UTC),
            hash_method="pbkdf2:sha256:1",
        )
        card = session.scalars(select(Card).order_by(Card.id)).first()
        if card is not None:
            card.name = LEAK


@pytest.mark.parametrize("run", [1, 2])
def test_an_empty_database_stays_empty_between_tests(engine: Engine, run: int) -> None:
    assert set(table_counts(engine).values()) == {0}
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(User)) == 0
    _write_rows(engine)


@pytest.mark.parametrize("run", [1, 2])
def test_the_sample_catalogue_is_pristine_in_every_test(sample_catalogue: Engine, run: int) -> None:
    with Session(sample_catalogue) as session:
        assert session.scalar(select(func.count()).select_from(Printing)) == 655 + 50 + 50 + 50
        assert session.scalar(select(func.count()).select_from(User)) == 0
        assert session.scalars(select(Card).where(Card.name == LEAK)).first() is None
    _write_rows(sample_catalogue)
    with Session(sample_catalogue) as session:  # new rows get fresh ids after the copied ones
        assert session.scalars(select(User.username)).all() == ["leaky"]


def test_engines_share_compiled_sql_never_rows(tmp_path: Path) -> None:
    """The suite's SQLite engines reuse each other's compiled statements (tests/kits/db.py): the
    second engine finds the first's statement compiled, and still reads its own file's rows."""
    from sqlalchemy import Column, Integer, MetaData, String, Table
    from sqlalchemy.engine.default import DefaultDialect

    player = Table("player", MetaData(), Column("id", Integer, primary_key=True), Column("name", String(20)))
    statement = select(player.c.name).where(player.c.id > 0).order_by(player.c.name)
    engines = [catalog_db.make_engine(f"sqlite:///{tmp_path / name}.sqlite3") for name in ("one", "two")]
    try:
        found, hits = [], []
        for number, engine in enumerate(engines):
            with engine.begin() as connection:
                player.create(connection)
                connection.execute(player.insert().values(name=f"player-{number}"))
            with engine.connect() as connection:
                result = connection.execute(statement)
                hits.append(result.context.cache_hit)
                found.append(result.scalars().all())
    finally:
        for engine in engines:
            engine.dispose()
    assert found == [["player-0"], ["player-1"]]
    assert hits[1] == DefaultDialect.CACHE_HIT

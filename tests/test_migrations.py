"""Migrations: an empty database upgraded to head matches the models exactly."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from catalog import db as catalog_db
from catalog.models import load_all
from tests.conftest import ON_POSTGRES, POSTGRES_URL


def test_upgrade_from_empty_matches_models(tmp_path: Path) -> None:
    if ON_POSTGRES:
        engine = catalog_db.make_engine(POSTGRES_URL)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA IF EXISTS migration_check CASCADE")
            connection.exec_driver_sql("CREATE SCHEMA migration_check")
        engine.dispose()
        engine = catalog_db.make_engine(POSTGRES_URL)
        from sqlalchemy import event

        @event.listens_for(engine, "connect")
        def _search_path(dbapi_connection, _record):
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET search_path TO migration_check")
            dbapi_connection.commit()
    else:
        engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    assert catalog_db.is_empty(engine)
    catalog_db.upgrade(engine)
    assert not catalog_db.is_empty(engine)
    with engine.connect() as connection:
        # (schema_filter: PostgreSQL-only indexes are not SQLite's schema, nor asked of it)
        opts = {"compare_type": True, "include_object": catalog_db.schema_filter(connection.dialect.name)}
        with warnings.catch_warnings():
            # PostgreSQL's character index (migration 0015) is an expression index: on SQLite,
            # where it does not exist, alembic warns it cannot compare one before it asks
            # include_object. On PostgreSQL it is compared like any other index.
            warnings.filterwarnings(
                "ignore", r"autogenerate skipping metadata-specified expression-based index .*dialect 'sqlite'"
            )
            diff = compare_metadata(MigrationContext.configure(connection, opts=opts), load_all())
        assert diff == []
        tables = set(inspect(connection).get_table_names())
    assert set(load_all().tables) <= tables
    catalog_db.upgrade(engine)  # a second upgrade is a no-op
    engine.dispose()
    if ON_POSTGRES:
        cleanup = catalog_db.make_engine(POSTGRES_URL)
        with cleanup.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA migration_check CASCADE")
        cleanup.dispose()


def test_sqlite_runs_in_wal_with_foreign_keys(tmp_path: Path) -> None:
    engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 'p.sqlite3'}")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_card_search_is_derived_for_cards_imported_before_it(tmp_path: Path) -> None:
    """Revisions 0002 and 0004 fill card_search and card_text from existing cards exactly as
    the importer would (0004 adds the printing summaries: rarity mask and set count)."""
    from sqlalchemy import text

    from catalog.ingest import import_catalogue
    from tests.conftest import SAMPLE

    engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 'd.sqlite3'}")
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[SAMPLE / "samsara"])
    query = text("SELECT * FROM card_search ORDER BY card_id")
    texts = text("SELECT * FROM card_text ORDER BY card_id")
    with engine.connect() as connection:
        from_importer = connection.execute(query).all()
        texts_from_importer = connection.execute(texts).all()
        assert connection.execute(text("SELECT count(*) FROM card_search WHERE set_count > 1")).scalar()
        assert connection.execute(text("SELECT count(*) FROM card_search WHERE rarity_mask = 0")).scalar() == 0
    from alembic import command

    command.downgrade(catalog_db.alembic_config(engine), "0001")
    catalog_db.upgrade(engine)
    with engine.connect() as connection:
        assert connection.execute(query).all() == from_importer
        assert connection.execute(texts).all() == texts_from_importer
    assert len(from_importer) > 600
    engine.dispose()


def test_0009_adds_and_drops_the_want_language_and_finish(tmp_path: Path) -> None:
    """Nullable columns: wants existing before 0009 keep meaning "any language, any finish"."""
    from alembic import command

    engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    catalog_db.upgrade(engine)
    command.downgrade(catalog_db.alembic_config(engine), "0008")
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("want_item")}
    assert "language" not in columns and "finish" not in columns and "min_condition" in columns
    catalog_db.upgrade(engine)
    with engine.connect() as connection:
        found = {c["name"]: c for c in inspect(connection).get_columns("want_item")}
        assert found["language"]["nullable"] and found["finish"]["nullable"]
    engine.dispose()


@pytest.mark.skipif(not ON_POSTGRES, reason="0015 rebuilds card_search on PostgreSQL only")
def test_0015_rebuilds_card_search_integers_first_keeping_its_rows() -> None:
    """PostgreSQL's card_search is rebuilt with the integers ahead of the strings (scans find
    them sooner): the same rows, keys and indexes, and the same search answers after it."""
    from sqlalchemy import event, text
    from sqlmodel import Session

    from catalog.ingest import import_catalogue
    from catalog.search import search
    from tests.conftest import SAMPLE

    setup = catalog_db.make_engine(POSTGRES_URL)
    with setup.begin() as connection:
        connection.exec_driver_sql("DROP SCHEMA IF EXISTS migration_0015 CASCADE")
        connection.exec_driver_sql("CREATE SCHEMA migration_0015")
    setup.dispose()
    engine = catalog_db.make_engine(POSTGRES_URL)

    @event.listens_for(engine, "connect")
    def _search_path(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET search_path TO migration_0015")
        dbapi_connection.commit()

    columns = (
        "card_id, game_id, name, sort_key, keys, type, subtype_key, attr_mask, faction_key, cost_total, attack,"
        " defense, level, rarity_mask, set_count"
    )
    queries = ["龙", "孙悟空", "t:战魂 a:火 cost<=3", "r>=SR", "is:reprint"]

    def state() -> tuple[list[Any], list[tuple[str, list[str]]]]:
        with Session(engine) as session:
            rows = list(session.execute(text(f"SELECT {columns} FROM card_search ORDER BY card_id")))
            answers = [(q, [h.card.name for h in search(session=session, text=q, per_page=175).hits]) for q in queries]
        return rows, answers

    try:
        catalog_db.upgrade(engine, "0013")
        # Today's importer and search use today's columns: the ones later migrations add to the
        # tables they read exist until the upgrade (card_set.source), which adds them.
        with engine.begin() as connection:
            connection.exec_driver_sql("ALTER TABLE card_set ADD COLUMN source varchar(500) NOT NULL DEFAULT ''")
            # and printing.printed_text (0026, which adds it only when missing)
            connection.exec_driver_sql("ALTER TABLE printing ADD COLUMN printed_text TEXT NOT NULL DEFAULT ''")
        with catalog_db.transaction(engine) as session:
            import_catalogue(session=session, paths=[SAMPLE / "samsara"])
        before = state()
        with engine.begin() as connection:
            connection.exec_driver_sql("ALTER TABLE card_set DROP COLUMN source")
        catalog_db.upgrade(engine)
        assert state() == before and len(before[0]) > 600
        with engine.connect() as connection:
            order = connection.execute(
                text(
                    "SELECT column_name, data_type FROM information_schema.columns"
                    " WHERE table_schema = 'migration_0015' AND table_name = 'card_search' ORDER BY ordinal_position"
                )
            ).all()
            indexes = set(
                connection.execute(
                    text(
                        "SELECT indexname FROM pg_indexes"
                        " WHERE schemaname = 'migration_0015' AND tablename = 'card_search'"
                    )
                ).scalars()
            )
            cascade = connection.execute(
                text(
                    "SELECT confdeltype FROM pg_constraint"
                    " WHERE conname = 'card_search_card_id_fkey' AND connamespace = 'migration_0015'::regnamespace"
                )
            ).scalar()
        assert [t for _c, t in order[:9]] == ["integer"] * 9 and order[-1][0] == "keys"
        assert indexes == {"card_search_pkey", "ix_card_search_keys_trgm", "ix_card_search_keys_chars"}
        assert cascade == "c"
    finally:
        engine.dispose()
        cleanup = catalog_db.make_engine(POSTGRES_URL)
        with cleanup.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA migration_0015 CASCADE")
        cleanup.dispose()


def test_0025_makes_accounts_of_the_stores_in_use(tmp_path: Path) -> None:
    """every store name in use becomes a store, its events' organisers its staff."""
    from alembic import command
    from sqlalchemy import text

    engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 's.sqlite3'}")
    catalog_db.upgrade(engine)
    from datetime import UTC, datetime

    from sqlmodel import Session

    from catalog.accounts import create_user

    with Session(engine) as session, session.begin():  # the user made by today's model, then back to 0024
        shop = create_user(session=session, username="shop", password="x" * 12, role="organizer",
                           now=datetime(2026, 1, 1, tzinfo=UTC), hash_method="pbkdf2:sha256:1")  # fmt: skip
        shop_id = shop.id
    command.downgrade(catalog_db.alembic_config(engine), "0024")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO event (name, organizer_id, store, store_key, city, region, game, format_code, date, entry_fee,"
            " top_cut, third_place, kind, state, pairing_system, tiebreakers, round_minutes, lists_published,"
            " chests_awarded, created_at) VALUES ('月赛', :shop, '卡牌竞技场', '卡牌竞技场', '上海', '', 'samsara', '',"
            " '2026-11-28', '', 0, 'swiss', 'monthly', 'open', 'swiss', 'mtr', 50, 0, 0, '2026-11-01')"
        ), {"shop": shop_id})  # fmt: skip
        connection.execute(text(
            "INSERT INTO chest_exchange_item (store_key, name, price, valid_from, updated_at)"
            " VALUES ('龙城', '补充包', 3, '2026-01-01', '2026-01-01')"
        ))  # fmt: skip
    catalog_db.upgrade(engine)
    with engine.connect() as connection:
        stores = dict(connection.execute(text("SELECT key, name FROM store")).all())
        staff = connection.execute(
            text("SELECT s.key, st.user_id FROM store_staff st JOIN store s ON s.id = st.store_id")
        ).all()
        policy = connection.execute(text("SELECT deck_policy FROM event")).scalar()
    assert (
        stores == {"卡牌竞技场": "卡牌竞技场", "龙城": "龙城"}
        and staff == [("卡牌竞技场", shop_id)]
        and policy == "required"
    )
    engine.dispose()

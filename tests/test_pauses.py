"""The garbage collector is paused while a large structure is built (catalog/pauses.py): the
import, a game's card pool and its name index. Building hundreds of thousands of long-lived
objects otherwise triggers full collections that walk all of them."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog import fuzzy
from catalog.decks import check
from catalog.ingest import import_catalogue
from catalog.ingest import write as ingest_write
from catalog.pauses import collector_paused
from tests.kits.ingest import small_catalogue


def test_nested_pauses_turn_the_collector_back_on_once() -> None:
    assert gc.isenabled()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_import_runs_with_the_collector_paused(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    insert = ingest_write.bulk_insert

    def spy(*args: Any) -> None:
        seen.append(gc.isenabled())
        insert(*args)

    monkeypatch.setattr(ingest_write, "bulk_insert", spy)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[small_catalogue(tmp_path)])
    assert seen and not any(seen)
    assert gc.isenabled()


def test_the_card_pool_and_its_name_index_are_built_with_the_collector_paused(
    sample_catalogue: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, list[bool]] = {"pool": [], "index": []}
    card_of, grams = check._pool_card_of, fuzzy.grams

    def pool_spy(*args: Any) -> Any:
        seen["pool"].append(gc.isenabled())
        return card_of(*args)

    def grams_spy(text: str) -> Any:
        seen["index"].append(gc.isenabled())
        return grams(text)

    monkeypatch.setattr(check, "_pool_card_of", pool_spy)
    monkeypatch.setattr(fuzzy, "grams", grams_spy)
    check._pools.clear()
    with Session(sample_catalogue) as session:
        pool = check.load_pool(session, "samsara")
        pool.suggest("不存在的卡名")
    assert seen["pool"] and not any(seen["pool"])
    assert seen["index"] and not any(seen["index"][: len(pool.by_key)])
    assert gc.isenabled()

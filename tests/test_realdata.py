"""Real third-party data: the KeyForge community card-data file (shared/realdata, not copied)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.ingest import ImportFailed, import_catalogue
from catalog.models import Card, CardKeyword, CardSet, Printing
from catalog.text import fold
from tests.conftest import REALDATA
from tests.kits.db import table_counts

COTA = REALDATA / "keyforge-CotA.json"
# The file is third-party data kept outside the repository (CI has ../shared/realdata beside it);
# a plain clone skips these tests, saying why, instead of failing on a missing file.
needs_cota = pytest.mark.skipif(not COTA.is_file(), reason=f"needs the real KeyForge data: {COTA} is absent")


def _import(engine: Engine, path: Path):
    with catalog_db.transaction(engine) as session:
        return import_catalogue(session=session, paths=[path])


@needs_cota
def test_cota_imports_with_chinese_names(engine: Engine) -> None:
    report = _import(engine, COTA)
    assert report.printings.added == 370
    with Session(engine) as session:
        anger = session.scalars(select(Card).where(Card.name == "怒火中烧")).one()
        assert anger.name_en == "Anger"
        assert anger.type == "行动" and anger.faction == "布罗布纳"
        assert anger.extra == {"amber": 1, "zhhant": "怒火中燒", "ids": ["anger"]}
        assert anger.pinyin == "nuhuozhongshao"
        cota = session.scalars(select(CardSet).where(CardSet.code == "CotA")).one()
        assert cota.release == "2018-11"
        numbers = session.scalars(select(Printing.number).where(Printing.set_id == cota.id)).all()
        assert len(numbers) == 370 and "001" in numbers
        # Traditional spelling finds the Simplified name through the folded key
        assert session.scalars(select(Card.name).where(Card.name_key == fold("怒火中燒"))).one() == "怒火中烧"
        assault = session.scalars(select(CardKeyword).where(CardKeyword.kind == "assault")).one()
        assert assault.value == 2
        variants = session.scalar(select(func.count()).select_from(Printing).where(Printing.rarity == "Special"))
        assert variants == 6  # 4 FIXED + 2 Variant, filed under Special


@needs_cota
def test_cota_reimport_is_a_no_op(engine: Engine) -> None:
    _import(engine, COTA)
    before = table_counts(engine)
    assert not _import(engine, COTA).changed
    assert table_counts(engine) == before


@needs_cota
def test_broken_community_json_is_refused(engine: Engine, tmp_path: Path) -> None:
    data = json.loads(COTA.read_text(encoding="utf-8"))
    # the vocabularies are open: a new word is accepted, a value that is no word is not
    data["cards"][4]["rarity"] = "Myth<ic>"
    data["cards"][7]["house"] = "atlantis!!"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=4), encoding="utf-8")
    with pytest.raises(ImportFailed) as error:
        _import(engine, path)
    messages = [str(p) for p in error.value.problems]
    assert len(messages) == 2
    assert "rarity: 未知的稀有度「Myth<ic>」" in messages[0]
    assert "house: 无法识别的派系「atlantis!!」" in messages[1]
    assert table_counts(engine)["card"] == 0


def test_json_that_is_not_the_format(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(ImportFailed) as error:
        _import(engine, path)
    assert "不是 KeyForge 社区卡牌数据格式" in str(error.value.problems[0])

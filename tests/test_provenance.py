"""each set says where its data comes from — our sample (the 样例数据 badge, only
there), an imported source (a manifest's ``source``, or the community file read, e.g. the
KeyForge CotA JSON), or the community — and links its history on the site."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest
import tomli_w
from sqlmodel import Session, select

from catalog import curation
from catalog import db as catalog_db
from catalog.curation.sets import provenance
from catalog.ingest import ImportFailed, import_catalogue
from catalog.models import Card, CardSet
from tests.conftest import REALDATA
from tests.kits.ingest import empty_tables, export_files
from webapp.db import get_engine

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
COTA = REALDATA / "keyforge-CotA.json"


def _set(session: Session, code: str) -> CardSet:
    return session.exec(select(CardSet).where(CardSet.code == code)).one()


def test_the_sample_keeps_its_badge_and_says_so(sample_app) -> None:
    page = sample_app.test_client().get("/sets/samsara/M4").get_data(as_text=True)
    assert 'data-provenance="sample"' in page and '<span class="sample-mark"' in page
    assert "/catalogue/set/" in page


def test_an_edit_is_counted_and_listed_on_the_set_history(sample_app, client, make_user) -> None:
    engine = get_engine(sample_app)
    with Session(engine) as session, session.begin():
        cura = make_user(session, "cura", role="curator")
        card = session.exec(select(Card).where(Card.name == "小红帽·森林歌者")).one()
        curation.edit_card(session=session, by=cura, card_id=card.id, cells={"attack": "3"}, note="实物", now=NOW)
        m4 = _set(session, "M4")
        assert provenance(session, m4).revisions == 1 and provenance(session, _set(session, "M1")).revisions == 0
        set_id = m4.id
    assert "社区修订 1 次" in client.get("/sets/samsara/M4").get_data(as_text=True)
    history = client.get(f"/catalogue/set/{set_id}/history").get_data(as_text=True)
    assert "小红帽·森林歌者" in history and "<ins>3</ins>" in history and "cura" in history
    assert client.get("/catalogue/set/99999999/history").status_code == 404


@pytest.mark.skipif(not COTA.exists(), reason="the real KeyForge file is not on this machine")
def test_the_real_keyforge_file_is_named_as_the_source_and_carries_no_badge(app, engine, tmp_path: Path) -> None:
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[COTA])
    page = app.test_client().get("/sets/keyforge/CotA").get_data(as_text=True)
    assert 'data-provenance="imported"' in page and "keyforge-CotA.json" in page
    assert '<span class="sample-mark"' not in page  # (the site footer names the sample once)
    first = export_files(engine, tmp_path / "one", ["keyforge"])
    assert b"keyforge-CotA.json" in first["keyforge/manifest.toml"]  # the source travels with the data
    empty_tables(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[tmp_path / "one" / "keyforge"])
    assert export_files(engine, tmp_path / "two", ["keyforge"]) == first


def test_a_manifest_source_is_shown_and_a_bad_one_refused(sample_catalogue, tmp_path: Path) -> None:
    export_files(sample_catalogue, tmp_path / "out", ["zhutian"])
    manifest_path = tmp_path / "out" / "zhutian" / "manifest.toml"
    manifest = tomllib.loads(manifest_path.read_text(encoding="utf-8"))
    manifest.pop("sample", None)
    manifest["source"] = "玩家整理的卡表（2026 年）"
    manifest_path.write_text(tomli_w.dumps(manifest), encoding="utf-8")
    empty_tables(sample_catalogue)
    with catalog_db.transaction(sample_catalogue) as session:
        import_catalogue(session=session, paths=[tmp_path / "out" / "zhutian"])
    with Session(sample_catalogue) as session:
        card_set = session.exec(select(CardSet)).first()
        assert card_set is not None
        found = provenance(session, card_set)
        assert (found.kind, found.source) == ("imported", "玩家整理的卡表（2026 年）")
    manifest["source"] = ["not", "text"]
    manifest_path.write_text(tomli_w.dumps(manifest), encoding="utf-8")
    with pytest.raises(ImportFailed) as refused, catalog_db.transaction(sample_catalogue) as session:
        import_catalogue(session=session, paths=[tmp_path / "out" / "zhutian"])
    assert refused.value.problems[0].column == "source"

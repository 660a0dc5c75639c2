"""Open data: ``lunzang catalogue export`` writes the import format back, and the round trip
(export → import into an empty database → export) gives the same catalogue and the same bytes."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.ingest.export import UnknownGame, file_name
from tests.conftest import REALDATA
from tests.kits.ingest import catalogue_by_names, empty_tables, export_files

COTA = REALDATA / "keyforge-CotA.json"


def _import(engine: Engine, paths: list[Path]) -> None:
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=paths)


def test_sample_round_trip_is_the_same_catalogue_and_the_same_bytes(sample_catalogue: Engine, tmp_path: Path) -> None:
    before = catalogue_by_names(sample_catalogue)
    first = export_files(sample_catalogue, tmp_path / "one")
    assert {"samsara/manifest.toml", "keyforge/manifest.toml"} <= set(first)
    empty_tables(sample_catalogue)
    assert catalogue_by_names(sample_catalogue)["cards"] == {}
    _import(sample_catalogue, sorted(p for p in (tmp_path / "one").iterdir() if p.is_dir()))
    assert catalogue_by_names(sample_catalogue) == before
    second = export_files(sample_catalogue, tmp_path / "two")
    assert second == first


def test_export_writes_the_contract_shape(sample_catalogue: Engine, tmp_path: Path) -> None:
    files = export_files(sample_catalogue, tmp_path / "out", ["samsara"])
    assert all(name.startswith("samsara/") for name in files)
    manifest = tomllib.loads(files["samsara/manifest.toml"].decode())
    assert manifest["game"] == "samsara" and manifest["sample"] is True
    m4 = next(s for s in manifest["sets"] if s["code"] == "M4")
    assert m4["series"] == "M" and m4["pack"] in manifest["packs"]
    assert manifest["packs"][m4["pack"]]["packs_per_box"] == 16
    header, *rows = files["samsara/cards/M4.csv"].decode().splitlines()
    assert header.split(",")[:6] == ["set", "number", "name", "rarity", "type", "text"]
    assert rows and all(row.startswith("M4,") for row in rows)


def test_set_codes_become_safe_distinct_file_names() -> None:
    used: set[str] = set()
    assert file_name("S13/SD", used) == "S13_SD"
    assert file_name("s13:sd", used) == "s13_sd-2"  # same name once folded: a second file, not an overwrite
    assert file_name("..", used) == "set"
    assert file_name("M4", used) == "M4"


def test_an_unknown_game_is_refused_and_writes_nothing(sample_catalogue: Engine, tmp_path: Path) -> None:
    with pytest.raises(UnknownGame) as raised:
        export_files(sample_catalogue, tmp_path / "out", ["magic"])
    assert "magic" in raised.value.message.zh and "samsara" in raised.value.message.en
    assert not (tmp_path / "out").exists()


def test_cli_exports_and_refuses_clearly(runner, sample_catalogue: Engine, tmp_path: Path) -> None:
    result = runner.invoke(args=["catalogue", "export", str(tmp_path / "out"), "--game", "zhutian"])
    assert result.exit_code == 0, result.output
    assert "zhutian" in result.output and (tmp_path / "out" / "zhutian" / "manifest.toml").is_file()
    bad = runner.invoke(args=["catalogue", "export", str(tmp_path / "out"), "--game", "nope"])
    assert bad.exit_code == 2 and "nope" in bad.output and "Traceback" not in bad.output
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    not_dir = runner.invoke(args=["catalogue", "export", str(a_file)])
    assert not_dir.exit_code == 2 and "Traceback" not in not_dir.output


@pytest.mark.skipif(not COTA.is_file(), reason=f"needs the real KeyForge data: {COTA} is absent")
def test_real_keyforge_round_trip(engine: Engine, tmp_path: Path) -> None:
    _import(engine, [COTA])
    before = catalogue_by_names(engine)
    first = export_files(engine, tmp_path / "one")
    empty_tables(engine)
    _import(engine, [tmp_path / "one" / "keyforge"])
    assert catalogue_by_names(engine) == before
    assert export_files(engine, tmp_path / "two") == first

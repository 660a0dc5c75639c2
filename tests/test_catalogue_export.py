"""Open data: ``lunzang catalogue export`` writes the import format back, and the round trip
(export → import into an empty database → export) gives the same catalogue and the same bytes."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.ingest.export import UnknownGame, export_catalogue, file_name
from catalog.models import BanEntry, Card, CardSet, Format, Game, PackTemplate, Printing, load_all
from tests.conftest import REALDATA

COTA = REALDATA / "keyforge-CotA.json"


def _export(engine: Engine, out: Path, games: list[str] | None = None) -> dict[str, bytes]:
    with catalog_db.transaction(engine) as session:
        export_catalogue(session=session, out=out, games=games)
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _empty(engine: Engine) -> None:
    tables = ", ".join(f'"{t.name}"' for t in load_all().sorted_tables)
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        else:
            for table in reversed(load_all().sorted_tables):
                connection.execute(table.delete())


def _import(engine: Engine, paths: list[Path]) -> None:
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=paths)


def _catalogue(engine: Engine) -> dict[str, Any]:
    """Everything the import format carries, keyed by names (never by ids)."""
    with Session(engine) as session:
        games = {g.id: g.slug for g in session.exec(select(Game)).all()}
        sets = {s.id: s for s in session.exec(select(CardSet)).all()}
        cards = {
            (games[c.game_id], c.name): (
                c.name_en, c.type, c.subtype, c.attributes, c.faction, c.cost_text, c.cost, c.cost_total,
                c.attack, c.defense, c.level, c.life, c.traits, c.keywords, c.text, c.extra,
            )
            for c in session.exec(select(Card)).all()
        }  # fmt: skip
        names = {c.id: (games[c.game_id], c.name) for c in session.exec(select(Card)).all()}
        printings = sorted(
            (games[sets[p.set_id].game_id], sets[p.set_id].code, p.number, names[p.card_id], p.rarity, p.flavor,
             p.illustrator, p.image)
            for p in session.exec(select(Printing)).all()
        )  # fmt: skip
        templates = {t.id: t.name for t in session.exec(select(PackTemplate)).all()}
        set_rows = sorted(
            (games[s.game_id], s.code, s.name, s.series, s.kind, s.release, s.description, s.sample,
             templates.get(s.pack_template_id))
            for s in sets.values()
        )  # fmt: skip
        formats = {
            (games[f.game_id], f.code): (f.name, f.rules, f.legal_sets, f.params)
            for f in session.exec(select(Format)).all()
        }
        bans = sorted(
            (f.code, names[b.card_id], b.limit)
            for b, f in session.exec(select(BanEntry, Format).join(Format, col(Format.id) == col(BanEntry.format_id)))
        )
        vocab = {g.slug: g.vocabulary for g in session.exec(select(Game)).all()}
    return {"cards": cards, "printings": printings, "sets": set_rows, "formats": formats, "bans": bans, "vocab": vocab}


def test_sample_round_trip_is_the_same_catalogue_and_the_same_bytes(sample_catalogue: Engine, tmp_path: Path) -> None:
    before = _catalogue(sample_catalogue)
    first = _export(sample_catalogue, tmp_path / "one")
    assert {"samsara/manifest.toml", "keyforge/manifest.toml"} <= set(first)
    _empty(sample_catalogue)
    assert _catalogue(sample_catalogue)["cards"] == {}
    _import(sample_catalogue, sorted(p for p in (tmp_path / "one").iterdir() if p.is_dir()))
    assert _catalogue(sample_catalogue) == before
    second = _export(sample_catalogue, tmp_path / "two")
    assert second == first


def test_export_writes_the_contract_shape(sample_catalogue: Engine, tmp_path: Path) -> None:
    files = _export(sample_catalogue, tmp_path / "out", ["samsara"])
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
        _export(sample_catalogue, tmp_path / "out", ["magic"])
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
    before = _catalogue(engine)
    first = _export(engine, tmp_path / "one")
    _empty(engine)
    _import(engine, [tmp_path / "one" / "keyforge"])
    assert _catalogue(engine) == before
    assert _export(engine, tmp_path / "two") == first

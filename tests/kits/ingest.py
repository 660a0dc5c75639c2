"""What an import wrote, as one digest per table (the streaming importer must write the same
rows as the importer it replaced,).

Surrogate ids differ between databases and between runs, so every row is written with natural
keys in their place: a game by its slug, a set by (game, code), a card by (game, name), a
printing by (set, number), a format by (game, code), a pack template by (game, name). The
catalogue version (random per import) is left out.

Also: small catalogue folders written for an import (``write_folder``, ``small_catalogue``), the
import and the export run in one transaction, and the catalogue read back by names.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col
from sqlmodel import select as select_models

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.ingest.export import export_catalogue
from catalog.ingest.synth import write_synthetic_catalogue
from catalog.models import (
    BanEntry,
    Card,
    CardKeyword,
    CardSearch,
    CardSet,
    CardText,
    CardTrait,
    Format,
    Game,
    PackTemplate,
    Printing,
    load_all,
    table_of,
)

DROPPED = {"id", "catalogue_version"}
# Columns added after the digests below were taken, left out while they hold their default, so the
# old importer's digests still describe what is written (card_set.source).
LATER = {"source": "", "printed_text": ""}


def catalogue_rows(engine: Engine) -> dict[str, list[str]]:
    """Every catalogue table's rows, with natural keys for ids, sorted."""
    with engine.connect() as connection:

        def rows(model: Any) -> list[dict[str, Any]]:
            table = table_of(model)
            return [dict(r) for r in connection.execute(select(table)).mappings()]

        games = {r["id"]: r["slug"] for r in rows(Game)}
        templates = {r["id"]: (games[r["game_id"]], r["name"]) for r in rows(PackTemplate)}
        sets = {r["id"]: (games[r["game_id"]], r["code"]) for r in rows(CardSet)}
        cards = {r["id"]: (games[r["game_id"]], r["name"]) for r in rows(Card)}
        formats = {r["id"]: (games[r["game_id"]], r["code"]) for r in rows(Format)}
        keys = {
            "game_id": games,
            "pack_template_id": templates,
            "set_id": sets,
            "card_id": cards,
            "format_id": formats,
        }
        found: dict[str, list[str]] = {}
        for model in (Game, PackTemplate, CardSet, Card, CardSearch, CardText, CardTrait, CardKeyword, Printing):
            found[table_of(model).name] = _lines(rows(model), keys)
        found[table_of(Format).name] = _lines(rows(Format), keys)
        found[table_of(BanEntry).name] = _lines(rows(BanEntry), keys)
    return found


def _lines(rows: list[dict[str, Any]], keys: dict[str, dict[int, Any]]) -> list[str]:
    out = []
    for row in rows:
        named = {
            column: (keys[column].get(value) if column in keys and value is not None else value)
            for column, value in row.items()
            if column not in DROPPED and not (column in LATER and value == LATER[column])
        }
        out.append(json.dumps(named, ensure_ascii=False, sort_keys=True, default=str))
    return sorted(out)


def catalogue_digest(engine: Engine) -> dict[str, str]:
    """sha256 of each table's sorted rows, plus its row count (``"card": "1234 ab12…"``)."""
    return {
        name: f"{len(lines)} {hashlib.sha256(chr(10).join(lines).encode()).hexdigest()[:16]}"
        for name, lines in catalogue_rows(engine).items()
    }


def synthetic(root: Path, printings: int) -> Path:
    """A synthetic 永恒之轮 catalogue folder of ``printings`` rows under ``root``."""
    return write_synthetic_catalogue(root, printings=printings, seed=3)


def read_rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def write_rows(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)


def names_by_count(folder: Path) -> dict[str, list[tuple[str, int]]]:
    """card name → [(csv file name, row index)] over the folder's CSV files."""
    found: dict[str, list[tuple[str, int]]] = {}
    for path in sorted((folder / "cards").glob("*.csv")):
        for index, row in enumerate(read_rows(path)[1:], start=1):
            found.setdefault(row[2], []).append((path.name, index))
    return found


def edit_synthetic(folder: Path) -> None:
    """Re-import material: a rarity changed, an erratum of a card printed twice (both printings
    rewritten), a card renamed (its old card is orphaned), one printing's flavour text added."""
    names = names_by_count(folder)
    twice = next(name for name, places in names.items() if len(places) == 2 and places[0][0] != places[1][0])
    once = [name for name, places in names.items() if len(places) == 1]
    edits: dict[tuple[str, int], Any] = {}
    for place in names[twice]:
        edits[place] = lambda row: [*row[:12], row[12] + "（勘误）", *row[13:]]
    edits[names[once[0]][0]] = lambda row: [*row[:3], "SR" if row[3] != "SR" else "C", *row[4:]]
    edits[names[once[1]][0]] = lambda row: [*row[:2], row[2] + "改", *row[3:]]
    edits[names[once[2]][0]] = lambda row: [*row[:13], "新的风味文字"]
    for path in sorted((folder / "cards").glob("*.csv")):
        rows = read_rows(path)
        changed = False
        for index in range(1, len(rows)):
            edit = edits.get((path.name, index))
            if edit is not None:
                rows[index] = edit(rows[index])
                changed = True
        if changed:
            write_rows(path, rows)


# The catalogue the importer's tests write (tests/test_import.py): two sets, a pack template,
# a format with a ban list.
MANIFEST = """game = "samsara"
[[sets]]
code = "T1"
name = "测试一"
series = "M"
kind = "booster"
pack = "standard"

[[sets]]
code = "T2"
name = "测试二"
series = "G"
kind = "collection"

[packs.standard]
packs_per_box = 16
[[packs.standard.slots]]
count = 7
rarity = { C = 1 }
[[packs.standard.slots]]
count = 1
rarity = { C = 40, R = 60 }

[[formats]]
code = "standard"
name = "标准"
legal_sets = ["*"]
banlist = { "火龙" = 1 }
"""
# The same with one banned name in Traditional script and a second ban.
SMALL_MANIFEST = MANIFEST.replace('banlist = { "火龙" = 1 }', 'banlist = { "火龍" = 1, "水灵" = 0 }')
assert SMALL_MANIFEST != MANIFEST
SMALL_ROWS = """set,number,name,rarity,type,subtype,attribute,cost,attack,defense,traits,keywords,text
T1,T1-001,火龙,C,战魂,,火,2火1无,3,3,龙,飞翔|军团(4),进场时抽一张牌。
T1,T1-002,水灵,R,战魂,,水,1水,1,2,妖精|元素,护盾(1),
T1,T1-003,风之术,C,魔法,持续,风,2风,,,,瞬间,所有风属性战魂攻击力+1。
T2,T2-001,火龙,R,战魂,,火,2火1无,3,3,龙,飞翔|军团(4),进场时抽一张牌。
"""


def small_catalogue(root: Path) -> Path:
    """A hand-written catalogue with a pack template, a format and a ban list (one name
    written in Traditional script, found by its folded form)."""
    folder = root / "small" / "samsara"
    (folder / "cards").mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(SMALL_MANIFEST, encoding="utf-8")
    (folder / "cards" / "cards.csv").write_text(SMALL_ROWS, encoding="utf-8")
    return folder


def scenario(engine: Engine, root: Path, run: Any, printings: int = 6000) -> list[dict[str, str]]:
    """A small hand-written catalogue, then a synthetic one of ``printings`` rows into the same
    game, then that one edited and imported again: the digest after each step
    (``run(engine, path)`` imports a folder)."""
    digests = []
    run(engine, small_catalogue(root))
    digests.append(catalogue_digest(engine))
    folder = synthetic(root, printings)
    run(engine, folder)
    digests.append(catalogue_digest(engine))
    edit_synthetic(folder)
    run(engine, folder)
    digests.append(catalogue_digest(engine))
    return digests


HEADER = "set,number,name,rarity,type,subtype,attribute,cost,attack,defense,traits,keywords,text"
ROWS = [
    "T1,T1-001,火龙,C,战魂,,火,2火1无,3,3,龙,飞翔|军团(4),进场时抽一张牌。",
    "T1,T1-002,水灵,R,战魂,,水,1水,1,2,妖精|元素,护盾(1),",
    "T1,T1-003,风之术,C,魔法,持续,风,2风,,,,瞬间,所有风属性战魂攻击力+1。",
    "T2,T2-001,火龙,R,战魂,,火,2火1无,3,3,龙,飞翔|军团(4),进场时抽一张牌。",
]


def write_folder(
    root: Path,
    rows: list[str] | None = None,
    manifest: str = MANIFEST,
    header: str = HEADER,
    name: str = "cards.csv",
    encoding: str = "utf-8",
) -> Path:
    folder = root / "samsara"
    (folder / "cards").mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(manifest, encoding="utf-8")
    body = "\n".join([header, *(ROWS if rows is None else rows)]) + "\n"
    (folder / "cards" / name).write_bytes(body.encode(encoding))
    return folder


def run_import(engine: Engine, *paths: Path):
    with catalog_db.transaction(engine) as session:
        return import_catalogue(session=session, paths=list(paths))


def export_files(engine: Engine, out: Path, games: list[str] | None = None) -> dict[str, bytes]:
    with catalog_db.transaction(engine) as session:
        export_catalogue(session=session, out=out, games=games)
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def empty_tables(engine: Engine) -> None:
    tables = ", ".join(f'"{t.name}"' for t in load_all().sorted_tables)
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        else:
            for table in reversed(load_all().sorted_tables):
                connection.execute(table.delete())


def catalogue_by_names(engine: Engine) -> dict[str, Any]:
    """Everything the import format carries, keyed by names (never by ids)."""
    with Session(engine) as session:
        games = {g.id: g.slug for g in session.exec(select_models(Game)).all()}
        sets = {s.id: s for s in session.exec(select_models(CardSet)).all()}
        cards = {
            (games[c.game_id], c.name): (
                c.name_en, c.type, c.subtype, c.attributes, c.faction, c.cost_text, c.cost, c.cost_total,
                c.attack, c.defense, c.level, c.life, c.traits, c.keywords, c.text, c.extra,
            )
            for c in session.exec(select_models(Card)).all()
        }  # fmt: skip
        names = {c.id: (games[c.game_id], c.name) for c in session.exec(select_models(Card)).all()}
        printings = sorted(
            (games[sets[p.set_id].game_id], sets[p.set_id].code, p.number, names[p.card_id], p.rarity, p.flavor,
             p.illustrator, p.image)
            for p in session.exec(select_models(Printing)).all()
        )  # fmt: skip
        templates = {t.id: t.name for t in session.exec(select_models(PackTemplate)).all()}
        set_rows = sorted(
            (games[s.game_id], s.code, s.name, s.series, s.kind, s.release, s.description, s.sample,
             templates.get(s.pack_template_id))
            for s in sets.values()
        )  # fmt: skip
        formats = {
            (games[f.game_id], f.code): (f.name, f.rules, f.legal_sets, f.params)
            for f in session.exec(select_models(Format)).all()
        }
        bans = sorted(
            (f.code, names[b.card_id], b.limit)
            for b, f in session.exec(
                select_models(BanEntry, Format).join(Format, col(Format.id) == col(BanEntry.format_id))
            )
        )
        vocab = {g.slug: g.vocabulary for g in session.exec(select_models(Game)).all()}
    return {"cards": cards, "printings": printings, "sets": set_rows, "formats": formats, "bans": bans, "vocab": vocab}

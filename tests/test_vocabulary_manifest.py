"""the optional ``[vocabulary]`` manifest table (DESIGN §3) and unknown keys.

The seeds name no 誅天 rarities and no KeyForge houses, so a real catalogue uses its publisher's
words: a declared rarity ladder replaces the game's default (``r>=``, pack templates and
completion then use it) and declared houses extend KeyForge's open list.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.boosters import complete_set, load_pack_model
from catalog.ingest import ImportFailed, import_catalogue
from catalog.models import Game, Printing
from catalog.search import QueryError, search
from webapp.shapes.catalogue import SetCompletion

ZHUTIAN = """game = "zhutian"
[vocabulary]
rarities = ["1", "2", "3", "4", "5"]

[[sets]]
code = "Z1"
name = "测试"
series = "基本"
kind = "booster"
pack = "basic"

[packs.basic]
packs_per_box = 2
[[packs.basic.slots]]
count = 2
rarity = { "1" = 1 }
[[packs.basic.slots]]
count = 1
rarity = { "3" = 3, "5" = 1 }
"""
ZHUTIAN_ROWS = (
    "set,number,name,rarity,type,faction,level,restriction,attack,defense,text\n"
    "Z1,Z1-001,小妖,1,活物,,1,無,1,1,\n"
    "Z1,Z1-002,山精,1,活物,,1,無,1,1,\n"
    "Z1,Z1-003,老妖,3,活物,,3,無,3,3,\n"
    "Z1,Z1-004,妖王,5,活物,,5,無,5,5,\n"
)
KEYFORGE = """game = "keyforge"
[vocabulary]
houses = { "蛮族" = ["manzu"], "魔域" = [] }

[[sets]]
code = "K1"
name = "测试"
series = "K"
kind = "collection"
"""
KEYFORGE_ROWS = (
    "set,number,name,rarity,type,house,amber,power,armor,traits,keywords,text\n"
    "K1,K1-001,蛮族战士,Common,生物,蛮族,0,3,0,,,\n"
    "K1,K1-002,魔域之门,Rare,神器,魔域,1,,,,,\n"
    "K1,K1-003,逻格斯学者,Common,生物,logos,1,2,0,,,\n"
)


def folder(root: Path, name: str, manifest: str, rows: str) -> Path:
    path = root / name
    (path / "cards").mkdir(parents=True)
    (path / "manifest.toml").write_text(manifest, encoding="utf-8")
    (path / "cards" / "cards.csv").write_text(rows, encoding="utf-8")
    return path


def run(engine: Engine, *paths: Path) -> None:
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=list(paths))


def problems(engine: Engine, *paths: Path) -> list[str]:
    with pytest.raises(ImportFailed) as error, catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=list(paths))
    return [str(p) for p in error.value.problems]


def names(engine: Engine, text: str) -> list[str]:
    with Session(engine) as session:
        return sorted(h.card.name for h in search(session=session, text=text).hits)


def test_a_declared_rarity_ladder_replaces_the_default(engine: Engine, tmp_path: Path) -> None:
    run(engine, folder(tmp_path, "zt", ZHUTIAN, ZHUTIAN_ROWS))
    with Session(engine) as session:
        ranks = {p.number: (p.rarity, p.rarity_rank) for p in session.scalars(select(Printing))}
        game = session.scalars(select(Game).where(Game.slug == "zhutian")).one()
        assert game.vocabulary["rarities"] == ["1", "2", "3", "4", "5"]
        model = load_pack_model(session=session, set_code="Z1", game="zhutian")
    assert ranks["Z1-004"] == ("5", 4) and ranks["Z1-001"] == ("1", 0)
    assert names(engine, "r>=3") == ["妖王", "老妖"]
    assert names(engine, "r<2") == ["小妖", "山精"]
    assert model.rarity_order[:5] == ("1", "2", "3", "4", "5")
    completion = SetCompletion.of(complete_set(model, trials=20, seed=1)).body()
    assert completion["complete"]["mean"] >= 1 and completion.get("unobtainable", 0) == 0
    # the same files again: a no-op, and the stored ladder holds for a catalogue without one
    run(engine, folder(tmp_path / "again", "zt", ZHUTIAN, ZHUTIAN_ROWS))
    plain = ZHUTIAN.replace('[vocabulary]\nrarities = ["1", "2", "3", "4", "5"]\n', "")
    run(engine, folder(tmp_path / "plain", "zt", plain, ZHUTIAN_ROWS))


def test_values_outside_the_declared_ladder_are_refused_with_file_and_line(engine: Engine, tmp_path: Path) -> None:
    rows = ZHUTIAN_ROWS + "Z1,Z1-005,错字,C,活物,,1,無,1,1,\n"
    found = problems(engine, folder(tmp_path, "zt", ZHUTIAN, rows))
    assert any("cards.csv:6: rarity" in p and "1 < 2 < 3 < 4 < 5" in p for p in found), found


def test_a_contradicting_ladder_is_refused_naming_both(engine: Engine, tmp_path: Path) -> None:
    run(engine, folder(tmp_path, "zt", ZHUTIAN, ZHUTIAN_ROWS))
    other = ZHUTIAN.replace('["1", "2", "3", "4", "5"]', '["5", "4", "3", "2", "1"]')
    found = problems(engine, folder(tmp_path / "b", "zt", other, ZHUTIAN_ROWS))
    assert any("manifest.toml:3: vocabulary.rarities" in p for p in found), found
    assert any("1 < 2 < 3 < 4 < 5" in p and "5 < 4 < 3 < 2 < 1" in p for p in found), found


def test_a_ladder_contradicting_the_default_in_use_is_refused(engine: Engine, tmp_path: Path) -> None:
    plain = (
        ZHUTIAN.replace('[vocabulary]\nrarities = ["1", "2", "3", "4", "5"]\n', "")
        .replace('rarity = { "1" = 1 }', "rarity = { C = 1 }")
        .replace('rarity = { "3" = 3, "5" = 1 }', "rarity = { R = 3, SR = 1 }")
    )
    rows = ZHUTIAN_ROWS.replace(",1,活物", ",C,活物").replace(",3,活物", ",R,活物").replace(",5,活物", ",SR,活物")
    run(engine, folder(tmp_path, "zt", plain, rows))
    found = problems(engine, folder(tmp_path / "b", "zt", ZHUTIAN, ZHUTIAN_ROWS))
    assert any("C < U < R < SR" in p and "1 < 2 < 3 < 4 < 5" in p for p in found), found


def test_declared_houses_extend_the_open_list(engine: Engine, tmp_path: Path) -> None:
    run(engine, folder(tmp_path, "kf", KEYFORGE, KEYFORGE_ROWS))
    assert names(engine, "f:蛮族") == ["蛮族战士"]
    assert names(engine, "f:manzu") == ["蛮族战士"]
    assert names(engine, "house:魔域") == ["魔域之门"]
    assert names(engine, "f:logos") == ["逻格斯学者"]  # the built-in houses stay


def test_a_house_outside_the_declared_list_is_a_new_word_a_malformed_one_is_refused(
    engine: Engine, tmp_path: Path
) -> None:
    """KeyForge's houses are open (every set brings new ones): a word outside the list
    is accepted, reported and searchable; a value that is no word is still refused."""
    rows = KEYFORGE_ROWS + "K1,K1-004,错字,Common,生物,蛮组!,0,1,0,,,\n"
    found = problems(engine, folder(tmp_path, "kf", KEYFORGE, rows))
    assert any("cards.csv:5: house" in p and "蛮组!" in p for p in found), found
    rows = KEYFORGE_ROWS + "K1,K1-004,新派系卡,Common,生物,蛮组,0,1,0,,,\n"
    with catalog_db.transaction(engine) as session:
        report = import_catalogue(session=session, paths=[folder(tmp_path, "kf2", KEYFORGE, rows)])
    assert report.new_words == {("keyforge", "house", "蛮组"): 1}
    assert names(engine, "f:蛮组") == ["新派系卡"]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (KEYFORGE.replace("[vocabulary]", '[vocabulary]\ncolours = { "红" = [] }'), "vocabulary.colours"),
        (ZHUTIAN.replace("[vocabulary]", '[vocabulary]\nhouses = { "仙" = [] }'), "vocabulary.houses"),
        (ZHUTIAN.replace('rarities = ["1", "2", "3", "4", "5"]', 'rarities = ["1", "1"]'), "vocabulary.rarities"),
        (ZHUTIAN.replace('rarities = ["1", "2", "3", "4", "5"]', "rarities = 5"), "vocabulary.rarities"),
        (KEYFORGE.replace('"魔域" = []', '"魔域" = "x"'), "vocabulary.houses"),
        ("sampel = true\n" + KEYFORGE, "manifest.toml:1: sampel"),
        (KEYFORGE.replace('kind = "collection"', 'kind = "collection"\nrelese = "2020"'), "manifest.toml:10: relese"),
        (KEYFORGE.replace("[vocabulary]", "[vocabulary]\n[vocabulary.extra]"), "vocabulary.extra"),
    ],
)
def test_bad_or_unknown_manifest_keys_are_reported(
    engine: Engine, tmp_path: Path, manifest: str, expected: str
) -> None:
    rows = ZHUTIAN_ROWS if "zhutian" in manifest else KEYFORGE_ROWS
    found = problems(engine, folder(tmp_path, "x", manifest, rows))
    assert any(expected in p for p in found), found


def test_an_undeclared_rarity_ladder_word_is_a_search_error(engine: Engine, tmp_path: Path) -> None:
    run(engine, folder(tmp_path, "zt", ZHUTIAN, ZHUTIAN_ROWS))
    with Session(engine) as session, pytest.raises(QueryError) as error:
        search(session=session, text="r>=SR g:zhutian")
    assert "1 < 2 < 3 < 4 < 5" in error.value.message.zh

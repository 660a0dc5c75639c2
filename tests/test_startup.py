"""What starting costs: creating the app, ``lunzang --help``, a search and a deck check
load none of the heavy libraries. pypinyin (~0.4 s: its phrase dictionary) is for an import
computing new pinyin keys, numpy for packs, pairings and misspelt names (RapidFuzz for those
too), Pillow for drawing,
networkx for pairing, openpyxl for score sheets, Alembic for migrating. ``lunzang --help``
builds no app at all: it imports no command, no model, no blueprint (webapp/cli_index.py), and
a command's own ``--help`` imports that command's module only. Checked by which modules a
fresh interpreter holds afterwards, not by time (timings: tests/benchmarks/test_cli_speed.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from tests.conftest import ROOT
from tests.kits.deck import legal_samsara_list

# Not SQLAlchemy's PostgreSQL dialect: the catalogue models declare PostgreSQL-only trigram
# indexes (catalog/models/catalogue.py, migration 0011) and SQLAlchemy loads the dialect to
# check their ``postgresql_*`` options when the models are defined — about 35 ms, on SQLite too.
HEAVY = ("pypinyin", "numpy", "PIL", "networkx", "openpyxl", "alembic", "rapidfuzz")

# Runs a ``lunzang`` command in this interpreter (or only creates the app), then prints the
# names of the modules it holds and of the table models whose pydantic validator was built.
PROBE = """
import json, sys
if sys.argv[1] == "create_app":
    from webapp import create_app
    create_app()
elif sys.argv[1] == "wsgi":
    import webapp.wsgi
else:
    from webapp.__main__ import cli
    try:
        cli.main(sys.argv[1:], prog_name="lunzang", standalone_mode=False)
    except SystemExit:
        pass
built = []
if "catalog.models" in sys.modules:
    from sqlmodel import SQLModel
    built = sorted(model.__name__ for model in SQLModel.__subclasses__() if model.__pydantic_complete__)
print()
print(json.dumps({"modules": sorted(sys.modules), "built": built}))
"""


def _probe(database_url: str, *args: str) -> dict[str, list[str]]:
    env = {**os.environ, "DATABASE_URL": database_url}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return found


def _modules(database_url: str, *args: str) -> list[str]:
    """Every module a fresh interpreter holds after running ``lunzang ARGS…``."""
    return _probe(database_url, *args)["modules"]


def _loaded(database_url: str, *args: str) -> list[str]:
    """Which of the heavy libraries ``lunzang ARGS…`` loaded."""
    modules = set(_modules(database_url, *args))
    return sorted(m for m in HEAVY if m in modules)


def _ours(modules: list[str]) -> list[str]:
    """The project's own modules among ``modules``, but the ``lunzang`` program itself."""
    program = {"webapp", "webapp.__main__", "webapp.cli_index"}
    return [m for m in modules if m.split(".")[0] in ("catalog", "webapp") and m not in program]


def _expected(database_url: str) -> list[str]:
    return []  # whatever the database: none of HEAVY is needed to search or check a deck


def test_creating_the_app_loads_no_heavy_library(database_url: str) -> None:
    assert _loaded(database_url, "create_app") == []


def test_help_loads_no_heavy_library(database_url: str) -> None:
    assert _loaded(database_url, "--help") == []


def test_help_builds_no_app_and_imports_no_command(database_url: str) -> None:
    """The list comes from webapp/cli_index.py: no command module, so no model, no blueprint, no
    game — not even SQLAlchemy."""
    modules = _modules(database_url, "--help")
    assert _ours(modules) == []
    assert "sqlalchemy" not in modules and "flask_babel" not in modules


@pytest.mark.parametrize(
    ("args", "module"),
    [(["deck", "--help"], "webapp.decks.cli"), (["search", "--help"], "webapp.cards.cli")],
)
def test_a_commands_help_imports_that_command_only(database_url: str, args: list[str], module: str) -> None:
    """Its module (and the blueprint package it sits in), not the app: no other blueprint."""
    modules = _modules(database_url, *args)
    assert module in modules
    assert not {"webapp.trading", "webapp.events", "webapp.api", "webapp.cli"} & set(modules)


@pytest.mark.parametrize("query", ["孙悟空", "sunwukong", "swk", "t:战魂 a:火 cost<=3"])
def test_search_needs_no_pinyin_dictionary(database_url: str, sample_catalogue: Engine, query: str) -> None:
    """The query is matched against the pinyin stored with every name: folding it needs OpenCC
    (Traditional → Simplified), never pypinyin."""
    assert _loaded(database_url, "search", query) == _expected(database_url)


def test_deck_check_loads_no_heavy_library(database_url: str, sample_catalogue: Engine, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(legal_samsara_list(sample_catalogue), encoding="utf-8")
    assert _loaded(database_url, "deck", "check", str(deck), "--game", "samsara") == _expected(database_url)


# The app's extensions: the whole app's (create_app), not the settings app's.
EXTENSIONS = ("flask_babel", "flask_login", "flask_wtf", "flask_limiter", "wtforms")


@pytest.mark.parametrize(
    ("args", "module"),
    [(["search", "孙悟空"], "webapp.cards.cli"), (["deck", "check", "DECK", "--game", "samsara"], "webapp.decks.cli")],
)
def test_search_and_deck_check_build_only_the_settings_app(
    database_url: str, sample_catalogue: Engine, tmp_path: Path, args: list[str], module: str
) -> None:
    """No extension, blueprint, page or other command: ``with_settings`` (webapp/cli_index.py)
    runs them in the app's settings and database (webapp.create_settings_app), and their
    blueprint package imports its pages only when the app registers it."""
    deck = tmp_path / "deck.txt"
    deck.write_text(legal_samsara_list(sample_catalogue), encoding="utf-8")
    modules = _modules(database_url, *[str(deck) if arg == "DECK" else arg for arg in args])
    package = module.rsplit(".", 1)[0]
    numbers = ["webapp.cli_numbers"] if module == "webapp.cards.cli" else []  # --page: the strict parser
    assert [m for m in _ours(modules) if m.startswith("webapp")] == sorted(
        [package, module, "webapp.config", "webapp.db", *numbers]
    )
    assert not {m.split(".")[0] for m in modules} & set(EXTENSIONS)


def test_the_heavy_libraries_still_load_where_they_are_used(database_url: str, sample_catalogue: Engine) -> None:
    """The lazy imports are reached: opening packs loads numpy (and nothing else heavy)."""
    assert _loaded(database_url, "packs", "open", "--set", "M4", "--packs", "1", "--seed", "1") == sorted(
        ["numpy", *_expected(database_url)]
    )


def test_a_misspelt_card_name_still_gets_its_suggestions(
    database_url: str, sample_catalogue: Engine, tmp_path: Path
) -> None:
    """A deck line naming no card: the nearest names (catalog/fuzzy.py) load numpy and RapidFuzz."""
    deck = tmp_path / "deck.txt"
    deck.write_text("3 孙悟空空\n", encoding="utf-8")
    assert _loaded(database_url, "deck", "check", str(deck), "--game", "samsara") == ["numpy", "rapidfuzz"]


def test_no_model_builds_its_pydantic_validator_to_search(database_url: str, sample_catalogue: Engine) -> None:
    """Table models are defined with ``defer_build`` (catalog/models/__init__.py): neither
    creating the app nor a search builds one (SQLModel makes table rows without validating)."""
    assert _probe(database_url, "create_app")["built"] == []
    assert _probe(database_url, "search", "孙悟空")["built"] == []


@pytest.mark.parametrize(
    "args", [["search", "孙悟空"], ["search", "t:战魂 a:火 cost<=3"], ["deck", "check", "DECK", "--game", "samsara"]]
)
def test_search_and_deck_check_define_the_catalogue_tables_only(
    database_url: str, sample_catalogue: Engine, tmp_path: Path, args: list[str]
) -> None:
    """Not the users', events' or trades' tables: an area of catalog/models is imported when one
    of its names is first used (catalog/models/__init__.py)."""
    deck = tmp_path / "deck.txt"
    deck.write_text(legal_samsara_list(sample_catalogue), encoding="utf-8")
    modules = _modules(database_url, *[str(deck) if arg == "DECK" else arg for arg in args])
    assert [m for m in modules if m.startswith("catalog.models")] == ["catalog.models", "catalog.models.catalogue"]


def test_the_model_index_names_every_model_of_every_area() -> None:
    """``AREAS`` (which module gives each name), ``__all__``, the ``TYPE_CHECKING`` imports and
    the modules agree: every table model of an area is given, from its own module; ``load_all``
    defines every table, and a name the index does not have is an ``AttributeError``."""
    import ast
    import importlib

    import catalog.models as models

    assert sorted(models.__all__) == sorted(name for names in models.AREAS.values() for name in names)
    declared = ast.parse((ROOT / "catalog" / "models" / "__init__.py").read_text(encoding="utf-8"))
    typed = {
        (node.module, alias.name)
        for node in ast.walk(declared)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("catalog.models.")
        for alias in node.names
    }
    assert typed == {(f"catalog.models.{area}", name) for area, names in models.AREAS.items() for name in names}
    tables = set()
    for area, names in models.AREAS.items():
        module = importlib.import_module(f"catalog.models.{area}")
        defined = {
            name
            for name, value in vars(module).items()
            if getattr(value, "__module__", None) == module.__name__ and hasattr(value, "__table__")
        }
        assert defined <= set(names), area
        for name in names:
            assert getattr(models, name) is getattr(module, name)
        tables |= {getattr(module, name).__table__.name for name in defined}
    assert set(models.load_all().tables) == tables
    with pytest.raises(AttributeError):
        models.NoSuchModel  # noqa: B018


def test_a_deferred_model_still_validates_and_dumps() -> None:
    from catalog.models import Format

    standard = Format.model_validate({"game_id": 1, "code": "standard", "name": "标准", "rules": "samsara"})
    assert Format.__pydantic_complete__
    assert standard.model_dump()["legal_sets"] == ["*"]


def test_a_served_process_loads_numpy_before_its_first_request(database_url: str) -> None:
    """The production entry point (gunicorn webapp.wsgi:app) imports numpy as it starts, so the
    first collection page or pack a worker serves does not wait for it (~0.15 s here); the
    command line and the app factory leave it lazy (above)."""
    assert "numpy" in _loaded(database_url, "wsgi")

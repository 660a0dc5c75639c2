"""The ``lunzang`` command index (webapp/cli_index.py,): ``lunzang --help`` lists the
commands without importing them, and says exactly what Flask's own group would have said after
building the app."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from flask import Flask
from flask.cli import FlaskGroup
from flask.testing import FlaskCliRunner
from sqlalchemy.engine import Engine

from tests.kits.deck import legal_samsara_list
from webapp import create_app
from webapp.__main__ import cli
from webapp.cli_index import COMMANDS, load_command


def test_the_index_names_every_command_of_the_app(database_url: str) -> None:
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "SECRET_KEY": "test"})
    context = click.Context(app.cli)
    assert sorted(COMMANDS) == app.cli.list_commands(context)
    for name in COMMANDS:
        assert app.cli.get_command(context, name) is load_command(name)
        assert load_command(name).name == name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_says_what_the_command_itself_says(name: str) -> None:
    """Whatever room the list gives it (click shortens the docstring's first paragraph to fit)."""
    summary = click.Command(name, help=COMMANDS[name][1])
    command = load_command(name)
    for limit in (30, 45, 60, 74, 10_000):
        assert summary.get_short_help_str(limit) == command.get_short_help_str(limit), limit


@pytest.mark.parametrize("width", [60, 80, 120])
def test_help_is_what_flask_lists_after_building_the_app(
    database_url: str, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    flask_group = FlaskGroup(name="lunzang", create_app=create_app, add_version_option=False, help=cli.help)
    settings = {"prog_name": "lunzang", "terminal_width": width, "max_content_width": width}
    ours = CliRunner().invoke(cli, ["--help"], **settings)
    flasks = CliRunner().invoke(flask_group, ["--help"], **settings)
    assert ours.exit_code == flasks.exit_code == 0, ours.output + flasks.output
    assert "search " in ours.output and "limiter " in ours.output and "routes " in ours.output
    assert ours.output == flasks.output


def test_search_and_deck_check_run_without_the_whole_app(
    sample_app: Flask, runner: FlaskCliRunner, sample_catalogue: Engine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Under ``lunzang`` they run in the settings app (``with_settings``), never building the
    whole one; in the test runner, in the app given: the same output, errors and exit status."""
    monkeypatch.setenv("DATABASE_URL", sample_app.config["DATABASE_URL"])
    monkeypatch.setenv("SECRET_KEY", "k" * 32)

    def whole_app() -> Flask:
        raise AssertionError("built the whole app")

    monkeypatch.setattr(cli, "create_app", whole_app)
    deck = tmp_path / "deck.txt"
    deck.write_text(legal_samsara_list(sample_catalogue), encoding="utf-8")
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("3 没有这张卡\n", encoding="utf-8")
    cases = [
        ["search", "孙悟空"],
        ["search", "--json", "-t:战魂", "cost<=2"],
        ["search", "t:战魂 (a:火"],
        ["search", "--json", "t:战魂 (a:火"],
        ["deck", "check", str(deck), "--game", "samsara"],
        ["deck", "check", str(deck), "--game", "samsara", "--format", "no-such-format", "--json"],
        ["deck", "check", str(unknown), "--game", "samsara"],
        ["deck", "check", str(tmp_path / "missing.txt")],
    ]
    for args in cases:
        ours = CliRunner().invoke(cli, args, prog_name="lunzang")
        theirs = runner.invoke(args=args)
        assert (ours.exit_code, ours.stdout, ours.stderr) == (theirs.exit_code, theirs.stdout, theirs.stderr), args
        assert ours.exception is None or isinstance(ours.exception, SystemExit), args

"""The ``lunzang`` program (``python -m webapp``): a Flask CLI group over the app factory.

The group knows its commands without building the app (:mod:`webapp.cli_index`): ``--help``
imports none of them, and a command imports only its own module before it runs.
"""

from __future__ import annotations

import click
from flask import Flask

from webapp.cli_index import LunzangGroup, gc_paused


def _create_app() -> Flask:
    """The app of one command, built with the garbage collector paused."""
    from webapp import create_app

    with gc_paused():
        return create_app()


def _create_settings_app() -> Flask:
    """The settings app of a command marked ``with_settings`` (:mod:`webapp.cli_index`)."""
    from webapp import create_settings_app

    with gc_paused():
        return create_settings_app()


@click.group(
    cls=LunzangGroup, create_app=_create_app, create_settings_app=_create_settings_app, add_version_option=False
)
def cli() -> None:
    """轮藏 Lunzang：中文集换式卡牌数据库与收藏管理。"""


def main() -> None:
    cli.main(prog_name="lunzang")


if __name__ == "__main__":  # pragma: no cover
    main()

"""The ``lunzang`` program (``python -m webapp``): a Flask CLI group over the app factory."""

from __future__ import annotations

import click
from flask.cli import FlaskGroup

from webapp import create_app


@click.group(cls=FlaskGroup, create_app=create_app, add_version_option=False)
def cli() -> None:
    """轮藏 Lunzang：中文集换式卡牌数据库与收藏管理。"""


def main() -> None:
    cli.main(prog_name="lunzang")


if __name__ == "__main__":  # pragma: no cover
    main()

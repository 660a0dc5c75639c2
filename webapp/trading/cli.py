"""``lunzang trades expire``: record the expiry of every offer past its date (a cron job may run it).

Reads already show such offers as expired; this writes the transition into each timeline.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click
from flask.cli import with_appcontext

from catalog import db as catalog_db
from catalog.trading.offers import expire_due
from webapp.cli_support import friendly
from webapp.db import get_engine


@click.group("trades")
def trades() -> None:
    """交易：记录过期的报价。"""


@trades.command("expire")
@with_appcontext
@friendly
def expire() -> None:
    """把已过有效期的报价标为过期（写入时间线）。"""
    with catalog_db.transaction(get_engine(), write=True) as session:
        count = expire_due(session=session, user_ids=None, now=datetime.now(UTC))
    click.echo(f"已将 {count} 个报价标为过期")

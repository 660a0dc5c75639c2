"""``lunzang user create|token|role|list|password``: accounts from the command line.

Every command is one transaction: an error prints one line, exits with status 2 and changes nothing.
"""

from __future__ import annotations

import sys

import click
from flask.cli import with_appcontext

from catalog import accounts
from catalog import db as catalog_db
from catalog.errors import ConfigurationError, Message
from catalog.models import ROLES
from webapp.auth import hash_method
from webapp.cli_support import friendly
from webapp.db import get_engine
from webapp.helpers import utcnow


def _engine():
    engine = get_engine()
    if catalog_db.is_empty(engine):
        raise ConfigurationError(
            Message("数据库还没有建表：请先运行 lunzang init-db", "the database has no tables: run lunzang init-db")
        )
    return engine


def _read_password(confirm: bool = True) -> str:
    """The password from standard input when it is not a terminal (scripts), else a prompt."""
    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        return line.rstrip("\r\n")
    return str(click.prompt("密码", hide_input=True, confirmation_prompt="再次输入密码" if confirm else False))


@click.group("user")
def user() -> None:
    """账号：创建用户、设置角色、签发 API 令牌。"""


@user.command("create")
@click.argument("name")
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default="user",
    show_default=True,
    help="角色：user、organizer、curator 或 admin。",
)
@with_appcontext
@friendly
def create(name: str, role: str) -> None:
    """创建用户 NAME。密码从标准输入读取（非终端时，读第一行），否则提示输入两次。"""
    password = _read_password()
    with catalog_db.transaction(_engine()) as session:
        created = accounts.create_user(
            session=session, username=name, password=password, role=role, now=utcnow(), hash_method=hash_method()
        )
        click.echo(f"已创建用户 {created.username}（角色 {created.role}）")


@user.command("password")
@click.argument("name")
@with_appcontext
@friendly
def password(name: str) -> None:
    """为用户 NAME 设置新密码（读取方式同 create）；该用户所有已登录的会话随之失效。"""
    new_password = _read_password()
    with catalog_db.transaction(_engine()) as session:
        account = accounts.find_user(session=session, username=name)
        accounts.set_password(session=session, user=account, password=new_password, hash_method=hash_method())
        click.echo(f"已为 {account.username} 设置新密码")


@user.command("token")
@click.argument("name")
@click.option("--name", "label", default="", help="令牌名称，便于在账号页面区分（例如“脚本”）。")
@with_appcontext
@friendly
def token(name: str, label: str) -> None:
    """为用户 NAME 签发新的 API 令牌并打印（只显示这一次；可在账号页面吊销）。"""
    with catalog_db.transaction(_engine()) as session:
        account = accounts.find_user(session=session, username=name)
        _row, plaintext = accounts.issue_token(session=session, user=account, name=label, now=utcnow())
    click.echo(plaintext)


@user.command("role")
@click.argument("name")
@click.argument("role")
@with_appcontext
@friendly
def role(name: str, role: str) -> None:
    """把用户 NAME 的角色设为 ROLE（user、organizer、admin）。"""
    with catalog_db.transaction(_engine()) as session:
        account = accounts.find_user(session=session, username=name)
        accounts.set_role(session=session, user=account, role=role)
        click.echo(f"{account.username} 的角色现在是 {account.role}")


@user.command("list")
@with_appcontext
@friendly
def list_command() -> None:
    """列出所有用户：用户名、角色、注册时间（按该用户的时区，标明时区，与网站一致）。"""
    from datetime import UTC
    from zoneinfo import ZoneInfo

    with catalog_db.transaction(_engine()) as session:
        users = accounts.list_users(session=session)
        if not users:
            click.echo("还没有用户。用 lunzang user create NAME 创建。")
        for account in users:
            # UTC unlabelled while the site shows Asia/Shanghai; now the user's zone, named.
            zone = accounts.time_zone_of(account)
            created = account.created_at
            created = created if created.tzinfo is not None else created.replace(tzinfo=UTC)
            local = created.astimezone(ZoneInfo(zone))
            click.echo(f"{account.username}\t{account.role}\t{local:%Y-%m-%d %H:%M} {zone}")

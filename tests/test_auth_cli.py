"""``lunzang user create|token|role|list|password``: one transaction each, errors exit 2."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, select

from catalog import accounts
from catalog.models import ApiToken, User
from tests.kits.db import table_counts
from webapp.db import get_engine

PASSWORD = "correct horse battery"


def all_users(app: Any) -> list[User]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(User).order_by(User.id)))


def test_create_reads_the_password_from_stdin(app: Any, runner: Any) -> None:
    result = runner.invoke(args=["user", "create", "悟空", "--role", "organizer"], input=PASSWORD + "\n")
    assert result.exit_code == 0, result.output
    assert "已创建用户 悟空（角色 organizer）" in result.output
    (user,) = all_users(app)
    assert (user.username, user.role) == ("悟空", "organizer")
    with Session(get_engine(app)) as session:
        assert accounts.authenticate(session=session, username="悟空", password=PASSWORD) is not None


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["user", "create", "<script>"], PASSWORD, "用户名只能包含"),
        (["user", "create", "bob"], "short", "密码至少需要 8 个字符"),
        (["user", "create", "Alice"], PASSWORD, "已被使用"),
        (["user", "token", "nobody"], "", "没有用户名为「nobody」的用户"),
        (["user", "role", "alice", "king"], "", "没有这个角色：king"),
        (["user", "role", "nobody", "admin"], "", "没有用户名为「nobody」的用户"),
        (["user", "password", "alice"], "short", "密码至少需要 8 个字符"),
    ],
)
def test_errors_are_one_line_exit_2_and_change_nothing(
    app: Any, runner: Any, args: list[str], stdin: str, message: str
) -> None:
    assert runner.invoke(args=["user", "create", "alice"], input=PASSWORD + "\n").exit_code == 0
    before = table_counts(get_engine(app))
    result = runner.invoke(args=args, input=stdin + "\n")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert table_counts(get_engine(app)) == before
    assert all_users(app)[0].role == "user"


def test_unknown_role_option_is_a_usage_error(runner: Any) -> None:
    result = runner.invoke(args=["user", "create", "bob", "--role", "king"], input=PASSWORD + "\n")
    assert result.exit_code == 2


def test_token_prints_a_working_token(app: Any, runner: Any) -> None:
    runner.invoke(args=["user", "create", "alice"], input=PASSWORD + "\n")
    result = runner.invoke(args=["user", "token", "ALICE", "--name", "脚本"])
    assert result.exit_code == 0, result.output
    token = result.output.strip()
    assert token.startswith("lz_")
    with Session(get_engine(app)) as session:
        row = session.exec(select(ApiToken)).one()
        assert row.name == "脚本" and row.token_hash != token
    response = app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.get_json() == {"username": "alice", "role": "user"}


def test_role_and_list(app: Any, runner: Any) -> None:
    assert "还没有用户" in runner.invoke(args=["user", "list"]).output
    runner.invoke(args=["user", "create", "bob"], input=PASSWORD + "\n")
    runner.invoke(args=["user", "create", "alice"], input=PASSWORD + "\n")
    result = runner.invoke(args=["user", "role", "bob", "admin"])
    assert result.exit_code == 0 and "bob 的角色现在是 admin" in result.output
    lines = runner.invoke(args=["user", "list"]).output.splitlines()
    assert [line.split("\t")[:2] for line in lines] == [["alice", "user"], ["bob", "admin"]]


def test_password_resets_and_signs_out(app: Any, runner: Any) -> None:
    runner.invoke(args=["user", "create", "alice"], input=PASSWORD + "\n")
    result = runner.invoke(args=["user", "password", "alice"], input="another password\n")
    assert result.exit_code == 0, result.output
    (user,) = all_users(app)
    assert user.auth_version == 1
    with Session(get_engine(app)) as session:
        assert accounts.authenticate(session=session, username="alice", password="another password") is not None


def test_list_shows_times_in_the_users_zone_and_names_it(app: Any, runner: Any) -> None:
    """the list printed UTC times unlabelled while the site shows Asia/Shanghai."""
    from datetime import UTC, datetime

    runner.invoke(args=["user", "create", "alice"], input=PASSWORD + "\n")
    runner.invoke(args=["user", "create", "bob"], input=PASSWORD + "\n")
    with Session(get_engine(app)) as session:
        for user in session.exec(select(User)):
            user.created_at = datetime(2026, 1, 1, 20, 30, tzinfo=UTC)
            user.time_zone = "Europe/London" if user.username == "bob" else None
            session.add(user)
        session.commit()
    lines = runner.invoke(args=["user", "list"]).output.splitlines()
    assert lines == ["alice\tuser\t2026-01-02 04:30 Asia/Shanghai", "bob\tuser\t2026-01-01 20:30 Europe/London"]

"""Password reset: by e-mail when SMTP is configured (a real SMTP server,
aiosmtpd, started here), by an admin-issued one-time link otherwise. The link works once and
expires; a new password ends the user's other sessions, API tokens and open links."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.message import Message
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog import accounts, password_reset
from catalog.models import ApiToken, PasswordReset, User
from tests.conftest import TEST_PASSWORD
from webapp.db import get_engine

NEW = "a brand new password"
SMTP_PORTS = range(2525, 2531)  # this project's test range for a local SMTP server


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def wait(self, count: int = 1, timeout: float = 5.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.messages


@pytest.fixture
def smtp() -> Iterator[tuple[_Inbox, int]]:
    """A real SMTP server on the first free port of the test range, collecting what it gets."""
    from aiosmtpd.controller import Controller

    inbox = _Inbox()
    for port in SMTP_PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                continue  # taken (another worker's server)
        controller = Controller(inbox, hostname="127.0.0.1", port=port)
        try:
            controller.start()
        except Exception:  # the port was taken between the probe and the start: try the next
            continue
        try:
            yield inbox, port
        finally:
            controller.stop()
        return
    pytest.fail("no free port for the SMTP test server in 2525-2530")


def _user(app: Any, name: str = "alice", **fields: Any) -> User:
    from tests.conftest import _make_user

    with Session(get_engine(app), expire_on_commit=False) as session, session.begin():
        return _make_user(session, name, **fields)


def _link_path(text: str) -> str:
    match = re.search(r"https?://[^/\s]+(/password/reset/[A-Za-z0-9_\-]+)", text)
    assert match, text
    return match.group(1)


def _signs_in(client: Any, password: str) -> bool:
    return client.post("/login", data={"username": "alice", "password": password}).status_code == 302


def _token(app: Any, user_id: int) -> str:
    with Session(get_engine(app)) as session, session.begin():
        user = session.get(User, user_id)
        assert user is not None
        _row, plaintext = accounts.issue_token(session=session, user=user, now=datetime.now(UTC))
    return plaintext


def test_reset_by_mail_works_once_and_ends_sessions_tokens_and_other_links(app: Any, login: Any, smtp: Any) -> None:
    inbox, port = smtp
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=port, MAIL_FROM="site@lunzang.test")
    alice = _user(app, email="alice@example.org")
    other_device = app.test_client()
    login(other_device, "alice")
    token = _token(app, alice.id)
    visitor = app.test_client()
    visitor.post("/password/forgot", data={"name_or_email": "ALICE@example.org"})  # a first link
    page = visitor.post("/password/forgot", data={"name_or_email": "alice"})
    assert page.status_code == 200 and "重置链接已经发出" in page.get_data(as_text=True)
    first, second = inbox.wait(2)
    assert second["To"] == "alice@example.org" and second["From"] == "site@lunzang.test"
    body = second.get_payload(decode=True).decode()
    path = _link_path(body)
    assert visitor.get(path).status_code == 200  # GET shows the form and spends nothing
    assert visitor.get(path).status_code == 200
    done = visitor.post(path, data={"new_password": NEW, "confirm": NEW})
    assert done.status_code == 302 and done.headers["Location"].endswith("/login")
    assert not _signs_in(app.test_client(), TEST_PASSWORD)
    assert _signs_in(app.test_client(), NEW)
    # single use: the link, and the earlier one, are spent
    again = visitor.post(path, data={"new_password": "yet another one", "confirm": "yet another one"})
    assert again.status_code == 410 and "已使用或已过期" in again.get_data(as_text=True)
    assert visitor.get(_link_path(first.get_payload(decode=True).decode())).status_code == 410
    # the other device is signed out, the API token revoked
    assert other_device.get("/account").status_code == 302
    assert app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert _signs_in(app.test_client(), NEW)


def test_unknown_name_and_account_without_address_get_the_same_page_and_no_mail(
    app: Any, client: Any, smtp: Any
) -> None:
    inbox, port = smtp
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=port)
    _user(app)  # no e-mail address
    unknown = client.post("/password/forgot", data={"name_or_email": "nobody"}).get_data(as_text=True)
    known = client.post("/password/forgot", data={"name_or_email": "alice"}).get_data(as_text=True)
    assert "重置链接已经发出" in unknown and "重置链接已经发出" in known
    time.sleep(0.2)
    assert inbox.messages == []
    with Session(get_engine(app)) as session:
        assert session.exec(select(PasswordReset)).all() == []


def test_a_mail_server_that_is_down_says_so_and_keeps_no_link(app: Any, client: Any) -> None:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        dead_port = spare.getsockname()[1]  # nobody listens once closed
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=dead_port)
    _user(app, email="alice@example.org")
    response = client.post("/password/forgot", data={"name_or_email": "alice"})
    assert response.status_code == 503 and "邮件发送失败" in response.get_data(as_text=True)
    with Session(get_engine(app)) as session:
        assert session.exec(select(PasswordReset)).all() == []


def test_without_mail_an_admin_issues_a_one_time_link(app: Any, client: Any, login: Any) -> None:
    alice = _user(app)
    forgot = client.get("/password/forgot").get_data(as_text=True)
    assert "联系网站管理员" in forgot and "<form" not in forgot.split("<main", 1)[-1].split("返回登录")[0]
    admin = app.test_client()
    login(admin, "root", role="admin")
    page = admin.post(f"/admin/users/{alice.id}/reset-link", data={"q": ""})
    assert page.status_code == 201 and page.headers["Cache-Control"] == "no-store"
    path = _link_path(page.get_data(as_text=True))
    assert client.post(path, data={"new_password": NEW, "confirm": NEW}).status_code == 302
    assert _signs_in(app.test_client(), NEW)
    assert client.post(path, data={"new_password": NEW, "confirm": NEW}).status_code == 410
    with Session(get_engine(app)) as session:
        (row,) = session.exec(select(PasswordReset)).all()
        assert row.issued_by is not None and row.used_at is not None


def test_only_admins_issue_links(app: Any, client: Any, login: Any) -> None:
    alice = _user(app)
    login(client, "mallory")
    assert client.post(f"/admin/users/{alice.id}/reset-link").status_code == 403


def test_an_expired_link_is_refused(app: Any, client: Any) -> None:
    alice = _user(app)
    long_ago = datetime.now(UTC) - timedelta(hours=2)
    with Session(get_engine(app)) as session, session.begin():
        user = session.get(User, alice.id)
        assert user is not None
        _row, token = password_reset.issue_reset(
            session=session, user=user, now=long_ago, lifetime=password_reset.EMAIL_LIFETIME
        )
    assert client.get(f"/password/reset/{token}").status_code == 410
    assert client.post(f"/password/reset/{token}", data={"new_password": NEW, "confirm": NEW}).status_code == 410
    assert _signs_in(app.test_client(), TEST_PASSWORD)


@pytest.mark.parametrize("token", ["nope", "pr_" + "x" * 43, "pr_" + "y" * 500, "lz_abc"])
def test_a_made_up_link_is_refused_and_changes_nothing(app: Any, client: Any, token: str) -> None:
    _user(app)
    assert client.get(f"/password/reset/{token}").status_code == 410
    assert client.post(f"/password/reset/{token}", data={"new_password": NEW, "confirm": NEW}).status_code == 410
    assert _signs_in(app.test_client(), TEST_PASSWORD)


def test_a_short_password_does_not_spend_the_link(app: Any, client: Any, login: Any) -> None:
    alice = _user(app)
    admin = app.test_client()
    login(admin, "root", role="admin")
    path = _link_path(admin.post(f"/admin/users/{alice.id}/reset-link").get_data(as_text=True))
    short = client.post(path, data={"new_password": "short", "confirm": "short"})
    assert short.status_code == 400 and "至少需要 8 个字符" in short.get_data(as_text=True)
    assert client.post(path, data={"new_password": NEW, "confirm": NEW}).status_code == 302


def test_changing_the_password_ends_other_sessions_tokens_and_open_links(app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    other = app.test_client()
    login(other, "alice")
    token = _token(app, alice.id)
    with Session(get_engine(app)) as session, session.begin():
        user = session.get(User, alice.id)
        assert user is not None
        _row, link = password_reset.issue_reset(
            session=session, user=user, now=datetime.now(UTC), lifetime=password_reset.ADMIN_LIFETIME
        )
    response = client.post(
        "/account/password", data={"old_password": TEST_PASSWORD, "new_password": NEW, "confirm": NEW}
    )
    assert response.status_code == 302
    assert client.get("/account").status_code == 200
    assert other.get("/account").status_code == 302
    assert app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert app.test_client().get(f"/password/reset/{link}").status_code == 410
    with Session(get_engine(app)) as session:
        assert all(row.revoked_at is not None for row in session.exec(select(ApiToken)))


def test_one_link_spent_twice_at_once_sets_one_password(session: Session, make_user: Any) -> None:
    user = make_user(session, "alice")
    now = datetime.now(UTC)
    _row, token = password_reset.issue_reset(session=session, user=user, now=now, lifetime=timedelta(hours=1))
    password_reset.reset_password(session=session, token=token, password=NEW, now=now, hash_method="pbkdf2:sha256:1")
    with pytest.raises(password_reset.ResetError):
        password_reset.reset_password(
            session=session, token=token, password="other password", now=now, hash_method="pbkdf2:sha256:1"
        )
    assert accounts.check_password(user=user, password=NEW)


@pytest.mark.parametrize(
    ("address", "ok"),
    [("a@b.cn", True), ("", True), ("not-an-address", False), ("a@b", False), ("x <a@b.cn>", False), ("a@b.c\n", True)],
)
def test_the_account_page_keeps_an_address(client: Any, login: Any, address: str, ok: bool) -> None:
    login(client, "alice")
    response = client.post("/account/email", data={"email": address})
    assert response.status_code == (302 if ok else 400)
    with Session(get_engine(client.application)) as session:
        user = accounts.get_user_by_name(session=session, username="alice")
        assert user is not None
        assert user.email == ((address.strip() or None) if ok else None)
    if not ok:
        assert "电子邮件地址格式不正确" in response.get_data(as_text=True)


def test_the_sign_in_page_links_to_the_reset(client: Any) -> None:
    assert 'href="/password/forgot"' in client.get("/login").get_data(as_text=True)

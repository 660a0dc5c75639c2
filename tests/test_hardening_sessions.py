"""Security headers, sessions that end on the server, no default secret key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog.errors import ConfigurationError
from catalog.models import ApiToken
from tests.conftest import TEST_PASSWORD


def _sign_in(client: Any, remember: bool = False) -> None:
    data = {"username": "alice", "password": TEST_PASSWORD}
    if remember:
        data["remember"] = "y"
    assert client.post("/login", data=data).status_code == 302


def _alice(app: Any, make_user: Any) -> None:
    from webapp.db import get_engine

    with Session(get_engine(app)) as session, session.begin():
        make_user(session, "alice")


# ---------------------------------------------------------------------------- item 6


def test_logout_ends_a_copied_session_and_the_remember_cookie(app: Any, make_user: Any) -> None:
    _alice(app, make_user)
    client = app.test_client()
    _sign_in(client, remember=True)
    copied = client.get_cookie("session").value
    remember = client.get_cookie("remember_token").value
    assert client.get("/account").status_code == 200
    assert client.post("/logout").status_code == 302

    thief = app.test_client()
    thief.set_cookie("session", copied)
    assert thief.get("/account").status_code == 302  # sent to the sign-in page
    other = app.test_client()
    other.set_cookie("remember_token", remember)
    assert other.get("/account").status_code == 302


def test_a_password_change_revokes_the_api_tokens(app: Any, make_user: Any) -> None:
    from webapp.db import get_engine

    _alice(app, make_user)
    client = app.test_client()
    _sign_in(client)
    created = client.post("/account/tokens", data={"name": "脚本", "password": TEST_PASSWORD})
    assert created.status_code == 201
    token = created.get_data(as_text=True).split('<code class="token-value">')[1].split("<")[0]
    api = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    assert api.get("/api/v1/me", headers=headers).status_code == 200
    changed = client.post(
        "/account/password",
        data={"old_password": TEST_PASSWORD, "new_password": "another good one", "confirm": "another good one"},
    )
    assert changed.status_code == 302
    assert "所有 API 令牌已吊销" in client.get("/account").get_data(as_text=True)
    assert api.get("/api/v1/me", headers=headers).status_code == 401
    with Session(get_engine(app)) as session:
        assert all(t.revoked_at is not None for t in session.exec(select(ApiToken)))


def test_creating_a_token_needs_the_password_again(app: Any, make_user: Any) -> None:
    from webapp.db import get_engine

    _alice(app, make_user)
    client = app.test_client()
    _sign_in(client)  # a session cookie alone (stolen, or a computer left signed in) is not enough
    assert client.post("/account/tokens", data={"name": "x"}).status_code == 400
    assert client.post("/account/tokens", data={"name": "x", "password": "wrong password"}).status_code == 400
    with Session(get_engine(app)) as session:
        assert session.exec(select(ApiToken)).first() is None
    assert client.post("/account/tokens", data={"name": "x", "password": TEST_PASSWORD}).status_code == 201


# ---------------------------------------------------------------------------- item 7


def _bare_app(database_url: str, tmp_path: Path, **config: Any) -> Any:
    from webapp import create_app

    return create_app({"DATABASE_URL": database_url, "SECRET_KEY_FILE": str(tmp_path / "secret_key"), **config})


def test_without_a_secret_key_one_is_generated_once_into_the_instance_folder(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    first = _bare_app(database_url, tmp_path)
    key = (tmp_path / "secret_key").read_text().strip()
    assert first.config["SECRET_KEY"] == key and len(key) >= 64
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # readable by its owner only
    assert _bare_app(database_url, tmp_path).config["SECRET_KEY"] == key  # the next run keeps it


@pytest.mark.parametrize("environment", ["development", "production"])
def test_the_old_default_key_is_refused_everywhere(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, environment: str
) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="SECRET_KEY"):
        _bare_app(database_url, tmp_path, SECRET_KEY="dev", LUNZANG_ENV=environment)


def test_production_without_a_key_still_refuses(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Several app servers must share one key: a key generated per machine would break sessions.
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="SECRET_KEY"):
        _bare_app(database_url, tmp_path, LUNZANG_ENV="production")


# ---------------------------------------------------------------------------- item 5

TEMPLATES = Path(__file__).resolve().parent.parent / "webapp" / "templates"


@pytest.mark.parametrize("path", ["/", "/cards?q=swk", "/api/v1/sets", "/static/style.css", "/nothing-here"])
def test_every_response_carries_the_security_headers(sample_app: Any, path: str) -> None:
    response = sample_app.test_client().get(path)
    response.close()  # a static file is streamed
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert "Strict-Transport-Security" not in response.headers  # plain HTTP: no HSTS


def test_hsts_over_https(sample_app: Any) -> None:
    response = sample_app.test_client().get("/", base_url="https://localhost")
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")


def test_no_template_has_inline_script() -> None:
    import re

    inline: list[str] = []
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        inline += [f"{template.name}: <script> without src" for m in re.finditer(r"<script(?![^>]*\bsrc=)", text)]
        inline += [f"{template.name}: {m.group(0)}" for m in re.finditer(r"\son[a-z]+=\"", text)]
        inline += [f"{template.name}: javascript: URL" for m in re.finditer(r"javascript:", text)]
    assert inline == []


def test_cookies_are_secure_under_lunzang_serve_unless_told_otherwise(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_KEY", "x" * 40)
    monkeypatch.delenv("LUNZANG_HTTPS", raising=False)
    served = _bare_app(database_url, tmp_path, LUNZANG_ENV="production")
    assert served.config["SESSION_COOKIE_SECURE"] and served.config["REMEMBER_COOKIE_SECURE"]
    monkeypatch.setenv("LUNZANG_HTTPS", "0")  # plain HTTP on purpose (a loopback test, a trusted LAN)
    plain = _bare_app(database_url, tmp_path, LUNZANG_ENV="production")
    assert not plain.config.get("SESSION_COOKIE_SECURE")

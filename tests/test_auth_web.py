"""Accounts on the web and the API: sign-up, sign-in, CSRF, rate limit, tokens, escaping.

The security list, each with a test: posts without a CSRF token are refused; one
user can neither read nor write another's private data; wrong passwords are throttled; tokens
work only for their owner and stop when revoked; HTML in user names never reaches a page raw.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog import accounts
from catalog.models import ApiToken, User
from tests.conftest import TEST_PASSWORD
from tests.kits.db import table_counts
from webapp.db import get_engine

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery"


def csrf_token(client: Any, path: str = "/login") -> str:
    html = client.get(path).get_data(as_text=True)
    match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html)
    assert match, f"no csrf_token on {path}"
    return match.group(1)


def users(app: Any) -> list[User]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(User)))


def register(client: Any, username: str, password: str = PASSWORD, **extra: Any) -> Any:
    data = {"username": username, "password": password, "confirm": password, **extra}
    return client.post("/register", data=data)


# ---- register, sign in, sign out --------------------------------------------------------


def test_register_signs_in_and_shows_the_account(client: Any) -> None:
    response = register(client, "悟空")
    assert response.status_code == 302 and response.headers["Location"].endswith("/account")
    page = client.get("/account").get_data(as_text=True)
    assert "悟空" in page and "注册成功" in page
    home = client.get("/").get_data(as_text=True)
    assert 'href="/account"' in home and "退出" in home
    (user,) = users(client.application)
    assert user.username == "悟空" and user.role == "user"
    assert PASSWORD not in user.password_hash


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"username": "x"}, "用户名须为 2–32 个字符"),
        ({"username": "<script>"}, "用户名只能包含"),
        ({"username": "bob", "password": "short", "confirm": "short"}, "密码至少需要 8 个字符"),
        ({"username": "bob", "confirm": "something else"}, "两次输入的密码不一致"),
        ({"username": ""}, "请填写用户名"),
    ],
)
def test_register_refuses_bad_input_and_writes_nothing(
    app: Any, client: Any, form: dict[str, str], message: str
) -> None:
    data = {"password": PASSWORD, "confirm": PASSWORD, **form}
    before = table_counts(get_engine(app))
    response = client.post("/register", data=data)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert table_counts(get_engine(app)) == before


def test_register_refuses_a_taken_name_ignoring_case(client: Any) -> None:
    register(client, "Alice")
    client.post("/logout")
    response = register(client, "alice")
    assert response.status_code == 400
    assert "用户名“alice”已被使用" in response.get_data(as_text=True)
    assert len(users(client.application)) == 1


def test_errors_are_english_in_the_english_interface(client: Any) -> None:
    response = client.post("/register?lang=en", data={"username": "<b>", "password": PASSWORD, "confirm": PASSWORD})
    page = response.get_data(as_text=True)
    assert "a user name may contain only letters" in page and "用户名只能包含" not in page


def test_login_logout(client: Any, login: Any) -> None:
    login(client, "alice")
    client.post("/logout")
    assert client.get("/account").status_code == 302
    response = client.post("/login", data={"username": "ALICE", "password": PASSWORD})
    assert response.status_code == 302
    assert "alice" in client.get("/account").get_data(as_text=True)
    response = client.post("/logout")
    assert response.status_code == 302
    assert client.get("/account").status_code == 302
    assert client.get("/logout").status_code == 405  # signing out is a POST (with CSRF), not a link


def test_wrong_password_is_refused_without_saying_which_part(client: Any, login: Any) -> None:
    login(client.application.test_client(), "alice")
    for name, password in (("alice", "wrong password"), ("nobody", PASSWORD)):
        response = client.post("/login", data={"username": name, "password": password})
        assert response.status_code == 401
        assert "用户名或密码不正确" in response.get_data(as_text=True)
    assert client.get("/account").status_code == 302


def test_account_needs_sign_in_and_comes_back_after(client: Any, login: Any) -> None:
    response = client.get("/account")
    assert response.status_code == 302
    assert "/login?next=%2Faccount" in response.headers["Location"]
    assert "请先登录" in client.get(response.headers["Location"]).get_data(as_text=True)
    login(client.application.test_client(), "alice")
    response = client.post("/login?next=/account", data={"username": "alice", "password": PASSWORD})
    assert response.headers["Location"] == "/account"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/cards?q=swk", "/cards?q=swk"),
        ("https://evil.example/", "/"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("javascript:alert(1)", "/"),
        ("", "/"),
    ],
)
def test_next_redirects_only_to_local_paths(client: Any, login: Any, target: str, expected: str) -> None:
    login(client.application.test_client(), "alice")
    response = client.post("/login", data={"username": "alice", "password": PASSWORD, "next": target})
    assert response.status_code == 302
    assert response.headers["Location"] == expected


def test_nav_shows_sign_in_when_anonymous(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'href="/login' in page and 'href="/register"' in page


# ---- cookies ----------------------------------------------------------------------------------


def test_session_cookie_is_httponly_and_samesite_lax(client: Any, login: Any) -> None:
    login(client.application.test_client(), "alice")
    response = client.post("/login", data={"username": "alice", "password": PASSWORD, "remember": "y"})
    cookies = response.headers.getlist("Set-Cookie")
    session_cookie = next(c for c in cookies if c.startswith("session="))
    remember_cookie = next(c for c in cookies if c.startswith("remember_token="))
    for cookie in (session_cookie, remember_cookie):
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
        assert "Secure" not in cookie  # plain HTTP in tests: a Secure cookie would never come back


def test_cookies_are_secure_when_served_over_https(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import create_app

    monkeypatch.setenv("LUNZANG_HTTPS", "1")
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "test"})
    assert app.config["SESSION_COOKIE_SECURE"] and app.config["REMEMBER_COOKIE_SECURE"]
    monkeypatch.delenv("LUNZANG_HTTPS")
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "PREFERRED_URL_SCHEME": "https"})
    assert app.config["SESSION_COOKIE_SECURE"]
    app = create_app({"TESTING": True, "DATABASE_URL": database_url})
    assert not app.config["SESSION_COOKIE_SECURE"]


# ---- CSRF --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/register", {"username": "mallory", "password": PASSWORD, "confirm": PASSWORD}),
        ("/login", {"username": "alice", "password": PASSWORD}),
        ("/logout", {}),
        ("/account/password", {"old_password": PASSWORD, "new_password": "hijacked!!", "confirm": "hijacked!!"}),
        ("/account/lists", {"lists_public": "y"}),
        ("/account/tokens", {"name": "stolen"}),
        ("/account/tokens/1/revoke", {}),
        ("/decks/working", {"game": "samsara", "name": "孙悟空", "action": "add"}),
    ],
)
def test_posts_without_csrf_token_are_refused_and_change_nothing(
    csrf_app: Any, csrf_client: Any, login: Any, path: str, form: dict[str, str]
) -> None:
    alice = login(csrf_client, "alice")
    with Session(get_engine(csrf_app)) as session, session.begin():
        accounts.issue_token(session=session, user=session.get(User, alice.id), name="keep", now=alice.created_at)
    before = table_counts(get_engine(csrf_app))
    response = csrf_client.post(path, data=form)
    assert response.status_code == 400
    assert "安全令牌" in response.get_data(as_text=True)
    response = csrf_client.post(path, data={**form, "csrf_token": "forged"})
    assert response.status_code == 400
    assert table_counts(get_engine(csrf_app)) == before
    with Session(get_engine(csrf_app)) as session:
        user = session.get(User, alice.id)
        assert user is not None
        assert (user.auth_version, user.lists_public) == (0, False)
        assert all(t.revoked_at is None for t in session.exec(select(ApiToken)))
    assert csrf_client.get("/account").status_code == 200  # still signed in: logout was refused too


def test_posts_with_the_token_work(csrf_client: Any) -> None:
    token = csrf_token(csrf_client, "/register")
    response = register(csrf_client, "alice", csrf_token=token)
    assert response.status_code == 302
    token = csrf_token(csrf_client, "/account")
    assert csrf_client.post("/account/lists", data={"lists_public": "y", "csrf_token": token}).status_code == 302
    assert users(csrf_client.application)[0].lists_public
    assert csrf_client.post("/logout", data={"csrf_token": token}).status_code == 302
    assert csrf_client.get("/account").status_code == 302


def test_the_api_is_exempt_from_csrf(sample_app: Any, client: Any) -> None:
    """Anonymous API posts (no cookie, no token) keep working with CSRF on."""
    sample_app.config["WTF_CSRF_ENABLED"] = True
    assert client.post("/api/v1/packs/open", json={"set": "M4", "packs": 1, "seed": 1}).status_code == 200
    response = client.post("/api/v1/decks/check", json={"game": "samsara", "decklist": "3 孙悟空"})
    assert response.status_code == 200  # a CSRF refusal would be 400
    verdict = response.get_json()
    assert verdict["legal"] is False and verdict["counts"]["main"] == 3


_POST_FORM = re.compile(r"<form\b[^>]*\bmethod=[\"']?post[\"']?[^>]*>(.*?)</form>", re.I | re.S)


def post_forms_without_csrf(text: str) -> list[str]:
    return [body[:80] for body in _POST_FORM.findall(text) if "csrf_token" not in body]


def test_the_template_scan_catches_a_form_without_token() -> None:
    assert post_forms_without_csrf('<form method="POST" action="/x"><button>go</button></form>') != []
    assert post_forms_without_csrf('<form method="get"><input name="q"></form>') == []
    ok = '<form method="post"><input type="hidden" name="csrf_token" value="{{ csrf_token() }}"></form>'
    assert post_forms_without_csrf(ok) == []


@pytest.mark.parametrize("template", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "webapp").rglob("*.html")))
def test_every_post_form_in_the_templates_carries_a_csrf_token(template: str) -> None:
    assert post_forms_without_csrf((ROOT / template).read_text(encoding="utf-8")) == []


# ---- rate limit -----------------------------------------------------------------------------------


def test_sixth_wrong_password_in_a_minute_is_throttled_even_with_the_right_one(client: Any, login: Any) -> None:
    login(client.application.test_client(), "alice")
    for _ in range(5):
        assert client.post("/login", data={"username": "alice", "password": "wrong password"}).status_code == 401
    response = client.post("/login", data={"username": "alice", "password": PASSWORD})
    assert response.status_code == 429
    assert "尝试次数过多" in response.get_data(as_text=True)
    assert "Retry-After" in response.headers
    assert client.get("/account").status_code == 302  # not signed in
    # Another name from the same address is not locked out by alice's failures.
    login(client.application.test_client(), "bob")
    assert client.post("/login", data={"username": "bob", "password": PASSWORD}).status_code == 302


def test_successful_sign_ins_do_not_count(client: Any, login: Any) -> None:
    login(client.application.test_client(), "alice")
    for _ in range(8):
        assert client.post("/login", data={"username": "alice", "password": PASSWORD}).status_code == 302
        client.post("/logout")


def test_many_names_from_one_address_are_throttled(client: Any) -> None:
    for number in range(20):
        response = client.post("/login", data={"username": f"guess{number}", "password": "wrong password"})
        assert response.status_code == 401
    assert client.post("/login", data={"username": "guess99", "password": "x" * 8}).status_code == 429


@pytest.mark.parametrize("proxies", [0, 1])
def test_behind_a_proxy_each_visitor_has_their_own_limit(database_url: str, tmp_path: Any, proxies: int) -> None:
    """LUNZANG_PROXIES=1 (one load balancer): the limit counts X-Forwarded-For's visitor, not
    the proxy; without it the header is not trusted (a visitor could pick any address)."""
    from webapp import create_app

    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "WTF_CSRF_ENABLED": False, "LUNZANG_PROXIES": proxies}
    )
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    for number in range(20):
        headers = {"X-Forwarded-For": f"203.0.113.{number}"}  # 20 visitors behind one proxy
        response = client.post("/login", data={"username": f"x{number}", "password": "wrong password"}, headers=headers)
        assert response.status_code == 401
    last = client.post(
        "/login", data={"username": "y", "password": "wrong password"}, headers={"X-Forwarded-For": "203.0.113.99"}
    )
    assert last.status_code == (401 if proxies else 429)
    from webapp.db import dispose

    dispose(app)


def test_rate_limit_storage_is_configurable(database_url: str) -> None:
    from webapp import create_app
    from webapp.extensions import limiter

    create_app({"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_STORAGE_URI": "memory://"})
    assert type(limiter.storage).__name__ == "MemoryStorage"
    # The redis client is in the test extra (the two-server deployment test): a redis:// URI
    # gives a Redis store (connected on first use).
    create_app({"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:1"})
    assert type(limiter.storage).__name__ == "RedisStorage"


# ---- the account page: password, privacy, tokens --------------------------------------------


def test_change_password_signs_out_other_sessions(app: Any, client: Any, login: Any) -> None:
    login(client, "alice")
    other = app.test_client()
    login(other, "alice")
    assert other.get("/account").status_code == 200
    response = client.post(
        "/account/password", data={"old_password": PASSWORD, "new_password": "new password", "confirm": "new password"}
    )
    assert response.status_code == 302
    assert client.get("/account").status_code == 200  # this session goes on
    assert other.get("/account").status_code == 302  # the other one is signed out
    client.post("/logout")
    assert client.post("/login", data={"username": "alice", "password": PASSWORD}).status_code == 401
    assert client.post("/login", data={"username": "alice", "password": "new password"}).status_code == 302


def test_change_password_with_wrong_old_password_changes_nothing(client: Any, login: Any) -> None:
    login(client, "alice")
    response = client.post(
        "/account/password",
        data={"old_password": "not mine!", "new_password": "new password", "confirm": "new password"},
    )
    assert response.status_code == 400 and "原密码不正确" in response.get_data(as_text=True)
    assert users(client.application)[0].auth_version == 0


def test_lists_public_toggle(client: Any, login: Any) -> None:
    login(client, "alice")
    client.post("/account/lists", data={"lists_public": "y"})
    assert users(client.application)[0].lists_public
    client.post("/account/lists", data={})
    assert not users(client.application)[0].lists_public


def create_token_on_page(client: Any, name: str = "脚本") -> str:
    response = client.post("/account/tokens", data={"name": name, "password": TEST_PASSWORD})
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    match = re.search(r'<code class="token-value">(lz_[^<]+)</code>', response.get_data(as_text=True))
    assert match
    return match.group(1)


def test_token_is_shown_once_and_works_on_the_api(client: Any, login: Any) -> None:
    login(client, "alice")
    token = create_token_on_page(client)
    page = client.get("/account").get_data(as_text=True)
    assert token not in page and token[:10] in page and "脚本" in page
    api = client.application.test_client()  # no cookie: only the token
    response = api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.get_json() == {"username": "alice", "role": "user"}
    assert "最近使用" in page
    with Session(get_engine(client.application)) as session:
        assert session.exec(select(ApiToken)).one().last_used_at is not None


def test_revoked_token_stops_working(client: Any, login: Any) -> None:
    login(client, "alice")
    token = create_token_on_page(client)
    api = client.application.test_client()
    assert api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    with Session(get_engine(client.application)) as session:
        token_id = session.exec(select(ApiToken.id)).one()
    assert client.post(f"/account/tokens/{token_id}/revoke").status_code == 302
    assert "已吊销" in client.get("/account").get_data(as_text=True)
    response = api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthorized"
    assert response.get_json()["error"]["message_en"]
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_user_cannot_revoke_or_see_anothers_tokens(app: Any, login: Any) -> None:
    alice_client, bob_client = app.test_client(), app.test_client()
    login(alice_client, "alice")
    token = create_token_on_page(alice_client, "alice-secret-name")
    login(bob_client, "bob")
    with Session(get_engine(app)) as session:
        token_id = session.exec(select(ApiToken.id)).one()
    bob_page = bob_client.get("/account").get_data(as_text=True)
    assert "alice-secret-name" not in bob_page and token[:10] not in bob_page
    assert bob_client.post(f"/account/tokens/{token_id}/revoke").status_code == 404
    api = app.test_client()
    assert api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).get_json()["username"] == "alice"


def test_token_acts_only_as_its_owner(app: Any, login: Any) -> None:
    alice_client, bob_client = app.test_client(), app.test_client()
    login(alice_client, "alice")
    login(bob_client, "bob", role="organizer")
    alice_token, bob_token = create_token_on_page(alice_client), create_token_on_page(bob_client)
    api = app.test_client()
    assert api.get("/api/v1/me", headers={"Authorization": f"Bearer {alice_token}"}).get_json()["username"] == "alice"
    me = api.get("/api/v1/me", headers={"Authorization": f"Bearer {bob_token}"}).get_json()
    assert me == {"username": "bob", "role": "organizer"}
    # Bob's browser session plus Alice's token: the token decides, and it is Alice's.
    assert (
        bob_client.get("/api/v1/me", headers={"Authorization": f"Bearer {alice_token}"}).get_json()["username"]
        == "alice"
    )


@pytest.mark.parametrize(
    "header",
    ["", "Bearer", "Bearer ", "Bearer lz_nope", "Basic YWxpY2U6cGFzcw==", "Token lz_x", "bearer not-ours"],
)
def test_bad_authorization_is_a_json_401(client: Any, header: str) -> None:
    headers = {"Authorization": header} if header else {}
    response = client.get("/api/v1/me", headers=headers)
    assert response.status_code == 401
    error = response.get_json()["error"]
    assert error["code"] == "unauthorized" and error["message"] and error["message_en"]


def test_api_reads_accept_the_signed_in_session(client: Any, login: Any) -> None:
    login(client, "alice", role="admin")
    assert client.get("/api/v1/me").get_json() == {"username": "alice", "role": "admin"}


def test_api_writes_never_accept_the_session_cookie(fresh_app: Any, login: Any) -> None:
    """The API is CSRF-exempt, so only a bearer token may authorise a write there."""
    from flask import jsonify

    from webapp.api.auth import api_user, require_api_user

    @require_api_user
    def write() -> Any:
        return jsonify({"user": api_user().username})

    # An endpoint named "api.…" counts as the API blueprint's: its error handlers, no CSRF.
    fresh_app.add_url_rule("/api/v1/_test_write", endpoint="api._test_write", view_func=write, methods=["POST"])
    client = fresh_app.test_client()
    login(client, "alice")
    assert client.post("/api/v1/_test_write").status_code == 401
    token = create_token_on_page(client)
    response = client.post("/api/v1/_test_write", headers={"Authorization": f"Bearer {token}"})
    assert response.get_json() == {"user": "alice"}


def test_me_is_documented_with_bearer_auth(client: Any) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert spec["paths"]["/me"]["get"]["security"] == [{"bearerAuth": []}]


# ---- HTML in user names ----------------------------------------------------------------------


def test_html_in_a_username_is_refused_at_registration(client: Any) -> None:
    response = register(client, "<script>alert(1)</script>")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert users(client.application) == []


def test_a_username_is_escaped_wherever_it_is_shown(app: Any, client: Any, login: Any) -> None:
    """Names from before the rules (or typed into the database) still never reach a page raw."""
    login(client, "alice")
    with Session(get_engine(app)) as session, session.begin():
        user = session.exec(select(User)).one()
        user.username = '<img src=x onerror="alert(1)">'
    # A sign-in cookie carries auth_version, not the name, so the session stays valid.
    for path in ("/", "/account"):
        page = client.get(path).get_data(as_text=True)
        assert "<img src=x" not in page
        assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page
    assert client.get("/api/v1/me").get_json()["username"] == '<img src=x onerror="alert(1)">'  # JSON is data

"""catalog.accounts without Flask: validation, hashing, password change, roles, API tokens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog import accounts
from catalog.accounts import AccountError
from catalog.models import ApiToken, User

CHEAP = "pbkdf2:sha256:1"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def new_user(session: Session, username: str = "alice", password: str = "correct horse", role: str = "user") -> User:
    return accounts.create_user(
        session=session, username=username, password=password, role=role, now=NOW, hash_method=CHEAP
    )


@pytest.mark.parametrize(
    "username",
    ["ab", "wukong", "Wu_Kong-2", "孙悟空", "龍之弈玩家", "a" * 32, "ｗｕｋｏｎｇ", "  padded  "],
)
def test_valid_usernames(session: Session, username: str) -> None:
    user = new_user(session, username)
    assert user.username == username.strip()
    assert user.id is not None


@pytest.mark.parametrize(
    ("username", "fragment"),
    [
        ("a", "2–32"),
        ("a" * 33, "2–32"),
        ("", "2–32"),
        ("<script>", "只能包含"),
        ("<b>x</b>", "只能包含"),
        ("a&b", "只能包含"),
        ('say"hi"', "只能包含"),
        ("it's", "只能包含"),
        ("a/b", "只能包含"),
        ("two words", "只能包含"),
        ("tab\tname", "只能包含"),
        ("dot.name", "只能包含"),
    ],
)
def test_invalid_usernames_are_refused_with_a_clear_message(session: Session, username: str, fragment: str) -> None:
    with pytest.raises(AccountError) as caught:
        new_user(session, username)
    assert fragment in caught.value.message.zh
    assert caught.value.message.en
    assert session.exec(select(User)).all() == []


def test_short_password_is_refused(session: Session) -> None:
    with pytest.raises(AccountError, match="至少需要 8 个字符"):
        new_user(session, password="short")


def test_unknown_role_is_refused(session: Session) -> None:
    with pytest.raises(AccountError, match="没有这个角色"):
        new_user(session, role="root")


@pytest.mark.parametrize("second", ["alice", "ALICE", "Alice", "ａｌｉｃｅ"])
def test_duplicate_name_ignoring_case_and_width(session: Session, second: str) -> None:
    new_user(session, "alice")
    with pytest.raises(AccountError) as caught:
        new_user(session, second)
    assert "已被使用" in caught.value.message.zh and "taken" in caught.value.message.en
    assert len(session.exec(select(User)).all()) == 1
    # The session is still usable after the refusal.
    new_user(session, "bob")


def test_password_is_hashed_and_authenticates(session: Session) -> None:
    user = new_user(session, password="correct horse")
    assert "correct horse" not in user.password_hash
    assert user.password_hash.startswith("pbkdf2:sha256:1$")
    assert accounts.authenticate(session=session, username="alice", password="correct horse") == user
    assert accounts.authenticate(session=session, username="ALICE", password="correct horse") == user
    assert accounts.authenticate(session=session, username="alice", password="wrong horse") is None
    assert (
        accounts.authenticate(session=session, username="nobody", password="correct horse", hash_method=CHEAP) is None
    )


def test_default_hashing_is_werkzeug_scrypt(session: Session) -> None:
    user = accounts.create_user(session=session, username="slow", password="correct horse", now=NOW)
    assert user.password_hash.startswith("scrypt:")


def test_change_password_needs_the_old_one_and_bumps_auth_version(session: Session) -> None:
    user = new_user(session)
    before = user.get_id()
    with pytest.raises(AccountError, match="原密码不正确"):
        accounts.change_password(
            session=session, user=user, old_password="wrong", new_password="new password", hash_method=CHEAP
        )
    assert user.auth_version == 0
    with pytest.raises(AccountError, match="至少需要"):
        accounts.change_password(
            session=session, user=user, old_password="correct horse", new_password="short", hash_method=CHEAP
        )
    assert user.auth_version == 0
    accounts.change_password(
        session=session, user=user, old_password="correct horse", new_password="new password", hash_method=CHEAP
    )
    assert user.auth_version == 1 and user.get_id() != before
    assert accounts.authenticate(session=session, username="alice", password="correct horse") is None
    assert accounts.authenticate(session=session, username="alice", password="new password") == user


def test_set_role(session: Session) -> None:
    user = new_user(session)
    accounts.set_role(session=session, user=user, role="organizer")
    assert user.role == "organizer"
    with pytest.raises(AccountError):
        accounts.set_role(session=session, user=user, role="king")
    assert user.role == "organizer"


def owner_of(session: Session, token: str, now: datetime) -> User | None:
    owner = accounts.user_for_token(session=session, token=token, now=now)
    return None if owner is None else owner.user


def test_token_is_stored_hashed_and_finds_its_owner(session: Session) -> None:
    alice, bob = new_user(session, "alice"), new_user(session, "bob")
    row, plaintext = accounts.issue_token(session=session, user=alice, name="脚本", now=NOW)
    assert plaintext.startswith("lz_") and len(plaintext) > 40
    assert row.token_hash != plaintext and plaintext not in row.token_hash
    assert row.prefix == plaintext[:10] and row.name == "脚本" and row.user_id == alice.id
    later = NOW + timedelta(hours=1)
    assert owner_of(session, plaintext, later) == alice
    assert row.last_used_at is None  # finding the owner reads only
    assert row.id is not None and accounts.token_use_is_stale(row, later)
    assert accounts.note_token_use(session=session, token_id=row.id, now=later)
    assert not accounts.note_token_use(session=session, token_id=row.id, now=later + timedelta(minutes=1))
    session.refresh(row)
    assert row.last_used_at is not None and not accounts.token_use_is_stale(row, later + timedelta(minutes=1))
    assert owner_of(session, plaintext + "x", later) is None
    assert owner_of(session, "not-a-token", later) is None
    _row_b, bobs = accounts.issue_token(session=session, user=bob, now=NOW)
    assert owner_of(session, bobs, later) == bob


def test_the_api_finds_its_caller_through_user_for_token(app: Any, engine: Any, monkeypatch: Any) -> None:
    """the API had its own copy of the token lookup, so the tests above proved
    nothing about it. It now calls user_for_token, and answers by what it says."""
    import webapp.api.auth

    seen: list[str] = []

    def spy(**kwargs: Any) -> Any:
        seen.append(kwargs["token"])
        return accounts.user_for_token(**kwargs)

    monkeypatch.setattr(webapp.api.auth, "user_for_token", spy)
    with Session(engine) as session, session.begin():
        alice = new_user(session)
        row, plaintext = accounts.issue_token(session=session, user=alice, now=NOW)
        token_id, alice_id = row.id, alice.id
    client = app.test_client()
    bearer = {"Authorization": f"Bearer {plaintext}"}
    assert client.get("/api/v1/trades", headers=bearer).status_code == 200
    assert seen == [plaintext]
    with Session(engine) as session:  # the stale use was recorded, apart from the read
        token = session.get(ApiToken, token_id)
        assert token is not None and token.last_used_at is not None
    with Session(engine) as session, session.begin():
        user = session.get(User, alice_id)
        assert user is not None and token_id is not None
        accounts.revoke_token(session=session, user=user, token_id=token_id, now=NOW)
    answer = client.get("/api/v1/trades", headers=bearer)
    assert (
        answer.status_code == 401 and answer.get_json()["error"]["message_en"] == "the API token is unknown or revoked"
    )
    assert seen == [plaintext, plaintext]


def test_revoked_token_stops_working(session: Session) -> None:
    alice = new_user(session)
    row, plaintext = accounts.issue_token(session=session, user=alice, now=NOW)
    assert row.id is not None
    accounts.revoke_token(session=session, user=alice, token_id=row.id, now=NOW)
    assert row.revoked_at == NOW
    assert owner_of(session, plaintext, NOW) is None


def test_only_the_owner_can_revoke_a_token(session: Session) -> None:
    alice, bob = new_user(session, "alice"), new_user(session, "bob")
    row, plaintext = accounts.issue_token(session=session, user=alice, now=NOW)
    assert row.id is not None
    with pytest.raises(AccountError, match="没有这个令牌"):
        accounts.revoke_token(session=session, user=bob, token_id=row.id, now=NOW)
    with pytest.raises(AccountError, match="没有这个令牌"):
        accounts.revoke_token(session=session, user=bob, token_id=row.id + 100, now=NOW)
    assert row.revoked_at is None
    assert owner_of(session, plaintext, NOW) == alice


def test_token_name_length_is_checked(session: Session) -> None:
    alice = new_user(session)
    with pytest.raises(AccountError, match="最多 64"):
        accounts.issue_token(session=session, user=alice, name="x" * 65, now=NOW)
    assert session.exec(select(ApiToken)).all() == []


def test_list_tokens_newest_first(session: Session) -> None:
    alice = new_user(session)
    accounts.issue_token(session=session, user=alice, name="one", now=NOW)
    accounts.issue_token(session=session, user=alice, name="two", now=NOW)
    assert [t.name for t in accounts.list_tokens(session=session, user=alice)] == ["two", "one"]


def test_make_user_builder(session: Session, make_user: Any) -> None:
    user = make_user(session, "carol", role="admin", lists_public=True)
    assert (user.username, user.role, user.lists_public) == ("carol", "admin", True)

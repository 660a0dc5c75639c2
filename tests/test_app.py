"""The app factory's configuration rules."""

from __future__ import annotations

import pytest

from catalog.errors import ConfigurationError
from webapp import create_app, create_settings_app


def test_production_refuses_the_default_secret_key(database_url: str) -> None:
    with pytest.raises(ConfigurationError) as error:
        create_app({"DATABASE_URL": database_url, "LUNZANG_ENV": "production"})
    assert "SECRET_KEY" in error.value.message.zh
    key = "s3cret-" + "k" * 25  # 32 bytes
    app = create_app({"DATABASE_URL": database_url, "LUNZANG_ENV": "production", "SECRET_KEY": key})
    assert app.config["SECRET_KEY"] == key


@pytest.mark.parametrize("key", ["s3cret", "k" * 31, "钥" * 10])  # 10 characters, 30 bytes
def test_production_refuses_a_short_secret_key_and_says_why(database_url: str, key: str) -> None:
    """a 5-character key was accepted; it signs every session (forgeable offline)."""
    with pytest.raises(ConfigurationError) as error:
        create_app({"DATABASE_URL": database_url, "LUNZANG_ENV": "production", "SECRET_KEY": key})
    assert "32" in error.value.message.zh and "签名" in error.value.message.zh
    assert "brute-forced" in error.value.message.en
    assert create_app({"DATABASE_URL": database_url, "LUNZANG_ENV": "production", "SECRET_KEY": "钥" * 11})


@pytest.mark.parametrize("environment", [{}, {"LUNZANG_ENV": "production", "LUNZANG_PROXIES": "1"}])
def test_the_settings_app_has_the_whole_apps_settings(
    monkeypatch: pytest.MonkeyPatch, database_url: str, environment: dict[str, str]
) -> None:
    """What ``lunzang search`` and ``lunzang deck check`` run in (webapp.cli_index.with_settings):
    the same instance folder and every setting as the whole app reads it (which its extensions
    then add to)."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("SECRET_KEY", "k" * 32)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    settings, whole = create_settings_app(), create_app()
    assert settings.instance_path == whole.instance_path
    assert dict(settings.config) == {key: whole.config[key] for key in settings.config}
    assert settings.config["DATABASE_URL"] == database_url
    assert not settings.blueprints and list(settings.url_map.iter_rules()) != []  # only the static files


def test_database_url_from_environment(monkeypatch: pytest.MonkeyPatch, database_url: str) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert create_app().config["DATABASE_URL"] == database_url


def test_default_database_is_sqlite_in_the_instance_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    app = create_app()
    assert app.config["DATABASE_URL"] == f"sqlite:///{app.instance_path}/lunzang.sqlite3"


def test_a_database_without_tables_gets_a_clear_503(tmp_path) -> None:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}", "SECRET_KEY": "t", "TESTING": True})
    client = app.test_client()
    for path in ("/", "/cards?q=swk", "/decks?game=samsara&list=1%20x"):
        response = client.get(path)
        assert response.status_code == 503, path
        assert "lunzang init-db" in response.get_data(as_text=True)
    api = client.get("/api/v1/cards?q=x")
    assert api.status_code == 503 and api.get_json()["error"]["code"] == "database_not_initialised"


@pytest.mark.parametrize("args", [["serve", "--port", "5121"], ["serve", "--check"]])
def test_serve_refuses_a_short_secret_key_before_starting(database_url: str, args: list[str]) -> None:
    import os

    from tests.kits.deploy import lunzang

    env = {k: v for k, v in os.environ.items() if k != "LUNZANG_ENV"} | {"DATABASE_URL": database_url}
    done = lunzang(args, env | {"SECRET_KEY": "s3cre"})
    assert done.returncode == 2, done.stderr
    assert "SECRET_KEY 只有 5 字节，至少需要 32 字节" in done.stderr and "brute-forced" in done.stderr
    assert "Traceback" not in done.stderr

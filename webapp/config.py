"""The app's settings: defaults, then instance ``config.py`` and the environment, then the tests'.

Every setting the app reads is here with its default and why it is what it is.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask

from catalog.errors import ConfigurationError

ROOT = Path(__file__).resolve().parent.parent


def load(app: Flask, test_config: dict[str, Any] | None = None) -> None:
    """Defaults, then instance ``config.py`` and the environment, then ``test_config``."""
    app.config.from_mapping(
        # None: generated once into the instance folder (below). Environment: SECRET_KEY.
        SECRET_KEY=None,
        SECRET_KEY_FILE=None,  # where the generated key lives (default: <instance>/secret_key)
        DATABASE_URL=None,
        # Seconds a request waits for SQLite's write lock (a long import holds it) before it is
        # answered 503 + Retry-After: below gunicorn's 30 s worker timeout, so the visitor gets
        # an answer rather than a killed worker. Environment: DATABASE_TIMEOUT.
        DATABASE_TIMEOUT=10,
        SAMPLE_DATA=str(ROOT / "import"),
        BABEL_DEFAULT_LOCALE="zh",
        BABEL_TRANSLATION_DIRECTORIES=str(Path(__file__).parent / "translations"),
        LUNZANG_ENV="development",
        # Accounts (webapp.auth): cookies never readable by scripts, not sent on cross-site
        # POSTs; Secure as well once the site is served over HTTPS (LUNZANG_HTTPS=1 or
        # PREFERRED_URL_SCHEME="https"), since a Secure cookie is never sent over plain HTTP.
        # None = "when in production": under ``lunzang serve`` cookies are Secure unless
        # LUNZANG_HTTPS=0 says the site is served over plain HTTP on purpose.
        LUNZANG_HTTPS=None,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        # A CSRF token is valid as long as the session (a results page left open still works).
        WTF_CSRF_TIME_LIMIT=None,
        # Sign-in counters: one process by default; redis://host:6379/0 to share across servers.
        RATELIMIT_STORAGE_URI="memory://",
        # Answers that depend only on the catalogue (webapp/answers.py,): kept in each
        # process (ANSWER_CACHE_MB) and, when ANSWER_CACHE_URL names a redis:// store (default:
        # RATELIMIT_STORAGE_URI when that is Redis), shared there by every server. "off" disables.
        ANSWER_CACHE_URL=None,
        ANSWER_CACHE_MB=64,
        # Long work (bulk catalogue uploads) on RQ: redis://host:6379/0; unset, a thread of the process.
        JOB_QUEUE_URL=None,
        # Explicit: the limiter object outlives one app and would otherwise keep an earlier app's False.
        RATELIMIT_ENABLED=True,
        RATELIMIT_STRATEGY="moving-window",
        RATELIMIT_HEADERS_ENABLED=True,
        # Redis away must not lock anyone out: each process then counts on its own
        # (Flask-Limiter's in-memory fallback: the same limits, logged), and goes back to the
        # shared store when it answers again (re-checked with a backoff of 1, 2, 4 … 32 s);
        # /healthz and `serve --check` say so. A failure of the limiter itself is logged, never
        # a 500. Redis timeouts are short: a store that hangs must not hold a sign-in.
        RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True,
        RATELIMIT_SWALLOW_ERRORS=True,
        PASSWORD_HASH_METHOD=None,  # werkzeug's default (scrypt)
        # Request bodies: a bit above the 20 MB scan cap (catalog.images.scans.MAX_BYTES) for the
        # multipart overhead; the 10 MB collection CSV cap is the domain's (catalog.collection.csvio).
        MAX_CONTENT_LENGTH=21 * 1024 * 1024,
        # How many reverse proxies (load balancer, nginx) stand in front of the app. Behind
        # one, every request comes from the proxy's address: the sign-in limit would count all
        # visitors as one. Set LUNZANG_PROXIES=1 there so X-Forwarded-For/-Proto/-Host are
        # trusted from exactly that many hops (werkzeug's ProxyFix); never when exposed directly.
        LUNZANG_PROXIES=0,
        # Mail (webapp.mail): password-reset links go by e-mail when MAIL_SERVER names an SMTP
        # host; without one, an admin issues a one-time link on /admin/users instead.
        MAIL_SERVER="",
        MAIL_PORT=25,
        MAIL_FROM="",
        MAIL_USERNAME="",
        MAIL_PASSWORD="",
        MAIL_STARTTLS=False,
    )
    app.config.from_pyfile("config.py", silent=True)
    from_environment = (
        "SECRET_KEY",
        "DATABASE_URL",
        "DATABASE_TIMEOUT",
        "LUNZANG_ENV",
        "LUNZANG_HTTPS",
        "RATELIMIT_STORAGE_URI",
        "ANSWER_CACHE_URL",
        # the drawn faces' folder (default instance/card-images): one shared folder lets every
        # server serve a face any of them (or `lunzang images warm`) drew
        "CARD_IMAGE_DIR",
        "MAIL_SERVER",
        "MAIL_PORT",
        "MAIL_FROM",
        "MAIL_USERNAME",
        "MAIL_PASSWORD",
        "MAIL_STARTTLS",
        "JOB_QUEUE_URL",
    )
    for key in (*from_environment, "LUNZANG_PROXIES"):
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    if test_config:
        app.config.update(test_config)
    if str(app.config["RATELIMIT_STORAGE_URI"]).startswith(("redis", "rediss")):
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"socket_connect_timeout": 1, "socket_timeout": 1})
    if app.config["TESTING"] and not app.config["PASSWORD_HASH_METHOD"]:
        app.config["PASSWORD_HASH_METHOD"] = "pbkdf2:sha256:1"  # cheap: tests create many users
    told = app.config["LUNZANG_HTTPS"]
    if told is None or str(told).strip() == "":
        https = app.config["LUNZANG_ENV"] == "production"
    else:
        https = str(told).lower() in {"1", "true", "yes", "on"}
    if https or app.config.get("PREFERRED_URL_SCHEME") == "https":
        app.config["SESSION_COOKIE_SECURE"] = app.config["REMEMBER_COOKIE_SECURE"] = True
    proxies = int(app.config["LUNZANG_PROXIES"] or 0)
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        # why the type: ignore below: wrapping app.wsgi_app in middleware is how Flask documents ProxyFix
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config["DATABASE_URL"]:
        app.config["DATABASE_URL"] = f"sqlite:///{Path(app.instance_path) / 'lunzang.sqlite3'}"
    _secret_key(app)


# The literal development key this app once shipped with: anyone could forge a session with it,
# so it is refused wherever it comes from, like an empty one.
REFUSED_KEYS = {"dev", "changeme", "secret"}


MIN_KEY_BYTES = 32  # 256 bits, as secrets.token_hex(32) gives; HMAC-SHA1 signs the sessions


def short_key_problem(key: str | None) -> tuple[str, str] | None:
    """Why ``key`` cannot sign production sessions (Chinese, English), or None."""
    size = len((key or "").encode("utf-8"))
    if size >= MIN_KEY_BYTES:
        return None
    return (
        f"SECRET_KEY 只有 {size} 字节，至少需要 {MIN_KEY_BYTES} 字节：它为登录会话签名，短的密钥可以被离线暴力猜出，"
        "猜出的人能冒充任何用户。生成一个：python -c 'import secrets; print(secrets.token_hex(32))'",
        f"SECRET_KEY has {size} bytes, at least {MIN_KEY_BYTES} are needed: it signs the sign-in sessions, and a "
        "short key can be brute-forced offline, letting whoever finds it act as any user. Make one with: "
        "python -c 'import secrets; print(secrets.token_hex(32))'",
    )


def _secret_key(app: Flask) -> None:
    """Refuse a known key; without one, read (or on first run create) the instance's own.

    Production refuses to start without SECRET_KEY: several app servers must share one key,
    and a key generated per machine would silently sign every visitor out between them."""
    key = app.config.get("SECRET_KEY")
    if key in REFUSED_KEYS:
        raise ConfigurationError.from_text(
            f"SECRET_KEY 不能是公开的默认值「{key}」：请设置一个随机值，或删去它以自动生成",
            f"SECRET_KEY must not be the well-known {key!r}: set a random value, or unset it to generate one",
        )
    if key and app.config["LUNZANG_ENV"] == "production" and (problem := short_key_problem(key)):
        raise ConfigurationError.from_text(*problem)
    if key:
        return
    if app.config["LUNZANG_ENV"] == "production":
        raise ConfigurationError.from_text(
            "生产环境必须设置 SECRET_KEY 环境变量（各台服务器使用同一个值）",
            "set SECRET_KEY before serving in production (the same value on every server)",
        )
    path = Path(app.config.get("SECRET_KEY_FILE") or Path(app.instance_path) / "secret_key")
    if not path.exists():
        # Written whole to a private file, then linked into place: of two processes starting at
        # once, one key wins and both read it complete.
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_text().strip()
    if len(key) < 32:
        raise ConfigurationError.from_text(
            f"密钥文件 {path} 内容不完整：删除它以重新生成", f"the key file {path} is incomplete: delete it"
        )
    app.config["SECRET_KEY"] = key

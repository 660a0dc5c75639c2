"""``make fuzz``: schemathesis against a live ``lunzang serve`` (bounded: a few minutes).

A throwaway SQLite database with the sample catalogue and a user with a token; one server on
127.0.0.1:``FUZZ_PORT`` (default 18163), stopped at the end. Every operation of
``/api/v1/openapi.json`` gets ``FUZZ_EXAMPLES`` generated cases (default 40) with every check
(server errors, status codes, content types, response schemas, headers …). Exit status:
schemathesis's (0 = no failure).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from tests.deploykit import Server, lunzang  # noqa: E402

PORT = int(os.environ.get("FUZZ_PORT", "18163"))
EXAMPLES = os.environ.get("FUZZ_EXAMPLES", "40")
TIME_LIMIT = int(os.environ.get("FUZZ_SECONDS", "300"))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="lunzang-fuzz-") as folder:
        env = {k: v for k, v in os.environ.items() if k not in ("LUNZANG_ENV", "DATABASE_URL")}
        env |= {
            "DATABASE_URL": f"sqlite:///{Path(folder) / 'fuzz.sqlite3'}",
            "SECRET_KEY": secrets.token_hex(32),
            "LUNZANG_HTTPS": "0",
        }
        for args, stdin in ((["init-db", "--with-sample"], ""), (["user", "create", "fuzzer"], "fuzz password\n")):
            done = lunzang(args, env, stdin)
            if done.returncode:
                print(done.stderr, file=sys.stderr)
                return 2
        made = lunzang(["user", "token", "fuzzer"], env)
        token = next(w for w in made.stdout.split() if w.startswith("lz_"))
        server = Server(PORT, env, workers=2)
        server.start(Path(folder) / "server.log")
        try:
            server.wait_healthy()
            command = [
                str(Path(sys.executable).with_name("schemathesis")),
                # per-operation: which answers a schema-valid request may get (see the file)
                "--config-file",
                str(Path(__file__).with_name("schemathesis.toml")),
                "run",
                f"{server.url}/api/v1/openapi.json",
                "--header",
                f"Authorization: Bearer {token}",
                "--checks",
                "all",
                "--max-examples",
                EXAMPLES,
                "--request-timeout",
                "30",
                "--generation-deterministic",
                # A NUL byte is refused by the validation layer on every operation (PostgreSQL
                # cannot store it), as the document's 400 says; generating it only finds that.
                "--generation-allow-x00",
                "false",
                *sys.argv[1:],
            ]
            try:
                return subprocess.run(command, timeout=TIME_LIMIT, check=False).returncode
            except subprocess.TimeoutExpired:
                print(f"schemathesis stopped after {TIME_LIMIT} s", file=sys.stderr)
                return 1
        finally:
            server.stop()
            log = server.tail()
            if "Traceback" in log:
                print("server errors:\n" + log, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

"""curators upload a zipped game folder or a spreadsheet in the import format, a
background job runs the dry run (the CLI's report), and confirming imports it — on RQ with a real
redis-server, or on a thread of the process when there is no Redis."""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

from catalog.models import BackgroundJob, Card, CatalogueRevision
from tests.kits.ingest import export_files
from webapp.db import get_engine

CARD = "小红帽·森林歌者"
REDIS_PORT = 6392


def _wait(app, job_id: int, timeout: float = 30) -> BackgroundJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with Session(get_engine(app)) as session:
            job = session.get(BackgroundJob, job_id)
            if job is not None and job.status in ("done", "failed"):
                return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def _zipped_sample(app, tmp_path: Path, new_text: str) -> bytes:
    """The sample's 永恒之轮 as its export, with one card's rules text changed."""
    export_files(get_engine(app), tmp_path / "export", ["samsara"])
    folder = tmp_path / "export" / "samsara"
    m4 = folder / "cards" / "M4.csv"
    text = m4.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if f",{CARD}," in line)
    old_text = line.split(",")[5]
    m4.write_text(text.replace(line, line.replace(old_text, new_text, 1)), encoding="utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(tmp_path / "export").as_posix())
    return buffer.getvalue()


def _card_text(app) -> str:
    with Session(get_engine(app)) as session:
        return session.exec(select(Card.text).where(Card.name == CARD)).one()


def _upload(client, data: bytes, name: str, **form: str):
    return client.post(
        "/catalogue/bulk", data={"catalogue": (io.BytesIO(data), name), **form}, content_type="multipart/form-data"
    )


def _job_id(response) -> int:
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return int(response.headers["Location"].rstrip("/").rsplit("/", 1)[1])


def test_a_zip_is_checked_in_the_background_then_imported_on_confirmation(
    sample_app, client, login, tmp_path: Path
) -> None:
    sample_app.config["UPLOAD_DIR"] = str(tmp_path / "uploads")
    login(client, "cura", role="curator")
    before = _card_text(sample_app)
    job_id = _job_id(_upload(client, _zipped_sample(sample_app, tmp_path, "社区修订的规则文字"), "samsara.zip"))
    checked = _wait(sample_app, job_id)
    assert checked.status == "done" and checked.result["lines"][0].startswith("（试运行，未写入）导入完成")
    assert "  卡牌：新增 0，更新 1，未变" in "\n".join(checked.result["lines"])
    assert _card_text(sample_app) == before  # a dry run writes nothing
    page = client.get(f"/catalogue/bulk/{job_id}").get_data(as_text=True)
    assert "试运行，未写入" in page and "confirm" in page
    assert client.post(f"/catalogue/bulk/{job_id}/confirm").status_code == 302  # not ticked: nothing
    with Session(get_engine(sample_app)) as session:
        assert len(session.exec(select(BackgroundJob)).all()) == 1
    imported = _wait(sample_app, _job_id(client.post(f"/catalogue/bulk/{job_id}/confirm", data={"confirm": "1"})))
    assert imported.status == "done" and imported.result["lines"][0].startswith("导入完成")
    assert _card_text(sample_app) == "社区修订的规则文字"
    with Session(get_engine(sample_app)) as session:
        audit = session.exec(select(CatalogueRevision).where(CatalogueRevision.kind == "import")).one()
        assert audit.label == "samsara.zip" and audit.target_id == imported.id
    again = client.post(f"/catalogue/bulk/{job_id}/confirm", data={"confirm": "1"})  # only once
    assert again.status_code == 302
    with Session(get_engine(sample_app)) as session:
        assert len(session.exec(select(BackgroundJob)).all()) == 2


def test_a_spreadsheet_of_rows_and_a_refused_one(sample_app, client, login, tmp_path: Path) -> None:
    sample_app.config["UPLOAD_DIR"] = str(tmp_path / "uploads")
    login(client, "cura", role="curator")
    export_files(get_engine(sample_app), tmp_path / "export", ["samsara"])
    sheet = (tmp_path / "export" / "samsara" / "cards" / "M4.csv").read_text(encoding="utf-8")
    header, *rows = sheet.splitlines()
    row = next(r for r in rows if f",{CARD}," in r)
    changed = "\n".join([header, row.replace(f",{CARD},C,", f",{CARD},SR,")]).encode()
    assert _upload(client, changed, "m4.csv").status_code == 400  # no game chosen
    checked = _wait(sample_app, _job_id(_upload(client, changed, "m4.csv", game="samsara")))
    assert checked.status == "done", checked.result
    bad = "\n".join([header, row.replace(f",{CARD},C,", f",{CARD},XR,")]).encode()
    failed = _wait(sample_app, _job_id(_upload(client, bad, "bad.csv", game="samsara")))
    assert failed.status == "failed" and any("rarity" in line for line in failed.result["problems"])
    assert "rarity" in client.get(f"/catalogue/bulk/{failed.id}").get_data(as_text=True)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("cards.txt", b"x"),
        ("broken.zip", b"PK not a zip"),
        ("empty.zip", b""),
    ],
)
def test_bad_uploads_are_refused_with_a_message(
    sample_app, client, login, tmp_path: Path, name: str, data: bytes
) -> None:
    sample_app.config["UPLOAD_DIR"] = str(tmp_path / "uploads")
    login(client, "cura", role="curator")
    refused = _upload(client, data, name)
    assert refused.status_code == 400 and "flashes" in refused.get_data(as_text=True)
    with Session(get_engine(sample_app)) as session:
        assert session.exec(select(BackgroundJob)).all() == []


def test_a_zip_reaching_outside_its_folder_is_refused(sample_app, client, login, tmp_path: Path) -> None:
    sample_app.config["UPLOAD_DIR"] = str(tmp_path / "uploads")
    login(client, "cura", role="curator")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("samsara/manifest.toml", 'game = "samsara"\n')
        archive.writestr("../../evil.csv", "x")
    refused = _upload(client, buffer.getvalue(), "evil.zip")
    assert refused.status_code == 400 and "evil.csv" in refused.get_data(as_text=True)
    assert not (tmp_path / "evil.csv").exists()


def test_players_cannot_upload(sample_app, client, login) -> None:
    login(client, "player")
    assert client.get("/catalogue/bulk").status_code == 403
    assert _upload(client, b"x", "a.zip").status_code == 403


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(REDIS_PORT),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", REDIS_PORT), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{REDIS_PORT}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_on_rq_a_worker_runs_the_job_and_redis_holds_its_progress(
    sample_app, client, login, tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from redis import Redis
    from rq import Queue, SimpleWorker

    sample_app.config["UPLOAD_DIR"] = str(tmp_path / "uploads")
    sample_app.config["JOB_QUEUE_URL"] = redis_url
    login(client, "cura", role="curator")
    job_id = _job_id(_upload(client, _zipped_sample(sample_app, tmp_path, "队列中的规则文字"), "samsara.zip"))
    connection = Redis.from_url(redis_url)
    queue = Queue("lunzang", connection=connection)
    assert queue.count == 1  # on RQ, not run by the web process
    assert queue.jobs[0].args == (job_id, None, redis_url)  # no database URL (nor its password) in Redis
    # the worker's own environment names the database
    monkeypatch.setenv("DATABASE_URL", get_engine(sample_app).url.render_as_string(hide_password=False))
    assert 'http-equiv="refresh"' in client.get(f"/catalogue/bulk/{job_id}").get_data(as_text=True)
    SimpleWorker([queue], connection=connection).work(burst=True)
    checked = _wait(sample_app, job_id, timeout=5)
    assert checked.status == "done" and "更新 1" in "\n".join(checked.result["lines"])
    assert connection.exists(f"lunzang:job:{job_id}:progress")
    imported = _job_id(client.post(f"/catalogue/bulk/{job_id}/confirm", data={"confirm": "1"}))
    SimpleWorker([queue], connection=connection).work(burst=True)
    assert _wait(sample_app, imported, timeout=5).status == "done"
    assert _card_text(sample_app) == "队列中的规则文字"
    connection.flushdb()


def test_an_unreachable_redis_falls_back_to_a_thread(sample_app, client, login, tmp_path: Path) -> None:
    sample_app.config["UPLOAD_DIR"] = str(tmp_path / "uploads")
    sample_app.config["JOB_QUEUE_URL"] = "redis://127.0.0.1:1/0"
    login(client, "cura", role="curator")
    job_id = _job_id(_upload(client, _zipped_sample(sample_app, tmp_path, "无队列的规则文字"), "samsara.zip"))
    assert _wait(sample_app, job_id).status == "done"

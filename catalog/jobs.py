"""A job queue for work longer than a request: RQ on the deployment's Redis when
``JOB_QUEUE_URL`` names one, else a thread of the web process. The same queue takes any long
work: a kind is a function registered under a name (:func:`register`), given a session, the
job's parameters and a progress callback, and returning its result and whether to commit.

A job's state and result live in its ``background_job`` row, written by the worker in its own
transactions (before and after the work, never during it: SQLite has one writer, and the work's
own transaction may hold it); its running progress lives in the queue's store — a Redis hash
read by every app server, or, without Redis, the process's memory (then only the server running
it shows the bar; every server shows the result). No Flask here: a worker is ``rq worker
lunzang --url redis://…`` with ``DATABASE_URL`` set, importing only catalog.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlmodel import Session

from catalog import db as catalog_db
from catalog.errors import LunzangError
from catalog.models import BackgroundJob

QUEUE_NAME = "lunzang"
JOB_TIMEOUT = 3600  # seconds: a million-row catalogue imports in minutes
# modules whose import registers their kinds (a worker process imports nothing else)
KIND_MODULES = ("catalog.curation.bulk",)

Progress = Callable[[str, int, int], None]
Work = Callable[[Session, dict[str, Any], Progress], tuple[dict[str, Any], bool]]
KINDS: dict[str, Work] = {}
log = logging.getLogger(__name__)


def register(kind: str) -> Callable[[Work], Work]:
    def add(work: Work) -> Work:
        KINDS[kind] = work
        return work

    return add


class ProgressStore(Protocol):
    def put(self, job_id: int, stage: str, done: int, total: int) -> None: ...

    def get(self, job_id: int) -> dict[str, Any] | None: ...


class MemoryProgress:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[int, dict[str, Any]] = {}

    def put(self, job_id: int, stage: str, done: int, total: int) -> None:
        with self._lock:
            self._seen[job_id] = {"stage": stage, "done": done, "total": total}

    def get(self, job_id: int) -> dict[str, Any] | None:
        with self._lock:
            return self._seen.get(job_id)


class RedisProgress:
    def __init__(self, url: str) -> None:
        from redis import Redis

        self._redis = Redis.from_url(url)

    def put(self, job_id: int, stage: str, done: int, total: int) -> None:
        key = f"lunzang:job:{job_id}:progress"
        self._redis.hset(key, mapping={"stage": stage, "done": done, "total": total})
        self._redis.expire(key, 86400)

    def get(self, job_id: int) -> dict[str, Any] | None:
        found = self._redis.hgetall(f"lunzang:job:{job_id}:progress")
        if not found:
            return None
        values = {k.decode(): v.decode() for k, v in found.items()}  # type: ignore[union-attr]  # bytes from redis-py
        return {"stage": values["stage"], "done": int(values["done"]), "total": int(values["total"])}


MEMORY = MemoryProgress()
_engines: dict[str, Any] = {}


def create_job(
    *, session: Session, kind: str, user_id: int | None, params: dict[str, Any], now: datetime
) -> BackgroundJob:
    """A queued job row (flushed; the caller commits it before enqueueing)."""
    job = BackgroundJob(kind=kind, user_id=user_id, params=params, created_at=now)
    session.add(job)
    session.flush()
    return job


def run_job(job_id: int, database_url: str | None, redis_url: str | None = None) -> None:
    """Run one job to its end (the worker's entry point, RQ or thread); never raises. An RQ
    worker is given no ``database_url`` (the job's arguments sit in Redis, and the URL may hold
    a password): it reads its own ``DATABASE_URL``."""
    for module in KIND_MODULES:
        importlib.import_module(module)
    database_url = database_url or os.environ.get("DATABASE_URL", "")
    if not database_url:
        log.error("background job %s: the worker has no DATABASE_URL", job_id)
        return
    engine = _engines.get(database_url) or _engines.setdefault(database_url, catalog_db.make_engine(database_url))
    store: ProgressStore = RedisProgress(redis_url) if redis_url else MEMORY
    # Each transaction here reads and then writes: on SQLite it takes the write lock first (a
    # deferred one would fail at once should another writer commit between its read and write).
    with catalog_db.transaction(engine, write=True) as session:
        job = session.get(BackgroundJob, job_id)
        if job is None or job.status != "queued":
            return
        job.status = "running"
        kind, params = job.kind, dict(job.params)
    result: dict[str, Any]
    try:
        work = KINDS[kind]
        with Session(catalog_db.writer(engine)) as session:
            transaction = session.begin()
            try:
                result, keep = work(
                    session,
                    {**params, "job_id": job_id},
                    lambda stage, done, total: store.put(job_id, stage, done, total),
                )
            except BaseException:
                transaction.rollback()
                raise
            if keep:
                transaction.commit()
            else:
                transaction.rollback()
        status = "done"
    except LunzangError as error:
        status = "failed"
        problems = [str(p) for p in getattr(error, "problems", [])[:500]]
        result = {"error": error.message.zh, "error_en": error.message.en, "problems": problems}
    except Exception:  # the job fails, the worker lives on; the log has the traceback
        log.exception("background job %s (%s) failed", job_id, kind)
        status = "failed"
        result = {"error": "内部错误，详见服务器日志", "error_en": "internal error: see the server log", "problems": []}
    with catalog_db.transaction(engine, write=True) as session:
        job = session.get(BackgroundJob, job_id)
        if job is not None:
            job.status, job.result, job.finished_at = status, result, datetime.now(UTC)


class JobQueue:
    """Enqueue jobs on RQ (``redis_url``) or, without Redis, on a thread of this process."""

    def __init__(self, redis_url: str | None, database_url: str) -> None:
        self.redis_url = redis_url or None
        self.database_url = database_url

    def enqueue(self, job_id: int) -> str:
        """``"rq"`` or ``"thread"``: where the job went (a Redis that does not answer: a thread)."""
        if self.redis_url:
            try:
                from redis import Redis
                from rq import Queue

                queue = Queue(QUEUE_NAME, connection=Redis.from_url(self.redis_url))
                queue.enqueue(run_job, job_id, None, self.redis_url, job_timeout=JOB_TIMEOUT)
                return "rq"
            except Exception:  # redis.ConnectionError and its kin: the work still gets done here
                log.warning("job queue at %s unreachable: job %s runs in this process", self.redis_url, job_id)
        thread = threading.Thread(target=run_job, args=(job_id, self.database_url, None), daemon=True)
        thread.start()
        return "thread"

    def progress(self, job_id: int) -> dict[str, Any] | None:
        if self.redis_url:
            try:
                return RedisProgress(self.redis_url).get(job_id) or MEMORY.get(job_id)
            except Exception:
                return MEMORY.get(job_id)
        return MEMORY.get(job_id)

"""Uploaded card scans: stored by content hash; they replace the rendered face of
their printing. Checking and normalising an upload: :mod:`catalog.images.prepare` (its names
re-exported here, where the upload views and the CLI find them).

Files are named by the SHA-256 of the normalised pixels: ``<store>/<ab>/<abcdef…>.<size>.<fmt>``;
the same scan uploaded twice is one set of files.

Nothing is written until every check has passed (bulk: until every file has), and files appear
by rename, so a reader sees a whole file or none. The :class:`PrintingScan` row is added to the
caller's session, never committed here. Files are never deleted: another printing may share
them, and a rolled-back transaction may still point at them.

No Flask. A web upload view is a thin wrapper::

    data = read_limited(request.files["scan"].stream)
    try:
        add_scan(session=get_session(), printing_id=printing.id, data=data,
                 store_dir=scan_dir(), uploaded_by=current_user.id, now=datetime.now(UTC))
    except ScanError as error:
        flash(error.message.zh, "error")
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from PIL import Image
from sqlalchemy import select as sa_select
from sqlalchemy import update
from sqlmodel import Session, col, select

from catalog.errors import Message
from catalog.games.base import GameModule
from catalog.images import faces as images
from catalog.images.keys import scan_hashes  # noqa: F401  (re-exported: callers name it as scans.*)
from catalog.images.prepare import ACCEPTED as ACCEPTED
from catalog.images.prepare import MAX_BYTES as MAX_BYTES
from catalog.images.prepare import MAX_PIXELS as MAX_PIXELS
from catalog.images.prepare import MIN_SIDE as MIN_SIDE
from catalog.images.prepare import PreparedScan as PreparedScan
from catalog.images.prepare import ScanError as ScanError
from catalog.images.prepare import ScanResult as ScanResult
from catalog.images.prepare import prepare_scan as prepare_scan
from catalog.images.prepare import read_file as read_file
from catalog.images.prepare import read_limited as read_limited
from catalog.images.prepare import scan_error
from catalog.models import Card, CardSet, Game, Printing, PrintingScan
from catalog.models.catalogue import new_catalogue_version
from catalog.text import fold


def scan_path(store_dir: Path, sha256: str, size: str, fmt: str) -> Path:
    """Where one encoding of a stored scan lives."""
    return store_dir / sha256[:2] / f"{sha256}.{size}.{fmt}"


def read_scan(store_dir: Path, sha256: str, size: str, fmt: str) -> bytes | None:
    """The stored bytes of a scan at ``size``/``fmt``, or ``None`` when the file is missing."""
    try:
        return scan_path(store_dir, sha256, size, fmt).read_bytes()
    except FileNotFoundError:
        return None


def face_of(
    card: Card,
    printing: Printing,
    card_set: CardSet,
    game: GameModule,
    *,
    scan_sha: str | None,
    scan_dir: Path | None,
    cache_dir: Path | None,
    size: str,
    fmt: str,
) -> tuple[bytes | Image.Image, str]:
    """What a printing looks like, the one rule for every page, deck image and proxy sheet: its
    uploaded scan when the files are there, else the face drawn from its data (encoded and kept
    in ``cache_dir``, or the drawn image itself without one). With its ETag: the scan's hash, or
    the drawn face's cache key (``""`` when not encoded)."""
    if scan_sha and scan_dir is not None:
        data = read_scan(scan_dir, scan_sha, size, fmt)
        if data is not None:
            return data, scan_sha
    if cache_dir is not None:
        return images.card_image(card, printing, card_set, game, cache_dir=cache_dir, size=size, fmt=fmt)
    return images.render_card(card, printing, card_set, game, size), ""


def _stage(store_dir: Path, prepared: list[PreparedScan]) -> Path:
    """Write every file into a fresh hidden folder of ``store_dir`` (moved into place later)."""
    store_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=store_dir))
    try:
        for scan in prepared:
            for name, blob in scan.files.items():
                (staging / f"{scan.sha256}.{name}").write_bytes(blob)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def _publish(store_dir: Path, staging: Path) -> None:
    """Move staged files to their hash-named places (``os.replace``: atomic per file)."""
    try:
        for path in staging.iterdir():
            target = store_dir / path.name[:2] / path.name
            target.parent.mkdir(exist_ok=True)
            os.replace(path, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _upsert(
    session: Session, printing_id: int, scan: PreparedScan, uploaded_by: int | None, now: datetime
) -> ScanResult:
    row = session.get(PrintingScan, printing_id)
    replaced = row.sha256 if row is not None else None
    if row is None:
        row = PrintingScan(printing_id=printing_id, sha256=scan.sha256, width=0, height=0, uploaded_at=now)
    row.sha256, row.width, row.height = scan.sha256, scan.width, scan.height
    row.uploaded_by, row.uploaded_at = uploaded_by, now
    session.add(row)
    session.flush()
    catalogue_changed(session, printing_id)
    return ScanResult(printing_id, scan.sha256, scan.width, scan.height, replaced)


def catalogue_changed(session: Session, printing_id: int) -> None:
    """A scan is part of the catalogue's answers (every page showing the printing's face):
    a new ``catalogue_version`` for its game, as an import gives, so kept answers age out."""
    game_of_printing = (
        sa_select(col(CardSet.game_id))
        .join(Printing, col(Printing.set_id) == col(CardSet.id))
        .where(col(Printing.id) == printing_id)
        .scalar_subquery()
    )
    session.execute(
        update(Game).where(col(Game.id) == game_of_printing).values(catalogue_version=new_catalogue_version())
    )


def _printing(session: Session, printing_id: int) -> Printing:
    printing = session.get(Printing, printing_id)
    if printing is None:
        raise scan_error(f"没有编号为 {printing_id} 的印刷", f"no printing with id {printing_id}")
    return printing


def add_scan(
    *,
    session: Session,
    printing_id: int,
    data: bytes,
    store_dir: Path,
    uploaded_by: int | None = None,
    now: datetime,
) -> ScanResult:
    """Store ``data`` as the scan of a printing (replacing any earlier one) after every check.

    Raises :class:`ScanError` and stores nothing when the upload or the printing is bad.
    """
    _printing(session, printing_id)
    prepared = prepare_scan(data)
    _publish(store_dir, _stage(store_dir, [prepared]))
    return _upsert(session, printing_id, prepared, uploaded_by, now)


def store_upload(*, data: bytes, store_dir: Path) -> PreparedScan:
    """Check and store an upload's files (by content hash) without giving it to any printing
    yet: a proposal's photo (catalog.curation.proposals), attached only when approved."""
    prepared = prepare_scan(data)
    _publish(store_dir, _stage(store_dir, [prepared]))
    return PreparedScan(prepared.sha256, prepared.width, prepared.height, {})


def attach_scan(
    *, session: Session, printing_id: int, sha256: str, width: int, height: int, uploaded_by: int | None, now: datetime
) -> ScanResult:
    """Make stored files (from :func:`store_upload`) a printing's scan, replacing any earlier one."""
    _printing(session, printing_id)
    return _upsert(session, printing_id, PreparedScan(sha256, width, height, {}), uploaded_by, now)


def remove_scan(*, session: Session, printing_id: int) -> str | None:
    """Drop a printing's scan (its rendered face shows again); the removed hash, or ``None``.

    The files stay: they are named by content and may serve another printing.
    """
    row = session.get(PrintingScan, printing_id)
    if row is None:
        return None
    session.delete(row)
    session.flush()
    catalogue_changed(session, printing_id)
    return row.sha256


# ---------------------------------------------------------------------------- a folder at once


@dataclass
class FileProblem:
    name: str
    message: Message

    def __str__(self) -> str:
        return f"{self.name}：{self.message.zh}"


class ScanFolderError(ScanError):
    """One or more files of a folder were refused: nothing of the folder was stored."""

    def __init__(self, problems: list[FileProblem]) -> None:
        super().__init__(
            Message(
                f"{len(problems)} 个文件有问题，整个文件夹都没有保存",
                f"{len(problems)} file(s) refused; nothing from the folder was stored",
            )
        )
        self.problems = problems


@dataclass
class FolderResult:
    stored: list[tuple[str, ScanResult]] = field(default_factory=list)  # (file name, result)


def _number_tail(number: str) -> str:
    """The part of a collector number after its set prefix: ``M4-001`` → ``001``."""
    return re.split(r"[-·\s]", number, maxsplit=1)[-1] if re.search(r"[-·\s]", number) else number


def _match(stem: str, printings: list[Printing], set_code: str) -> list[Printing]:
    """The printings a file name stem names: the whole number (``M4-001``), the number
    without the set code (``001``), or the same digits (``1`` for ``001``)."""
    key = fold(stem)
    exact = [p for p in printings if key in (p.number_key, fold(f"{set_code}-{stem}"))]
    if exact:
        return exact
    tails = [p for p in printings if fold(_number_tail(p.number)) == key]
    if tails or not stem.isdigit():
        return tails
    return [p for p in printings if _number_tail(p.number).isdigit() and int(_number_tail(p.number)) == int(stem)]


def add_scans_from_folder(
    *,
    session: Session,
    game: str,
    set_code: str,
    folder: Path,
    store_dir: Path,
    uploaded_by: int | None = None,
    now: datetime,
) -> FolderResult:
    """Every file of ``folder`` as the scan of the printing its name gives (``M4-001.jpg`` or
    ``001.png``) in the set ``set_code``. All or nothing: when any file is refused (not an
    image, no such number, two files for one card …), :class:`ScanFolderError` lists every
    problem and nothing is stored. Hidden files (``.DS_Store``) are skipped.
    """
    card_set = session.scalars(
        select(CardSet)
        .join(Game, col(Game.id) == col(CardSet.game_id))
        .where(Game.slug == game, CardSet.code_key == fold(set_code))
    ).first()
    if card_set is None:
        raise scan_error(f"{game} 没有系列「{set_code}」", f"{game} has no set '{set_code}'")
    try:
        paths = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError as error:
        raise scan_error(
            f"无法读取文件夹 {folder}：{error.strerror or error}", f"cannot read folder {folder}: {error}"
        ) from error
    if not paths:
        raise scan_error(f"文件夹 {folder} 里没有文件", f"no files in {folder}")
    printings = list(session.scalars(select(Printing).where(Printing.set_id == card_set.id)))
    problems: list[FileProblem] = []
    claimed: dict[int, str] = {}
    checked: list[tuple[str, int, PreparedScan]] = []
    # Each checked file's encodings go to a hidden staging folder at once (memory stays bounded
    # for a set of hundreds of scans); the folder is removed unless every file passed.
    store_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=store_dir))
    try:
        for path in paths:
            found = _match(path.stem, printings, card_set.code)
            if len(found) != 1:
                zh = "有多张印刷符合这个编号" if found else f"系列 {card_set.code} 没有编号为「{path.stem}」的印刷"
                en = "several printings match" if found else f"set {card_set.code} has no number '{path.stem}'"
                problems.append(FileProblem(path.name, Message(zh, en)))
                continue
            printing_id = found[0].id
            assert printing_id is not None
            if printing_id in claimed:
                first = claimed[printing_id]
                problems.append(
                    FileProblem(path.name, Message(f"与 {first} 是同一张印刷", f"same printing as {first}"))
                )
                continue
            claimed[printing_id] = path.name
            try:
                scan = prepare_scan(read_file(path))
            except ScanError as error:
                problems.append(FileProblem(path.name, error.message))
                continue
            if not problems:
                for name, blob in scan.files.items():
                    (staging / f"{scan.sha256}.{name}").write_bytes(blob)
            checked.append((path.name, printing_id, PreparedScan(scan.sha256, scan.width, scan.height, {})))
        if problems:
            raise ScanFolderError(problems)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _publish(store_dir, staging)
    result = FolderResult()
    for name, printing_id, scan in checked:
        result.stored.append((name, _upsert(session, printing_id, scan, uploaded_by, now)))
    return result


@dataclass(frozen=True)
class ScanRow:
    """A stored scan with what names its printing (the admin page's list)."""

    printing_id: int
    game: str
    set_code: str
    number: str
    card_name: str
    sha256: str
    width: int
    height: int
    uploaded_at: datetime


def list_scans(*, session: Session, limit: int = 200) -> list[ScanRow]:
    """The printings that have a scan, most recently uploaded first."""
    query = (
        sa_select(
            col(PrintingScan.printing_id),
            col(Game.slug),
            col(CardSet.code),
            col(Printing.number),
            col(Card.name),
            col(PrintingScan.sha256),
            col(PrintingScan.width),
            col(PrintingScan.height),
            col(PrintingScan.uploaded_at),
        )
        .join(Printing, col(Printing.id) == col(PrintingScan.printing_id))
        .join(Card, col(Card.id) == col(Printing.card_id))
        .join(CardSet, col(CardSet.id) == col(Printing.set_id))
        .join(Game, col(Game.id) == col(CardSet.game_id))
        .order_by(col(PrintingScan.uploaded_at).desc(), col(PrintingScan.printing_id))
        .limit(limit)
    )
    return [ScanRow(*row) for row in session.execute(query)]

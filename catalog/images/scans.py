"""Uploaded card scans (issue 7): checked, normalised, stored by content hash; they replace the
rendered face of their printing.

An upload is untrusted bytes. :func:`prepare_scan` accepts it only when every check passes, in
this order: at most :data:`MAX_BYTES`; a JPEG, PNG or WebP *by content* (the file name is never
looked at); a header size of at most :data:`MAX_PIXELS` and at least :data:`MIN_SIDE`, read before
any pixel is decoded; ``verify()`` (PNG checksums) and a full decode (a truncated file fails
here); one frame. Then the EXIF orientation is applied, the colours converted to sRGB, the image
cropped to the 63:88 card shape and re-encoded at the three face sizes as WebP and PNG with no
metadata (no EXIF, GPS, ICC, text chunks). Files are named by the SHA-256 of the normalised
pixels: ``<store>/<ab>/<abcdef…>.<size>.<fmt>``; the same scan uploaded twice is one set of files.

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

import hashlib
import io
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

from PIL import Image, ImageCms, ImageOps
from sqlalchemy import select as sa_select
from sqlalchemy import update
from sqlmodel import Session, col, select

from catalog.errors import LunzangError, Message
from catalog.games.base import GameModule
from catalog.images import faces as images
from catalog.images.keys import scan_hashes  # noqa: F401  (re-exported: callers name it as scans.*)
from catalog.models import Card, CardSet, Game, Printing, PrintingScan
from catalog.models.catalogue import new_catalogue_version
from catalog.text import fold

MAX_BYTES = 20 * 1024 * 1024  # a 600 dpi scan of one card is ~5 MB as JPEG, ~15 MB as PNG
MAX_PIXELS = 40_000_000  # 600 dpi of a 63×88 mm card is 1488×2079 = 3 MP; 40 MP leaves room
MIN_SIDE = 250  # narrower than this, the normal and large faces would be blurry upscales
ACCEPTED = ("JPEG", "PNG", "WEBP")
# Formats we can name when refusing them (sniffed from the first bytes; never decoded).
_MAGIC = (
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"%PDF", "PDF"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"8BPS", "PSD"),
)


class ScanError(LunzangError):
    """An upload refused: not a JPEG/PNG/WebP, too big, broken, or for no printing."""

    code = "bad_scan"


def _error(zh: str, en: str) -> ScanError:
    return ScanError(Message(zh, en))


@dataclass
class PreparedScan:
    """A checked upload, normalised and encoded; nothing stored yet."""

    sha256: str
    width: int  # of the upload, after the EXIF orientation
    height: int
    files: dict[str, bytes]  # "<size>.<fmt>" → encoded bytes


@dataclass
class ScanResult:
    printing_id: int
    sha256: str
    width: int
    height: int
    replaced: str | None  # the previous scan's hash, if the printing had one


def read_limited(stream: IO[bytes]) -> bytes:
    """At most ``MAX_BYTES + 1`` bytes of an upload stream: enough for the size check to fail."""
    return stream.read(MAX_BYTES + 1)


def read_file(path: Path) -> bytes:
    """A scan file's bytes, refusing an oversize one before reading it."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise _too_big(path.stat().st_size)
        return path.read_bytes()
    except OSError as error:
        raise _error(
            f"无法读取文件 {path}：{error.strerror or error}", f"cannot read {path}: {error.strerror or error}"
        ) from error


def _too_big(size: int) -> ScanError:
    mb = MAX_BYTES // (1024 * 1024)
    return _error(
        f"文件太大（{size / 1024 / 1024:.1f} MB）：卡图最大 {mb} MB",
        f"file too large ({size / 1024 / 1024:.1f} MB): scans are at most {mb} MB",
    )


def _not_accepted(data: bytes) -> ScanError:
    named = next((name for magic, name in _MAGIC if data.startswith(magic)), None)
    if named:
        return _error(
            f"不支持 {named} 格式：卡图只接受 JPEG、PNG、WebP",
            f"{named} is not accepted: scans must be JPEG, PNG or WebP",
        )
    return _error(
        "不是图片，或不是 JPEG、PNG、WebP（按文件内容判断，与扩展名无关）",
        "not a JPEG, PNG or WebP image (judged by content, not by the file name)",
    )


@contextmanager
def _bombs_refused() -> Iterator[None]:
    """Pillow's own decompression-bomb warning is an error here, whatever the warning filters."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        yield


def _open(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data), formats=list(ACCEPTED))


def _decode(data: bytes) -> Image.Image:
    """The upload decoded, after the size, format, header and integrity checks."""
    if len(data) > MAX_BYTES:
        raise _too_big(len(data))
    if not data:
        raise _error("文件是空的", "the file is empty")
    broken = _error("图片已损坏或不完整，无法读取", "the image is damaged or truncated")
    with _bombs_refused():
        try:
            header = _open(data)  # reads the header only: no pixels yet
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as error:
            raise _too_many_pixels(None) from error
        except Image.UnidentifiedImageError as error:
            raise _not_accepted(data) from error
        except (OSError, SyntaxError, ValueError) as error:
            raise broken from error
        width, height = header.size
        if width * height > MAX_PIXELS:
            raise _too_many_pixels((width, height))
        if min(width, height) < MIN_SIDE:
            raise _error(
                f"图片太小（{width}×{height}）：短边至少 {MIN_SIDE} 像素",
                f"image too small ({width}×{height}): the short side needs {MIN_SIDE} pixels",
            )
        if getattr(header, "n_frames", 1) > 1:
            raise _error("不接受动画图片：请上传单张静态卡图", "animated images are not accepted")
        try:
            header.verify()  # PNG: chunk checksums; the image cannot be used after this
            image = _open(data)
            if image.format == "JPEG":
                # Decode at the smallest JPEG scale still at least as big as the large face.
                side = images.dimensions("large")[1]
                image.draft("RGB", (side, side))
            image.load()  # a truncated file fails here ("image file is truncated")
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as error:
            raise _too_many_pixels(None) from error
        except (OSError, SyntaxError, ValueError, EOFError) as error:
            raise broken from error
    return image


def _too_many_pixels(size: tuple[int, int] | None) -> ScanError:
    limit = f"{MAX_PIXELS // 1_000_000} MP"
    if size is None:
        return _error(f"图片像素太多：最多 {limit}", f"too many pixels: at most {limit}")
    return _error(
        f"图片像素太多（{size[0]}×{size[1]}）：最多 {limit}",
        f"too many pixels ({size[0]}x{size[1]}): at most {limit}",
    )


_SRGB = ImageCms.createProfile("sRGB")


def _to_srgb(image: Image.Image) -> Image.Image:
    """RGB pixels in sRGB: an embedded colour profile is applied, transparency laid on white."""
    profile = image.info.get("icc_profile")
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, rgba)
    if profile and image.mode in ("RGB", "RGBA", "CMYK", "L"):
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            mode = "RGB" if image.mode == "RGBA" else image.mode
            converted = ImageCms.profileToProfile(image.convert(mode), source, _SRGB, outputMode="RGB")
            if converted is not None:
                return converted
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # an unreadable profile: take the numbers as they are
    return image.convert("RGB")


def prepare_scan(data: bytes) -> PreparedScan:
    """Check and normalise an upload (see the module docstring); raises :class:`ScanError`."""
    image = _decode(data)
    try:
        image = ImageOps.exif_transpose(image)
        width, height = image.size
        rgb = _to_srgb(image)
        large = ImageOps.fit(rgb, images.dimensions("large"), Image.Resampling.LANCZOS)
    except (OSError, ValueError, SyntaxError) as error:
        raise _error("图片无法转换：请另存为普通的 RGB JPEG 或 PNG", "the image cannot be converted") from error
    # A fresh image from raw pixels: nothing of the upload's info (EXIF, ICC, text) survives.
    large = Image.frombytes("RGB", large.size, large.tobytes())
    digest = hashlib.sha256(b"%dx%d:" % large.size + large.tobytes()).hexdigest()
    files: dict[str, bytes] = {}
    for size in images.SIZES:
        face = large if size == "large" else large.resize(images.dimensions(size), Image.Resampling.LANCZOS)
        for fmt in images.FORMATS:
            files[f"{size}.{fmt}"] = _encode(face, fmt)
    return PreparedScan(digest, width, height, files)


def _encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "webp":
        image.save(buffer, "WEBP", quality=88, method=4)
    else:
        image.save(buffer, "PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


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
        raise _error(f"没有编号为 {printing_id} 的印刷", f"no printing with id {printing_id}")
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
        raise _error(f"{game} 没有系列「{set_code}」", f"{game} has no set '{set_code}'")
    try:
        paths = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError as error:
        raise _error(
            f"无法读取文件夹 {folder}：{error.strerror or error}", f"cannot read folder {folder}: {error}"
        ) from error
    if not paths:
        raise _error(f"文件夹 {folder} 里没有文件", f"no files in {folder}")
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

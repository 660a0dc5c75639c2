"""An uploaded card scan checked and normalised (Pillow), before anything is stored.

An upload is untrusted bytes. :func:`prepare_scan` accepts it only when every check passes, in
this order: at most :data:`MAX_BYTES`; a JPEG, PNG or WebP *by content* (the file name is never
looked at); a header size of at most :data:`MAX_PIXELS` and at least :data:`MIN_SIDE`, read before
any pixel is decoded; ``verify()`` (PNG checksums) and a full decode (a truncated file fails
here); one frame. Then the EXIF orientation is applied, the colours converted to sRGB, the image
cropped to the 63:88 card shape and re-encoded at the three face sizes as WebP and PNG with no
metadata (no EXIF, GPS, ICC, text chunks), named by the SHA-256 of the normalised pixels.
Storing it: :mod:`catalog.images.scans`.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from PIL import Image, ImageCms, ImageOps

from catalog.errors import LunzangError, Message
from catalog.images import faces as images

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


def scan_error(zh: str, en: str) -> ScanError:
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
        raise scan_error(
            f"无法读取文件 {path}：{error.strerror or error}", f"cannot read {path}: {error.strerror or error}"
        ) from error


def _too_big(size: int) -> ScanError:
    mb = MAX_BYTES // (1024 * 1024)
    return scan_error(
        f"文件太大（{size / 1024 / 1024:.1f} MB）：卡图最大 {mb} MB",
        f"file too large ({size / 1024 / 1024:.1f} MB): scans are at most {mb} MB",
    )


def _not_accepted(data: bytes) -> ScanError:
    named = next((name for magic, name in _MAGIC if data.startswith(magic)), None)
    if named:
        return scan_error(
            f"不支持 {named} 格式：卡图只接受 JPEG、PNG、WebP",
            f"{named} is not accepted: scans must be JPEG, PNG or WebP",
        )
    return scan_error(
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
        raise scan_error("文件是空的", "the file is empty")
    broken = scan_error("图片已损坏或不完整，无法读取", "the image is damaged or truncated")
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
            raise scan_error(
                f"图片太小（{width}×{height}）：短边至少 {MIN_SIDE} 像素",
                f"image too small ({width}×{height}): the short side needs {MIN_SIDE} pixels",
            )
        if getattr(header, "n_frames", 1) > 1:
            raise scan_error("不接受动画图片：请上传单张静态卡图", "animated images are not accepted")
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
        return scan_error(f"图片像素太多：最多 {limit}", f"too many pixels: at most {limit}")
    return scan_error(
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
        raise scan_error("图片无法转换：请另存为普通的 RGB JPEG 或 PNG", "the image cannot be converted") from error
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

"""Proxy sheets to print, small and fast.

A proxy PDF has A4 pages, 3×3 cards of 63×88 mm (744×1039 px at 300 dpi) with cut marks in the
margins, one card per copy. The PDF is written here, not by Pillow: each distinct face is
one JPEG image object (about 50 KB) that every copy of it draws again, the cut marks are
vector lines and the footer line a small grey image. A page is a few hundred bytes of drawing
commands, so a 75-card deck is ~1.5 MB, not a 26 MB bitmap per page re-encoded as JPEG.

The JPEG of a face is kept in the face cache folder, named by the printing's data version (or
its scan's hash), so a warm PDF reads files and writes bytes; nothing is decoded.

Memory stays bounded whatever a list asks: faces are loaded page by page
(≤ 9 at a time), each written to the PDF when first used and never held decoded, and a PDF
holds at most :data:`MAX_PROXIES` copies.

Pillow is imported inside the functions that draw (the app factory loads this module).
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import tempfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sqlmodel import Session

from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.images.decks import Face, FaceKey, choose_faces, deck_rows
from catalog.images.scans import read_scan

if TYPE_CHECKING:  # for the types only: Pillow loads when a face is drawn
    from PIL import Image

    from catalog.decks.check import DeckCheck


class ProxiesRefused(LunzangError):
    """A proxy PDF that cannot be made from this list."""

    code = "bad_request"


class TooManyProxies(ProxiesRefused):
    """A list asks for more proxies than one PDF holds (:data:`MAX_PROXIES`)."""

    code = "too_many_proxies"

    @classmethod
    def of(cls, count: int) -> TooManyProxies:
        return cls(
            Message(
                f"一次最多打印 {MAX_PROXIES} 张代理卡，这个列表有 {count} 张。",
                f"at most {MAX_PROXIES} proxies per PDF; this list has {count}",
            )
        )


class NothingToPrint(ProxiesRefused):
    """Leaving out the basic cards left no card to print."""

    code = "nothing_to_print"

    @classmethod
    def only_basics(cls) -> NothingToPrint:
        return cls(Message("去掉基本卡后没有要打印的卡。", "nothing is left to print without the basic cards"))


DPI = 300
PAGE_W, PAGE_H = 2480, 3508  # A4 at 300 dpi, in pixels
PAGE_W_PT, PAGE_H_PT = 595.28, 841.89  # A4 in points
PT = 72 / DPI  # one pixel at 300 dpi, in points
PROXY_W, PROXY_H = round(63 / 25.4 * DPI), round(88 / 25.4 * DPI)  # 744 × 1039
PER_ROW, PER_COLUMN = 3, 3
PER_PAGE = PER_ROW * PER_COLUMN
# At most this many proxies in one PDF (10 pages): a whole deck with every section full
# (永恒之轮 60 main + 15 extra + 15 side) fits. The cap bounds the time and the size of the
# answer (≤ 90 distinct faces of ~50 KB).
MAX_PROXIES = 90
MARK_GAP, MARK_LENGTH, MARK_WIDTH = 12, 70, 3  # ~1 mm off the card, ~6 mm long, in pixels
FOOTER_PX = 30  # the footer's font size in pixels at 300 dpi
FOOTER_GREY = (105, 100, 95)
JPEG_QUALITY = 85  # ~50 KB a face; text stays crisp at 300 dpi
PROXY_VERSION = "1"  # bump when the JPEG of a face changes (part of its cache key)


def proxy_face(face: Image.Image) -> Image.Image:
    """A card image at exactly 63×88 mm at 300 dpi: the large face (745×1040) loses one pixel
    of its border on the right and bottom (no blur); anything else is resized."""
    from PIL import Image

    from catalog.images import faces as images

    face = face.convert("RGB")
    if face.size == (PROXY_W, PROXY_H):
        return face
    if face.size == images.dimensions("large"):
        return face.crop((0, 0, PROXY_W, PROXY_H))
    return face.resize((PROXY_W, PROXY_H), Image.Resampling.LANCZOS)


def proxy_jpeg(face: Image.Image) -> bytes:
    """A face as the JPEG a proxy page shows (:func:`proxy_face`, baseline RGB)."""
    buffer = io.BytesIO()
    proxy_face(face).save(buffer, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return buffer.getvalue()


def proxy_layout() -> tuple[int, int]:
    """(left, top) pixel of the first card on a page: the 3×3 grid is centred on the A4 page."""
    return (PAGE_W - PER_ROW * PROXY_W) // 2, (PAGE_H - PER_COLUMN * PROXY_H) // 2


# ---------------------------------------------------------------------------- faces as JPEG


def _jpeg_key(face: Face, game: str) -> str:
    """The cache name of a face's proxy JPEG: the scan's hash, else the drawn face's data version."""
    from catalog.images import faces as images

    if face.scan_sha:
        blob = f"proxy|{PROXY_VERSION}|scan|{face.scan_sha}"
    else:
        version = images.image_version(face.card, face.printing, face.card_set, GAMES[game])
        drawn = images.cache_key(game, face.card_set.code, face.printing.number, version, "large", "jpg")
        blob = f"proxy|{PROXY_VERSION}|{drawn}"
    return hashlib.sha256(blob.encode()).hexdigest()


def _cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key[:2] / f"{key}.jpg"


def face_jpeg(face: Face, *, game: str, scan_dir: Path | None, cache_dir: Path | None) -> bytes:
    """The proxy JPEG of a chosen printing: from ``cache_dir`` when made before, else made from
    its scan (when the files are there) or its drawn face, and kept there."""
    key = _jpeg_key(face, game)
    if cache_dir is not None:
        try:
            return _cache_path(cache_dir, key).read_bytes()
        except FileNotFoundError:
            pass
    from PIL import Image

    from catalog.images import faces as images

    data = read_scan(scan_dir, face.scan_sha, "large", "png") if face.scan_sha and scan_dir is not None else None
    if data is not None:
        with Image.open(io.BytesIO(data)) as scan:
            jpeg = proxy_jpeg(scan)
    else:
        jpeg = proxy_jpeg(images.render_card(face.card, face.printing, face.card_set, GAMES[game], "large"))
    if cache_dir is not None:
        path = _cache_path(cache_dir, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename: a concurrent reader sees the whole file or none.
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(handle, "wb") as out:
            out.write(jpeg)
        os.replace(temporary, path)
    return jpeg


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame marker."""
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            raise ValueError("not a JPEG")
        marker, length = data[at + 1], int.from_bytes(data[at + 2 : at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = int.from_bytes(data[at + 5 : at + 7], "big"), int.from_bytes(data[at + 7 : at + 9], "big")
            return width, height
        at += 2 + length
    raise ValueError("no frame in the JPEG")


# ---------------------------------------------------------------------------- the PDF


def _pdf_text(text: str) -> bytes:
    """A PDF text string (UTF-16BE with its byte-order mark, as hex: no escaping needed)."""
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode() + b">"


class _PdfWriter:
    """A PDF written object by object into one buffer; the cross-reference table at the end."""

    def __init__(self) -> None:
        self.out = io.BytesIO()
        self.out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        self.offsets: dict[int, int] = {}
        self.count = 0

    def reserve(self) -> int:
        self.count += 1
        return self.count

    def write(self, number: int, body: bytes) -> int:
        self.offsets[number] = self.out.tell()
        self.out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
        return number

    def stream(self, number: int, entries: bytes, data: bytes) -> int:
        return self.write(number, b"<< " + entries + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")

    def finish(self, *, root: int, info: int) -> bytes:
        start = self.out.tell()
        self.out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (self.count + 1))
        for number in range(1, self.count + 1):
            self.out.write(b"%010d 00000 n \n" % self.offsets[number])
        self.out.write(b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\n" % (self.count + 1, root, info))
        self.out.write(b"startxref\n%d\n%%%%EOF\n" % start)
        return self.out.getvalue()


def _text_image(text: str) -> tuple[int, int, bytes]:
    """A footer text drawn in grey on white: (width, height, raw 8-bit grey pixels). Every text
    is as high as the font (ascent + descent) with the same baseline, so pieces line up."""
    from PIL import Image, ImageDraw

    from catalog.images import faces as images

    font = images.font(FOOTER_PX)
    ascent, descent = font.getmetrics()
    width, height = max(1, math.ceil(font.getlength(text))), ascent + descent
    canvas = Image.new("L", (width, height), 255)
    ImageDraw.Draw(canvas).text((0, 0), text, font=font, fill=FOOTER_GREY[0], anchor="la")
    return width, height, canvas.tobytes()


def _grey_image(pdf: _PdfWriter, drawn: tuple[int, int, bytes]) -> int:
    width, height, grey = drawn
    return pdf.stream(
        pdf.reserve(),
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray"
        b" /BitsPerComponent 8 /Filter /FlateDecode" % (width, height),
        zlib.compress(grey, 6),
    )


def _y(pixel: float) -> float:
    """A pixel row from the top of the page as points from the bottom (PDF's origin)."""
    return PAGE_H_PT - pixel * PT


def _page_content(slots: Sequence[str], footer: Sequence[tuple[str, int, int]]) -> bytes:
    """The drawing commands of one page: the faces named in ``slots``, cut marks, and the
    footer's pieces (name, width, height) side by side, centred under the grid."""
    left, top = proxy_layout()
    grid_w, grid_h = PER_ROW * PROXY_W, PER_COLUMN * PROXY_H
    w, h = PROXY_W * PT, PROXY_H * PT
    commands = []
    for index, name in enumerate(slots[:PER_PAGE]):
        x = (left + (index % PER_ROW) * PROXY_W) * PT
        y = _y(top + (index // PER_ROW + 1) * PROXY_H)
        commands.append(f"q {w:.3f} 0 0 {h:.3f} {x:.3f} {y:.3f} cm /{name} Do Q")
    # Cut marks: every card edge continued into the margins, stopping short of the cards.
    commands.append(f"0 G {MARK_WIDTH * PT:.3f} w 0 J")
    lines = []
    for column in range(PER_ROW + 1):
        x = left + column * PROXY_W
        lines.append((x, top - MARK_GAP - MARK_LENGTH, x, top - MARK_GAP))
        lines.append((x, top + grid_h + MARK_GAP, x, top + grid_h + MARK_GAP + MARK_LENGTH))
    for row in range(PER_COLUMN + 1):
        y = top + row * PROXY_H
        lines.append((left - MARK_GAP - MARK_LENGTH, y, left - MARK_GAP, y))
        lines.append((left + grid_w + MARK_GAP, y, left + grid_w + MARK_GAP + MARK_LENGTH, y))
    for x1, y1, x2, y2 in lines:
        commands.append(f"{x1 * PT:.3f} {_y(y1):.3f} m {x2 * PT:.3f} {_y(y2):.3f} l S")
    centre_y = PAGE_H - (PAGE_H - top - grid_h) / 2 + 30
    x = (PAGE_W - sum(width for _n, width, _h in footer)) / 2
    for name, width, height in footer:
        fy = _y(centre_y + height / 2)
        commands.append(f"q {width * PT:.3f} 0 0 {height * PT:.3f} {x * PT:.3f} {fy:.3f} cm /{name} Do Q")
        x += width
    return "\n".join(commands).encode()


def write_proxy_pdf(
    *, count: int, faces_of_page: Callable[[int], Sequence[tuple[object, bytes]]], title: str = ""
) -> bytes:
    """``count`` copies on proxy pages as one PDF (595×842 pt, A4). ``faces_of_page(n)`` gives
    the ≤ 9 copies of page ``n`` as (identity, JPEG): a face is written once, at its first
    copy, and every later copy with the same identity draws that image again. At most
    :data:`MAX_PROXIES` copies."""
    if count < 1:
        raise ValueError("no cards to print")
    if count > MAX_PROXIES:
        raise TooManyProxies.of(count)
    total = math.ceil(count / PER_PAGE)
    pdf = _PdfWriter()
    catalog_ref, pages_ref, info_ref = pdf.reserve(), pdf.reserve(), pdf.reserve()
    images: dict[object, str] = {}  # identity → the image's resource name
    refs: dict[str, int] = {}
    kids = []
    shared_text = _text_image(f"{title + ' · ' if title else ''}轮藏 Lunzang 代理卡，仅供练习 · ")
    shared_ref = _grey_image(pdf, shared_text)
    for number in range(total):
        slots = []
        for identity, jpeg in faces_of_page(number):
            if identity not in images:
                width, height = _jpeg_size(jpeg)
                ref = pdf.stream(
                    pdf.reserve(),
                    b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB"
                    b" /BitsPerComponent 8 /Filter /DCTDecode" % (width, height),
                    jpeg,
                )
                images[identity] = f"C{len(images) + 1}"
                refs[images[identity]] = ref
            slots.append(images[identity])
        # The footer: the words every page shares drawn once, the page number per page.
        number_text = _text_image(f"第 {number + 1}/{total} 页")
        pieces = [("T", *shared_text[:2]), (f"F{number + 1}", *number_text[:2])]
        footer_ref = _grey_image(pdf, number_text)
        content_ref = pdf.stream(pdf.reserve(), b"/Filter /FlateDecode", zlib.compress(_page_content(slots, pieces)))
        xobjects = b" ".join(b"/%s %d 0 R" % (n.encode(), refs[n]) for n in dict.fromkeys(slots))
        xobjects += b" /T %d 0 R /F%d %d 0 R" % (shared_ref, number + 1, footer_ref)
        kids.append(
            pdf.write(
                pdf.reserve(),
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << %s >> >>"
                b" /Contents %d 0 R >>" % (pages_ref, PAGE_W_PT, PAGE_H_PT, xobjects, content_ref),
            )
        )
    pdf.write(
        pages_ref, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    )
    pdf.write(catalog_ref, b"<< /Type /Catalog /Pages %d 0 R >>" % pages_ref)
    pdf.write(info_ref, b"<< /Title %s /Producer (Lunzang) >>" % _pdf_text(title or "Lunzang"))
    return pdf.finish(root=catalog_ref, info=info_ref)


def render_proxies(*, cards: Sequence[tuple[Image.Image, int]], title: str = "") -> bytes:
    """Proxy pages of ``cards`` (image, copies) as one PDF: each image encoded once."""
    jpegs = [(index, proxy_jpeg(face)) for index, (face, _count) in enumerate(cards)]
    copies = [jpegs[index] for index, (_face, count) in enumerate(cards) for _ in range(count)]
    return write_proxy_pdf(
        count=len(copies), faces_of_page=lambda n: copies[n * PER_PAGE : (n + 1) * PER_PAGE], title=title
    )


# ---------------------------------------------------------------------------- use cases


def _pages_of(
    copies: Sequence[tuple[str, FaceKey]], *, session: Session, scan_dir: Path | None, cache_dir: Path | None
) -> Callable[[int], list[tuple[object, bytes]]]:
    """``faces_of_page`` for copies of (game, face): each page loads only its own faces, and a
    face already written to the PDF is not loaded again (its copies come with ``b""``,
    which :func:`write_proxy_pdf` never reads: it draws the image it wrote before)."""
    written: set[tuple[str, FaceKey]] = set()
    # Which printing each face shows, chosen for the whole list at once (one query per game;
    # rows, not images: a few KB for the 90 copies a PDF may hold).
    chosen: dict[tuple[str, FaceKey], Face] = {}
    for game in dict.fromkeys(g for g, _k in copies):
        keys = list(dict.fromkeys(k for g, k in copies if g == game))
        chosen |= {(game, key): face for key, face in choose_faces(session=session, keys=keys).items()}

    def faces_of_page(number: int) -> list[tuple[object, bytes]]:
        chunk = copies[number * PER_PAGE : (number + 1) * PER_PAGE]
        jpegs: dict[tuple[str, FaceKey], bytes] = {}
        for copy in dict.fromkeys(c for c in chunk if c not in written):
            jpegs[copy] = face_jpeg(chosen[copy], game=copy[0], scan_dir=scan_dir, cache_dir=cache_dir)
        written.update(jpegs)
        return [(copy, jpegs.get(copy, b"")) for copy in chunk]

    return faces_of_page


def deck_proxies_of(
    *,
    session: Session,
    check: DeckCheck,
    scan_dir: Path | None,
    cache_dir: Path | None = None,
    skip_basics: bool = False,
) -> tuple[bytes, int]:
    """Every copy of a checked deck on A4 proxy sheets: the PDF and the number of copies.

    ``skip_basics`` leaves out the game's basic cards (永恒之轮: basic 法力石, which players
    own plenty of). More than :data:`MAX_PROXIES` copies raise :class:`TooManyProxies`
    before anything is drawn; nothing left raises :class:`NothingToPrint`."""
    game = check.pool.game
    module = GAMES[game]
    basics = {e.card.id for e in check.deck.entries if skip_basics and module.is_basic(e.card)}
    copies = [(game, r.key) for r in deck_rows(check.deck) if r.key.card_id not in basics for _ in range(r.count)]
    if not copies:
        raise NothingToPrint.only_basics()
    faces_of_page = _pages_of(copies, session=session, scan_dir=scan_dir, cache_dir=cache_dir)
    return write_proxy_pdf(count=len(copies), faces_of_page=faces_of_page, title=check.deck.name), len(copies)


def proxies_of_cards(
    *,
    session: Session,
    wanted: Sequence[tuple[str, FaceKey, int]],
    scan_dir: Path | None,
    title: str,
    cache_dir: Path | None = None,
) -> bytes:
    """Proxy sheets for (game, face, copies) of any games — a want list — in the given order.

    A list of more than :data:`MAX_PROXIES` copies prints its first ones, and the footer says
    so (a want list has no other way to be split; a deck is refused instead)."""
    copies = [(g, k) for g, k, n in wanted for _ in range(n)]
    if len(copies) > MAX_PROXIES:
        title = f"{title}（前 {MAX_PROXIES} 张，共 {len(copies)} 张）"
        copies = copies[:MAX_PROXIES]
    faces_of_page = _pages_of(copies, session=session, scan_dir=scan_dir, cache_dir=cache_dir)
    return write_proxy_pdf(count=len(copies), faces_of_page=faces_of_page, title=title)

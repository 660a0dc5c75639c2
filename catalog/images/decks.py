"""A deck as a picture to share, and proxy sheets to print (issue 7).

:func:`render_deck_image` draws a PNG: the deck name, game and format, a legality badge from the
deck checker's verdict (合法 / 不合法 · n 处问题), each section (主卡组 / 额外卡组 / 备牌) as a
grid of small card images with a "×3" count badge, and a footer with the counts.

:func:`render_proxies` makes a PDF of A4 pages at 300 dpi, 3×3 cards of exactly 63×88 mm
(744×1039 px) with cut marks in the margins, one card image per copy.

Both take card images already chosen; :func:`load_faces` picks them from the database: the
printing the decklist names (``(M4) 卡名``), else the card's first printing with an uploaded
scan, else its first printing; the scan when there is one, else the rendered face.
Pure Pillow and SQLModel: no Flask.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw
from sqlmodel import Session, col, select

from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.images import faces as images
from catalog.images import scans
from catalog.models import Card, CardSet, Printing
from catalog.rules import SECTIONS, Deck, Verdict
from catalog.text import fold

if TYPE_CHECKING:  # catalog.decks.check is the checker; imported for the type only
    from catalog.decks.check import DeckCheck


class TooManyProxies(LunzangError):
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


SECTION_NAMES = {"main": "主卡组", "extra": "额外卡组", "side": "备牌"}
UNRESOLVED = ("unknown_card", "ambiguous_card")

# ---------------------------------------------------------------------------- choosing the images


@dataclass(frozen=True)
class FaceKey:
    """Which image a deck line shows: a card, optionally pinned to a set / collector number."""

    card_id: int
    set_code: str | None = None
    number: str | None = None


@dataclass
class DeckRow:
    section: str
    key: FaceKey
    name: str
    count: int


def deck_rows(deck: Deck) -> list[DeckRow]:
    """The deck's entries merged per section and printing, sections in order, first-seen order within."""
    rows: dict[tuple[str, FaceKey], DeckRow] = {}
    for entry in deck.entries:
        key = FaceKey(entry.card.id, entry.set_code, entry.number)
        row = rows.get((entry.section, key))
        if row is None:
            rows[(entry.section, key)] = DeckRow(entry.section, key, entry.card.name, entry.count)
        else:
            row.count += entry.count
    return sorted(rows.values(), key=lambda r: SECTIONS.index(r.section))


def unresolved(verdict: Verdict) -> list[str]:
    """Messages of the decklist lines that name no card or several (no image can be drawn)."""
    return [v.message for v in verdict.violations if v.code in UNRESOLVED]


def load_faces(
    *,
    session: Session,
    game: str,
    keys: Sequence[FaceKey],
    size: str,
    scan_dir: Path | None,
    cache_dir: Path | None = None,
) -> dict[FaceKey, Image.Image]:
    """The image for each key at ``size``: the scan of the chosen printing, else its drawn face."""
    module = GAMES[game]
    card_ids = sorted({k.card_id for k in keys})
    found: dict[int, list[tuple[Printing, Card, CardSet]]] = {}
    for printing, card, card_set in session.execute(
        select(Printing, Card, CardSet)
        .join(Card, col(Card.id) == col(Printing.card_id))
        .join(CardSet, col(CardSet.id) == col(Printing.set_id))
        .where(col(Printing.card_id).in_(card_ids))
        .order_by(col(CardSet.position), col(Printing.id))
    ):
        found.setdefault(card.id or 0, []).append((printing, card, card_set))
    hashes = scans.scan_hashes(session, [p.id or 0 for rows in found.values() for p, _c, _s in rows])
    faces: dict[FaceKey, Image.Image] = {}
    for key in keys:
        candidates = found.get(key.card_id, [])
        if key.set_code:
            candidates = [r for r in candidates if r[2].code_key == fold(key.set_code)] or candidates
        if key.number:
            candidates = [r for r in candidates if r[0].number_key == fold(key.number)] or candidates
        if not candidates:
            raise ValueError(f"card {key.card_id} has no printing")
        printing, card, card_set = next((r for r in candidates if (r[0].id or 0) in hashes), candidates[0])
        face, _etag = scans.face_of(
            card,
            printing,
            card_set,
            module,
            scan_sha=hashes.get(printing.id or 0),
            scan_dir=scan_dir,
            cache_dir=cache_dir,
            size=size,
            fmt="png",
        )
        if isinstance(face, bytes):
            face = Image.open(io.BytesIO(face))
            face.load()
        faces[key] = face.convert("RGB")
    return faces


# ---------------------------------------------------------------------------- the deck image

COLUMNS = 10
CARD_W, CARD_H = images.dimensions("small")
GAP = 10
MARGIN = 32
HEADER = 120
SECTION_TITLE = 48
SECTION_GAP = 20
FOOTER = 56
BACKGROUND = (250, 248, 243)
INK = (28, 26, 24)
MUTED = (105, 100, 95)
LEGAL = (22, 128, 61)
ILLEGAL = (190, 30, 45)


def _fit(text: str, width: float, start: int, smallest: int) -> images.Font:
    """The largest font from ``start`` down to ``smallest`` pixels in which ``text`` fits."""
    pixels = start
    while pixels > smallest and images.font(pixels).getlength(text) > width:
        pixels -= 1
    return images.font(pixels)


def deck_image_size(section_sizes: Sequence[int]) -> tuple[int, int]:
    """(width, height) of a deck image whose non-empty sections hold so many distinct images."""
    width = 2 * MARGIN + COLUMNS * CARD_W + (COLUMNS - 1) * GAP
    height = 2 * MARGIN + HEADER + FOOTER
    for count in section_sizes:
        if count:
            rows = math.ceil(count / COLUMNS)
            height += SECTION_TITLE + rows * CARD_H + (rows - 1) * GAP + SECTION_GAP
    return width, height


def render_deck_image(
    *,
    rows: Sequence[DeckRow],
    faces: dict[FaceKey, Image.Image],
    verdict: Verdict,
    deck_name: str,
    game_name: str,
    format_name: str,
) -> bytes:
    """The deck as a PNG (see the module docstring); ``faces`` at the small size."""
    by_section = {s: [r for r in rows if r.section == s] for s in SECTIONS}
    width, height = deck_image_size([len(by_section[s]) for s in SECTIONS])
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    right = width - MARGIN

    # Header: name and game/format at the left, the legality badge at the right.
    if verdict.legal:
        badge, colour = "合法", LEGAL
    else:
        badge, colour = f"不合法 · {len(verdict.errors)} 处问题", ILLEGAL
    badge_font = images.font(28)
    badge_w = badge_font.getlength(badge) + 36
    draw.rounded_rectangle((right - badge_w, MARGIN + 8, right, MARGIN + 58), radius=12, fill=colour)
    draw.text((right - badge_w / 2, MARGIN + 33), badge, font=badge_font, fill=(255, 255, 255), anchor="mm")
    room = right - badge_w - 24 - MARGIN
    title = deck_name or "未命名卡组"
    draw.text((MARGIN, MARGIN), title, font=_fit(title, room, 44, 20), fill=INK)
    subtitle = f"{game_name} · 赛制 {format_name}"
    draw.text((MARGIN, MARGIN + 66), subtitle, font=_fit(subtitle, room, 24, 12), fill=MUTED)

    y = MARGIN + HEADER
    count_font, title_font = images.font(22), images.font(26)
    for section in SECTIONS:
        section_rows = by_section[section]
        if not section_rows:
            continue
        copies = sum(r.count for r in section_rows)
        draw.text((MARGIN, y + 6), f"{SECTION_NAMES[section]}  {copies} 张", font=title_font, fill=INK)
        draw.line((MARGIN, y + SECTION_TITLE - 8, right, y + SECTION_TITLE - 8), fill=(215, 210, 200), width=2)
        y += SECTION_TITLE
        for index, row in enumerate(section_rows):
            x = MARGIN + (index % COLUMNS) * (CARD_W + GAP)
            top = y + (index // COLUMNS) * (CARD_H + GAP)
            face = faces[row.key]
            if face.size != (CARD_W, CARD_H):
                face = face.resize((CARD_W, CARD_H), Image.Resampling.LANCZOS)
            image.paste(face, (x, top))
            label = f"×{row.count}"
            w = count_font.getlength(label) + 14
            box = (x + CARD_W - w - 4, top + CARD_H - 34, x + CARD_W - 4, top + CARD_H - 6)
            draw.rounded_rectangle(box, radius=8, fill=(20, 20, 20), outline=(255, 255, 255), width=2)
            draw.text(
                ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2),
                label,
                font=count_font,
                fill=(255, 255, 255),
                anchor="mm",
            )
        rows_used = math.ceil(len(section_rows) / COLUMNS)
        y += rows_used * CARD_H + (rows_used - 1) * GAP + SECTION_GAP

    # Footer: the counts and the site's name.
    foot_y = height - MARGIN - FOOTER / 2
    counts = verdict.counts
    summary = "  ·  ".join(f"{SECTION_NAMES[s]} {counts.get(s, 0)} 张" for s in SECTIONS if counts.get(s, 0))
    footer_font = images.font(22)
    draw.text((MARGIN, foot_y), summary or "空卡组", font=footer_font, fill=MUTED, anchor="lm")
    draw.text((right, foot_y), "轮藏 Lunzang", font=images.font(24), fill=INK, anchor="rm")

    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


# ---------------------------------------------------------------------------- proxy sheets

DPI = 300
PAGE_W, PAGE_H = 2480, 3508  # A4 at 300 dpi
PROXY_W, PROXY_H = round(63 / 25.4 * DPI), round(88 / 25.4 * DPI)  # 744 × 1039
PER_ROW, PER_COLUMN = 3, 3
PER_PAGE = PER_ROW * PER_COLUMN
# At most this many proxies in one PDF (10 pages): a whole deck with every section full
# (永恒之轮 60 main + 15 extra + 15 side) fits. Each page is written as soon as it is drawn,
# so the memory of a request stays at about one page (26 MB) and its ≤ 9 faces whatever the
# list asks; the cap bounds its time (about a second a page) and the size of the answer.
MAX_PROXIES = 90
MARK_GAP, MARK_LENGTH, MARK_WIDTH = 12, 70, 3  # ~1 mm off the card, ~6 mm long


def proxy_face(face: Image.Image) -> Image.Image:
    """A card image at exactly 63×88 mm at 300 dpi: the large face (745×1040) loses one pixel
    of its border on the right and bottom (no blur); anything else is resized."""
    if face.size == (PROXY_W, PROXY_H):
        return face
    if face.size == images.dimensions("large"):
        return face.crop((0, 0, PROXY_W, PROXY_H))
    return face.resize((PROXY_W, PROXY_H), Image.Resampling.LANCZOS)


def proxy_layout() -> tuple[int, int]:
    """(left, top) pixel of the first card on a page: the 3×3 grid is centred on the A4 page."""
    return (PAGE_W - PER_ROW * PROXY_W) // 2, (PAGE_H - PER_COLUMN * PROXY_H) // 2


def proxy_pages(*, cards: Sequence[tuple[Image.Image, int]], title: str = "") -> Iterator[Image.Image]:
    """A4 pages at 300 dpi, 3×3 proxies each with cut marks: ``cards`` as (image, copies).

    One page at a time (a generator): a page is a 26 MB bitmap, so a long list must never be
    held as a list of pages (issue 16: 999 copies once took 7 GB)."""
    copies = [face for face, count in cards for _ in range(count)]  # references, not copies
    if not copies:
        raise ValueError("no cards to print")
    total = math.ceil(len(copies) / PER_PAGE)
    for number in range(total):
        yield proxy_page(copies[number * PER_PAGE : (number + 1) * PER_PAGE], number, total, title)


def proxy_page(faces: Sequence[Image.Image], number: int, total: int, title: str) -> Image.Image:
    """Page ``number`` (from 0) of ``total``: up to 9 faces in a 3×3 grid, cut marks, footer."""
    grid_w, grid_h = PER_ROW * PROXY_W, PER_COLUMN * PROXY_H
    left, top = proxy_layout()
    page = Image.new("RGB", (PAGE_W, PAGE_H), (255, 255, 255))
    draw = ImageDraw.Draw(page)
    for index, face in enumerate(faces[:PER_PAGE]):
        page.paste(proxy_face(face), (left + (index % PER_ROW) * PROXY_W, top + (index // PER_ROW) * PROXY_H))
    # Cut marks: every card edge continued into the margins, stopping short of the cards.
    for column in range(PER_ROW + 1):
        x = left + column * PROXY_W
        draw.line((x, top - MARK_GAP - MARK_LENGTH, x, top - MARK_GAP), fill=(0, 0, 0), width=MARK_WIDTH)
        bottom = top + grid_h + MARK_GAP
        draw.line((x, bottom, x, bottom + MARK_LENGTH), fill=(0, 0, 0), width=MARK_WIDTH)
    for row in range(PER_COLUMN + 1):
        y = top + row * PROXY_H
        draw.line((left - MARK_GAP - MARK_LENGTH, y, left - MARK_GAP, y), fill=(0, 0, 0), width=MARK_WIDTH)
        far = left + grid_w + MARK_GAP
        draw.line((far, y, far + MARK_LENGTH, y), fill=(0, 0, 0), width=MARK_WIDTH)
    note = f"{title + ' · ' if title else ''}轮藏 Lunzang 代理卡，仅供练习 · 第 {number + 1}/{total} 页"
    draw.text(
        (PAGE_W / 2, PAGE_H - (PAGE_H - top - grid_h) / 2 + 30), note, font=images.font(30), fill=MUTED, anchor="mm"
    )
    return page


class _LazyPages(Image.Image):
    """A multi-frame image whose frames are drawn when Pillow's PDF writer seeks to them.

    Pillow writes a PDF page by page from one multi-frame image (``save_all``), so handing it
    this instead of a list of pages keeps one page bitmap alive at a time."""

    def __init__(self, count: int, draw_page: Callable[[int], Image.Image]) -> None:
        super().__init__()
        self._draw_page = draw_page
        self.n_frames = count
        self._frame = -1
        self.seek(0)

    def seek(self, frame: int) -> None:
        if not 0 <= frame < self.n_frames:
            raise EOFError(frame)
        if frame != self._frame:
            page = self._draw_page(frame)
            self.im, self._mode, self._size = page.im, page.mode, page.size
            self._frame = frame

    def tell(self) -> int:
        return self._frame


def write_proxy_pdf(*, count: int, faces_of_page: Callable[[int], Sequence[Image.Image]], title: str = "") -> bytes:
    """``count`` copies on proxy pages as one PDF (595×842 pt, A4), each page drawn from
    ``faces_of_page(n)`` (its ≤ 9 faces) only when written. At most :data:`MAX_PROXIES`."""
    if count < 1:
        raise ValueError("no cards to print")
    if count > MAX_PROXIES:
        raise TooManyProxies.of(count)
    total = math.ceil(count / PER_PAGE)
    pages = _LazyPages(total, lambda n: proxy_page(faces_of_page(n), n, total, title))
    buffer = io.BytesIO()
    pages.save(buffer, "PDF", save_all=True, resolution=DPI, quality=90, title=title or "Lunzang")
    return buffer.getvalue()


def render_proxies(*, cards: Sequence[tuple[Image.Image, int]], title: str = "") -> bytes:
    """The proxy pages (:func:`proxy_pages`) of ``cards`` (image, copies) as one PDF."""
    copies = [face for face, count in cards for _ in range(count)]
    return write_proxy_pdf(
        count=len(copies), faces_of_page=lambda n: copies[n * PER_PAGE : (n + 1) * PER_PAGE], title=title
    )


# ---------------------------------------------------------------------------- use cases


def deck_image_of(
    *, session: Session, check: DeckCheck, scan_dir: Path | None, cache_dir: Path | None = None
) -> tuple[bytes, list[DeckRow]]:
    """A checked deck (:func:`catalog.decks.check.check_decklist`) as its PNG, and its rows."""
    rows = deck_rows(check.deck)
    faces = load_faces(
        session=session,
        game=check.pool.game,
        keys=[r.key for r in rows],
        size="small",
        scan_dir=scan_dir,
        cache_dir=cache_dir,
    )
    data = render_deck_image(
        rows=rows,
        faces=faces,
        verdict=check.verdict,
        deck_name=check.deck.name,
        game_name=GAMES[check.pool.game].name,
        format_name=check.format.name,
    )
    return data, rows


def deck_proxies_of(*, session: Session, check: DeckCheck, scan_dir: Path | None) -> tuple[bytes, int]:
    """Every copy of a checked deck on A4 proxy sheets: the PDF and the number of copies.

    Faces are loaded page by page (≤ 9 decoded at a time); more than :data:`MAX_PROXIES`
    copies raise :class:`TooManyProxies` before anything is drawn."""
    copies = [r.key for r in deck_rows(check.deck) for _ in range(r.count)]
    game = check.pool.game

    def faces_of_page(number: int) -> list[Image.Image]:
        keys = copies[number * PER_PAGE : (number + 1) * PER_PAGE]
        faces = load_faces(session=session, game=game, keys=list(dict.fromkeys(keys)), size="large", scan_dir=scan_dir)
        return [faces[k] for k in keys]

    return write_proxy_pdf(count=len(copies), faces_of_page=faces_of_page, title=check.deck.name), len(copies)


def proxies_of_cards(
    *, session: Session, wanted: Sequence[tuple[str, FaceKey, int]], scan_dir: Path | None, title: str
) -> bytes:
    """Proxy sheets for (game, face, copies) of any games — a want list — in the given order.

    A list of more than :data:`MAX_PROXIES` copies prints its first ones, and the footer says
    so (a want list has no other way to be split; a deck is refused instead)."""
    copies = [(g, k) for g, k, n in wanted for _ in range(n)]
    if len(copies) > MAX_PROXIES:
        title = f"{title}（前 {MAX_PROXIES} 张，共 {len(copies)} 张）"
        copies = copies[:MAX_PROXIES]

    def faces_of_page(number: int) -> list[Image.Image]:
        chunk = copies[number * PER_PAGE : (number + 1) * PER_PAGE]
        faces: dict[tuple[str, FaceKey], Image.Image] = {}
        for game in dict.fromkeys(g for g, _k in chunk):
            keys = list(dict.fromkeys(k for g, k in chunk if g == game))
            loaded = load_faces(session=session, game=game, keys=keys, size="large", scan_dir=scan_dir)
            faces |= {(game, key): face for key, face in loaded.items()}
        return [faces[c] for c in chunk]

    return write_proxy_pdf(count=len(copies), faces_of_page=faces_of_page, title=title)

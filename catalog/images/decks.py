"""A deck as a picture to share; proxy sheets are catalog.images.proxies.

:func:`render_deck_image` draws a PNG: the deck name, game and format, a legality badge from the
deck checker's verdict (合法 / 不合法 · n 处问题), each section (主卡组 / 额外卡组 / 备牌) as a
grid of small card images with a "×3" count badge, and a footer with the counts.

It takes card images already chosen; :func:`choose_faces` picks the printings from the database
(the one the decklist names, ``(M4) 卡名``, else the card's first printing with an uploaded
scan, else its first printing) and :func:`load_faces` loads them: the scan when there is one,
else the rendered face.
Pure Pillow and SQLModel: no Flask.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw
from sqlmodel import Session, col, select

from catalog.games import GAMES
from catalog.images import faces as images
from catalog.images import scans
from catalog.models import Card, CardSet, Printing
from catalog.rules import SECTIONS, Deck, Verdict
from catalog.text import fold

if TYPE_CHECKING:  # catalog.decks.check is the checker; imported for the type only
    from catalog.decks.check import DeckCheck


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


@dataclass(frozen=True)
class Face:
    """The printing a key shows, and the hash of its uploaded scan (``None``: drawn)."""

    printing: Printing
    card: Card
    card_set: CardSet
    scan_sha: str | None


def choose_faces(*, session: Session, keys: Sequence[FaceKey]) -> dict[FaceKey, Face]:
    """The printing each key shows: the one the list names, else the first with a scan, else the first."""
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
    chosen: dict[FaceKey, Face] = {}
    for key in keys:
        candidates = found.get(key.card_id, [])
        if key.set_code:
            candidates = [r for r in candidates if r[2].code_key == fold(key.set_code)] or candidates
        if key.number:
            candidates = [r for r in candidates if r[0].number_key == fold(key.number)] or candidates
        if not candidates:
            raise ValueError(f"card {key.card_id} has no printing")
        printing, card, card_set = next((r for r in candidates if (r[0].id or 0) in hashes), candidates[0])
        chosen[key] = Face(printing, card, card_set, hashes.get(printing.id or 0))
    return chosen


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
    faces: dict[FaceKey, Image.Image] = {}
    for key, chosen in choose_faces(session=session, keys=keys).items():
        face, _etag = scans.face_of(
            chosen.card,
            chosen.printing,
            chosen.card_set,
            module,
            scan_sha=chosen.scan_sha,
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

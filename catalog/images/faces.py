"""Rendered card faces: a card drawn from its data with Pillow, and a file cache.

No official scans exist, so every printing gets a face at 63×88 mm proportions drawn from its
rules fields: frame colour by attribute (split for two), name, cost pips, type line, keywords,
rules text wrapped by CJK line-breaking rules, stats, rarity mark, set code and number. The
font is Noto Sans SC from the pinned ``pylopdf-fonts-zh-cn`` wheel: it also covers the
Traditional characters of 龍之弈 and 誅天 (tests/test_images.py checks every shipped name).

Pure Pillow: no Flask. ``card_image`` caches encoded bytes under a folder the caller gives
(the web app uses ``instance/card-images/``), named by a hash of the data + renderer version.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import os
import re
import tempfile
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from catalog.games.base import RGB, GameModule
from catalog.images.keys import (  # noqa: F401  (re-exported: callers name them as faces.*)
    FORMATS,
    RENDERER_VERSION,
    SIZES,
    cache_key,
    cache_path,
    cached,
    dimensions,
    image_version,
)
from catalog.models import Card, CardSet, Printing

BASE_WIDTH = 488  # the layout below is written in pixels of the normal size

Font = ImageFont.FreeTypeFont


def font_path() -> Path:
    """Noto Sans SC (OFL-1.1) from the pinned ``pylopdf-fonts-zh-cn`` package."""
    return Path(str(resources.files("pylopdf_fonts_zh_cn").joinpath("NotoSansSC-Regular.otf")))


@functools.lru_cache(maxsize=256)
def font(pixels: int) -> Font:
    return ImageFont.truetype(str(font_path()), max(6, pixels))


# ---------------------------------------------------------------------------- colours

NEUTRAL: RGB = (110, 118, 130)
# Muted frames for games coloured by house/faction rather than attribute (誅天, KeyForge).
FACTION_PALETTE: tuple[RGB, ...] = (
    (122, 86, 60),
    (70, 100, 120),
    (96, 110, 70),
    (120, 70, 90),
    (80, 80, 120),
    (140, 110, 60),
    (60, 110, 105),
)
# Rarities a game names no colour for: by their step on the ladder (lowest grey … highest gold).
LADDER: tuple[RGB, ...] = ((140, 144, 150), (60, 150, 90), (50, 110, 220), (150, 80, 220), (230, 150, 20))
PAPER: RGB = (247, 243, 234)
INK: RGB = (28, 26, 24)


def _mix(colour: RGB, other: RGB, amount: float) -> RGB:
    r, g, b = (round(c + (o - c) * amount) for c, o in zip(colour, other, strict=True))
    return r, g, b


def _on(colour: RGB) -> RGB:
    """Black or white, whichever reads on ``colour``."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def frame_colours(card: Card, game: GameModule) -> list[RGB]:
    """One or two frame colours: the card's attributes, else a colour for its faction/house."""
    known = [game.attribute_colours[a] for a in card.attributes if a in game.attribute_colours]
    if known:
        return [known[0], known[-1]] if len(known) > 1 else known
    if card.faction:
        digest = hashlib.sha256(card.faction.encode()).digest()
        return [FACTION_PALETTE[digest[0] % len(FACTION_PALETTE)]]
    return [NEUTRAL]


def rarity_colour(game: GameModule, code: str) -> RGB:
    if code in game.rarity_colours:
        return game.rarity_colours[code]
    try:
        rank, top = game.rarity.rank(code), max(1, len(game.rarity.codes) - 1)
    except ValueError:
        return NEUTRAL
    return LADDER[round(rank * (len(LADDER) - 1) / top)]


# ---------------------------------------------------------------------------- text layout

# Never at the start of a line (line-breaking rules for CJK, 避头): the closing marks.
NO_LINE_START = set("，。、；：？！）」』》〉】〕,.;:?!)]}…—·")
# Never at the end of a line (避尾): the opening marks.
NO_LINE_END = set("（「『《〈【〔([{")
_TOKENS = re.compile(r"\n|[A-Za-z0-9+\-/'’.%]+|\s|.", re.S)


def wrap_cjk(text: str, face: Font, width: float) -> list[str]:
    """Break ``text`` into lines at most ``width`` wide, CJK style.

    Any character may end a line except that no line starts with closing punctuation (it hangs
    on the previous line instead) and none ends with opening punctuation (it moves down).
    Latin words stay whole; explicit newlines are kept.
    """
    lines: list[str] = []
    line = ""
    for token in _TOKENS.findall(text):
        if token == "\n":
            lines.append(line.rstrip())
            line = ""
            continue
        if line and face.getlength(line + token) > width and not token.isspace():
            if token in NO_LINE_START:
                line += token  # hang it: a closing mark never starts a line
                continue
            carried = ""
            while line and line[-1] in NO_LINE_END:
                carried = line[-1] + carried
                line = line[:-1]
            lines.append(line.rstrip())
            line = carried + token
        elif token.isspace() and not line:
            continue
        else:
            line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _fit(text: str, width: float, start: int, smallest: int) -> Font:
    """The largest font from ``start`` down to ``smallest`` pixels in which ``text`` fits."""
    pixels = start
    while pixels > smallest and font(pixels).getlength(text) > width:
        pixels -= 1
    return font(pixels)


# ---------------------------------------------------------------------------- the card face

STAT_FIELDS = ("level", "attack", "defense", "life", "amber")


def _stats(card: Card) -> list[tuple[str, Any]]:
    found = []
    for field in STAT_FIELDS:
        value = getattr(card, field, None)
        if value is None:
            value = card.extra.get(field)
        if value is not None:
            found.append((field, value))
    return found


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float, fill: RGB) -> None:
    points = []
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.45
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    draw.polygon(points, fill=fill, outline=INK)


def render_card(
    card: Card, printing: Printing, card_set: CardSet, game: GameModule, size: str = "normal"
) -> Image.Image:
    """Draw the face of ``printing`` of ``card`` at ``size`` (small, normal, large)."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}")
    width, height = dimensions(size)
    # Draw at the normal layout scaled to the target: every measure below goes through s().
    k = width / BASE_WIDTH

    def s(value: float) -> int:
        return round(value * k)

    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    frames = frame_colours(card, game)
    first, last = frames[0], frames[-1]
    # The frame: the whole card, split down the middle for two attributes.
    draw.rectangle((0, 0, width, height), fill=first)
    if len(frames) > 1:
        # A slanted split: the footer's left end stays on the first colour, its right on the last.
        draw.polygon([(width * 0.62, 0), (width, 0), (width, height), (width * 0.38, height)], fill=last)
    border = max(1, s(3))
    draw.rectangle((0, 0, width - 1, height - 1), outline=INK, width=border)

    inner = (s(18), s(16), width - s(18), height - s(52))
    draw.rounded_rectangle(inner, radius=s(10), fill=PAPER, outline=INK, width=max(1, s(2)))
    left, top, right, bottom = inner
    pad = s(12)

    # Name bar with the cost pips at its right.
    bar = (left + s(6), top + s(6), right - s(6), top + s(62))
    draw.rounded_rectangle(bar, radius=s(8), fill=_mix(first, (255, 255, 255), 0.8), outline=INK, width=max(1, s(1.5)))
    pips = _cost_pips(card, game)
    pip_r = s(17)
    pips_width = len(pips) * (2 * pip_r + s(4))
    cy = (bar[1] + bar[3]) / 2
    x = bar[2] - s(8) - pips_width
    for colour, label in pips:
        box = (x, cy - pip_r, x + 2 * pip_r, cy + pip_r)
        draw.ellipse(box, fill=colour, outline=INK, width=max(1, s(1.5)))
        face = _fit(label, 2 * pip_r - s(6), s(24), s(10))
        draw.text((x + pip_r, cy), label, font=face, fill=_on(colour), anchor="mm")
        x += 2 * pip_r + s(4)
    name_room = bar[2] - bar[0] - s(30) - pips_width
    name_font = _fit(card.name, name_room, s(34), s(12))
    draw.text((bar[0] + s(12), cy), card.name, font=name_font, fill=INK, anchor="lm")

    # The picture area: no artwork exists, so a tinted field with the name's first character.
    art = (left + pad, bar[3] + s(8), right - pad, top + s(318))
    tint = _mix(first, PAPER, 0.55)
    draw.rectangle(art, fill=tint)
    if len(frames) > 1:
        draw.polygon([(art[2], art[1]), (art[2], art[3]), (art[0], art[3])], fill=_mix(last, PAPER, 0.55))
    draw.text(
        ((art[0] + art[2]) / 2, (art[1] + art[3]) / 2),
        card.name[:1],
        font=font(s(150)),
        fill=_mix(tint, (255, 255, 255), 0.45),
        anchor="mm",
    )
    draw.rectangle(art, outline=INK, width=max(1, s(1.5)))
    if card_set.sample:
        mark = font(s(15))
        label = "样例数据"
        mark_box = draw.textbbox((art[2] - s(8), art[1] + s(8)), label, font=mark, anchor="ra")
        draw.rounded_rectangle(
            (mark_box[0] - s(6), mark_box[1] - s(3), mark_box[2] + s(6), mark_box[3] + s(4)),
            radius=s(5),
            fill=(255, 255, 255),
        )
        draw.text((art[2] - s(8), art[1] + s(8)), label, font=mark, fill=(150, 30, 30), anchor="ra")

    # Type line: type · subtype · faction, then the traits.
    y = art[3] + s(8)
    type_line = " · ".join(p for p in (card.type, card.subtype, card.faction) if p)
    if card.traits:
        type_line += " — " + "／".join(card.traits)
    draw.text((left + pad, y), type_line, font=_fit(type_line, right - left - 2 * pad, s(21), s(11)), fill=INK)
    y += s(30)
    draw.line((left + pad, y, right - pad, y), fill=_mix(first, INK, 0.3), width=max(1, s(1.5)))
    y += s(6)

    # Keyword line, then the rules text, shrinking until it fits the box.
    text_box = (left + pad, y, right - pad, bottom - s(44))
    labels = [str(k.get("label") or "") for k in card.keywords if k.get("label")]
    keyword_text = "  ".join(labels)
    if keyword_text:
        face = _fit(keyword_text, text_box[2] - text_box[0], s(20), s(11))
        draw.text((text_box[0], y), keyword_text, font=face, fill=(140, 30, 30))
        y += round(face.size * 1.45)
    _draw_text_block(draw, card.text, (text_box[0], y, text_box[2], text_box[3]), s(22), s(9))

    # Stats at the bottom of the panel.
    _draw_stats(draw, card, game, (left + pad, bottom - s(40), right - pad, bottom - s(8)), k)

    # Footer on the frame: set code and number at the left, rarity mark at the right.
    foot_y = (bottom + height) / 2
    number = printing.number if printing.number.startswith(card_set.code) else f"{card_set.code} · {printing.number}"
    draw.text((left + s(4), foot_y), number, font=font(s(17)), fill=_on(first), anchor="lm")
    _draw_rarity(draw, game, printing.rarity, (right - s(4), foot_y), k, _on(last))
    return image


def _cost_pips(card: Card, game: GameModule) -> list[tuple[RGB, str]]:
    """Cost as pips: EL ``2火2无`` → a 火-coloured 2 and a 无-coloured 2; a plain number → one pip."""
    if card.cost:
        order = list(game.attributes.canonical)
        items = sorted(card.cost.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
        return [(game.attribute_colours.get(attr, NEUTRAL), str(n)) for attr, n in items]
    if card.cost_text:
        return [((235, 235, 235), card.cost_text)]
    return []


def _draw_text_block(
    draw: ImageDraw.ImageDraw, text: str, box: tuple[float, float, float, float], start: int, smallest: int
) -> None:
    """Rules text wrapped into ``box``, the font shrinking until every line fits."""
    if not text:
        return
    x0, y0, x1, y1 = box
    pixels = start
    while True:
        face = font(pixels)
        lines = wrap_cjk(text, face, x1 - x0)
        leading = round(pixels * 1.4)
        if len(lines) * leading <= y1 - y0 or pixels <= smallest:
            break
        pixels -= 1
    for index, line in enumerate(lines):
        y = y0 + index * leading
        if y + pixels > y1:
            break
        draw.text((x0, y), line, font=face, fill=INK)


def _draw_stats(
    draw: ImageDraw.ImageDraw, card: Card, game: GameModule, box: tuple[float, float, float, float], k: float
) -> None:
    stats = _stats(card)
    if not stats:
        return
    x0, y0, x1, y1 = box
    label_font, value_font = font(round(14 * k)), font(round(22 * k))
    right = x1
    for field, value in reversed(stats):
        label = game.face_label(field)
        text = str(value)
        w = label_font.getlength(label) + value_font.getlength(text) + 18 * k
        chip = (right - w, y0, right, y1)
        if chip[0] < x0:
            break
        draw.rounded_rectangle(chip, radius=round(6 * k), fill=(255, 255, 255), outline=INK, width=max(1, round(k)))
        cy = (y0 + y1) / 2
        draw.text((chip[0] + 6 * k, cy), label, font=label_font, fill=(90, 90, 90), anchor="lm")
        draw.text((chip[2] - 6 * k, cy), text, font=value_font, fill=INK, anchor="rm")
        right = chip[0] - 6 * k


def _draw_rarity(
    draw: ImageDraw.ImageDraw, game: GameModule, code: str, anchor: tuple[float, float], k: float, ink: RGB
) -> None:
    """EL-style coloured badge with the code, or stars for a game rated in stars (龍之弈)."""
    x, cy = anchor
    label = game.rarity.label(code)
    if label and set(label) == {"★"}:
        radius = 9 * k
        for i in range(len(label)):
            _star(draw, x - radius - i * (2 * radius + 2 * k), cy, radius, (240, 190, 30))
        return
    face = font(round(16 * k))
    colour = rarity_colour(game, code)
    w = face.getlength(code) + 16 * k
    draw.rounded_rectangle((x - w, cy - 12 * k, x, cy + 12 * k), radius=round(5 * k), fill=colour, outline=ink)
    draw.text((x - w / 2, cy), code, font=face, fill=_on(colour), anchor="mm")


# ---------------------------------------------------------------------------- cache


def encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "webp":
        image.save(buffer, "WEBP", quality=85, method=0)  # method 0: half the time of 2, ~15% bigger
    elif fmt == "png":
        image.save(buffer, "PNG", compress_level=3)
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return buffer.getvalue()


def card_image(
    card: Card,
    printing: Printing,
    card_set: CardSet,
    game: GameModule,
    *,
    cache_dir: Path,
    size: str = "normal",
    fmt: str = "webp",
) -> tuple[bytes, str]:
    """The encoded face and its ETag (the cache key), from ``cache_dir`` when drawn before.

    A changed card or renderer makes a new key, hence a new file; old files are never read again.
    """
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    version = image_version(card, printing, card_set, game)
    key = cache_key(game.slug, card_set.code, printing.number, version, size, fmt)
    data = cached(cache_dir, key, fmt)
    if data is not None:
        return data, key
    data = encode(render_card(card, printing, card_set, game, size), fmt)
    path = cache_path(cache_dir, key, fmt)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write then rename: a concurrent reader sees the whole file or none.
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)
    return data, key


def missing_glyphs(text: Iterable[str]) -> set[str]:
    """Characters of ``text`` the card font lacks: drawn blank or as the missing-glyph box.

    Whitespace excepted. (fontTools is not a dependency, so we compare renderings.)
    """
    face = font(32)

    def pixels(char: str) -> bytes:
        canvas = Image.new("L", (64, 64))
        ImageDraw.Draw(canvas).text((8, 8), char, font=face, fill=255)
        return canvas.tobytes()

    notdef = pixels("\U0010fffd")
    blank = bytes(64 * 64)
    return {c for c in set("".join(text)) if not c.isspace() and pixels(c) in (notdef, blank)}

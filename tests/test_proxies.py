"""Proxy PDFs (): A4 pages of 63×88 mm cards with cut marks, one JPEG
image per distinct face drawn for every copy, a face cache, and leaving out basic cards."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pypdf import PdfReader
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import check_decklist
from catalog.games import GAMES
from catalog.images import proxies
from catalog.rules import PoolCard
from tests.kits.deck import legal_samsara_list

RED, BLUE = (220, 20, 20), (20, 40, 220)


def _solid(colour: tuple[int, int, int], size: tuple[int, int]) -> Image.Image:
    return Image.new("RGB", size, colour)


def read_pdf(data: bytes) -> PdfReader:
    """The PDF as a real parser reads it (strict: a broken cross-reference table fails)."""
    assert data.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(data), strict=True)
    return reader


def images_of(reader: PdfReader) -> dict[int, Any]:
    """Object number → JPEG image object, of every image any page draws."""
    found = {}
    for page in reader.pages:
        xobjects = page["/Resources"].get("/XObject", {})
        for name in xobjects:
            image = xobjects[name]
            if image.get("/Subtype") == "/Image" and image.get("/Filter") == "/DCTDecode":
                found[xobjects.raw_get(name).idnum] = image
    return found


def page_draws(reader: PdfReader) -> list[list[tuple[float, float, float, float, int]]]:
    """For every page in order: (width, height, x, y in points, image object) of each face drawn,
    from the content stream's operators (the transformation in force when the image is drawn)."""
    pages = []
    for page in reader.pages:
        xobjects = page["/Resources"].get("/XObject", {})
        number = {name: xobjects.raw_get(name).idnum for name in xobjects}
        draws, stack, matrix = [], [], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        for operands, operator in page.get_contents().operations:
            if operator == b"q":
                stack.append(matrix)
            elif operator == b"Q":
                matrix = stack.pop()
            elif operator == b"cm":
                a, b, c, d, e, f = (float(v) for v in operands)
                assert (b, c) == (0, 0) and matrix == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]  # no nesting, no rotation
                matrix = [a, b, c, d, e, f]
            elif operator == b"Do" and number[operands[0]] in images_of(reader):
                draws.append((matrix[0], matrix[3], matrix[4], matrix[5], number[operands[0]]))
        pages.append(draws)
    return pages


def strokes(reader: PdfReader, page: int = 0) -> list[tuple[float, float, float, float]]:
    """(x1, y1, x2, y2) of every straight line stroked on a page (m … l … S)."""
    lines, start, end = [], None, None
    for operands, operator in reader.pages[page].get_contents().operations:
        if operator == b"m":
            start = tuple(float(v) for v in operands)
        elif operator == b"l":
            end = tuple(float(v) for v in operands)
        elif operator == b"S" and start is not None and end is not None:
            lines.append((*start, *end))
            start = end = None
    return lines


@pytest.mark.parametrize(("copies", "pages"), [(1, 1), (9, 1), (10, 2), (60, 7)])
def test_proxy_pdf_has_a4_pages_for_every_copy(copies: int, pages: int) -> None:
    data = proxies.render_proxies(cards=[(_solid(RED, (745, 1040)), copies)])
    reader = read_pdf(data)
    assert len(reader.pages) == pages == math.ceil(copies / 9)
    for page in reader.pages:  # A4 = 595.28 × 841.89 pt
        assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (595, 842)
    assert len(images_of(reader)) == 1  # one image, drawn for every copy
    assert sum(len(p) for p in page_draws(reader)) == copies


def test_proxy_cards_are_63_by_88_mm_in_a_centred_grid_with_cut_marks_outside() -> None:
    assert (proxies.PROXY_W, proxies.PROXY_H) == (744, 1039)  # 63×88 mm at 300 dpi
    data = proxies.render_proxies(cards=[(_solid(RED, (745, 1040)), 1), (_solid(BLUE, (500, 700)), 8)])
    reader = read_pdf(data)
    (draws,) = page_draws(reader)
    pt = 72 / 300
    left, top = proxies.proxy_layout()
    for index, (width, height, x, y, _image) in enumerate(draws):
        assert (width, height) == pytest.approx((744 * pt, 1039 * pt), abs=0.01)  # 62.99 × 87.98 mm
        assert x == pytest.approx((left + index % 3 * 744) * pt, abs=0.01)
        assert y == pytest.approx(841.89 - (top + (index // 3 + 1) * 1039) * pt, abs=0.01)
    assert len({d[4] for d in draws}) == 2 and draws[0][4] != draws[1][4] == draws[8][4]
    # The faces are JPEGs of exactly the card's pixels: the large face cropped, no blur.
    faces = images_of(reader)
    red = Image.open(io.BytesIO(faces[draws[0][4]].get_data()))
    assert red.format == "JPEG" and red.size == (744, 1039)
    assert red.getpixel((0, 0)) == pytest.approx(RED, abs=4)
    assert red.getpixel((743, 1038)) == pytest.approx(RED, abs=4)
    assert Image.open(io.BytesIO(faces[draws[1][4]].get_data())).size == (744, 1039)
    # Cut marks: vector lines continuing every card edge, starting ~1 mm off the grid.
    lines = strokes(reader)
    assert len(lines) == 16  # 4 vertical edges × 2 ends + 4 horizontal edges × 2 ends
    grid_top, grid_left = 841.89 - top * pt, left * pt
    grid_bottom, grid_right = 841.89 - (top + 3 * 1039) * pt, (left + 3 * 744) * pt
    for x1, y1, x2, y2 in lines:  # never over a card: wholly above, below, left or right of the grid
        assert (
            min(y1, y2) > grid_top or max(y1, y2) < grid_bottom or max(x1, x2) < grid_left or min(x1, x2) > grid_right
        )
    assert any(x1 == x2 == pytest.approx(grid_left, abs=0.01) and y1 > grid_top for x1, y1, x2, y2 in lines)


def test_the_title_is_in_the_document_info() -> None:
    data = proxies.render_proxies(cards=[(_solid(RED, (745, 1040)), 1)], title="火 (deck) \\")
    assert read_pdf(data).metadata.title == "火 (deck) \\"


def _deck(engine: Engine, stones: int = 3) -> str:
    """The legal sample deck with ``stones`` copies of each basic stone (51 main + stones)."""
    text = legal_samsara_list(engine)
    return re.sub(r"(?m)^2 (\S+之法力石)$", rf"{stones} \1", text)


def test_a_75_card_deck_draws_each_distinct_face_once_and_stays_small(sample_catalogue: Engine, tmp_path: Path) -> None:
    """6.6 MB before; the target is ≤ 2 MB."""
    text = _deck(sample_catalogue, stones=4)
    with Session(sample_catalogue) as session:
        check = check_decklist(session=session, text=text, game="samsara")
        assert sum(e.count for e in check.deck.entries) == 75
        data, copies = proxies.deck_proxies_of(session=session, check=check, scan_dir=None, cache_dir=tmp_path)
    distinct = len({e.card.id for e in check.deck.entries})
    reader = read_pdf(data)
    assert len(images_of(reader)) == distinct
    assert sum(len(p) for p in page_draws(reader)) == copies
    assert len(data) <= 2_000_000, len(data)


def test_faces_are_cached_and_a_warm_pdf_is_the_same(sample_catalogue: Engine, tmp_path: Path) -> None:
    text = _deck(sample_catalogue)
    with Session(sample_catalogue) as session:
        check = check_decklist(session=session, text=text, game="samsara")
        cold, _n = proxies.deck_proxies_of(session=session, check=check, scan_dir=None, cache_dir=tmp_path)
        cached = sorted(tmp_path.rglob("*.jpg"))
        assert len(cached) == len({e.card.id for e in check.deck.entries})
        for path in cached:  # a warm PDF reads the cache: change a file and the PDF shows it
            path.write_bytes(path.read_bytes())
        warm, _n = proxies.deck_proxies_of(session=session, check=check, scan_dir=None, cache_dir=tmp_path)
        assert warm == cold
        first = cached[0]
        first.write_bytes(proxies.proxy_jpeg(_solid(BLUE, (745, 1040))))
        changed, _n = proxies.deck_proxies_of(session=session, check=check, scan_dir=None, cache_dir=tmp_path)
    assert changed != cold and first.read_bytes() in changed


def _stone(text: str) -> PoolCard:
    return PoolCard(id=1, name="火之法力石", name_key="火之法力石", type="法力石", text=text)


def test_basic_cards_are_game_knowledge() -> None:
    samsara = GAMES["samsara"]
    assert samsara.is_basic(_stone(""))
    assert not samsara.is_basic(_stone("进入法力区时抽一张卡。"))  # a stone with rules text is not basic
    assert not samsara.is_basic(PoolCard(id=2, name="孙悟空", name_key="孙悟空", type="战魂"))
    assert not any(GAMES[slug].is_basic(_stone("")) for slug in GAMES if slug != "samsara")


def test_basic_stones_can_be_left_out(sample_catalogue: Engine) -> None:
    text = _deck(sample_catalogue)
    stones = sum(int(n) for n in re.findall(r"(?m)^(\d+) \S+之法力石$", text))
    assert stones
    with Session(sample_catalogue) as session:
        check = check_decklist(session=session, text=text, game="samsara")
        _all, every = proxies.deck_proxies_of(session=session, check=check, scan_dir=None)
        data, fewer = proxies.deck_proxies_of(session=session, check=check, scan_dir=None, skip_basics=True)
        assert fewer == every - stones == 51
        assert sum(len(p) for p in page_draws(read_pdf(data))) == fewer
        only = check_decklist(session=session, text="额外卡组:\n4 火之法力石\n", game="samsara")
        with pytest.raises(proxies.NothingToPrint):
            proxies.deck_proxies_of(session=session, check=only, scan_dir=None, skip_basics=True)


def test_the_deck_page_offers_proxies_without_basic_stones(
    sample_app: Any, client: Any, sample_catalogue: Engine
) -> None:
    text = _deck(sample_catalogue)
    page = client.get("/decks", query_string={"game": "samsara", "list": text}).get_data(as_text=True)
    form = re.search(r'<form class="proxy-form" method="get" action="/decks/proxies.pdf">(.*?)</form>', page, re.S)
    assert form, page
    assert 'type="checkbox" name="no_basics" value="1"' in form.group(1) and "基本法力石" in form.group(1)
    full = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": text})
    lean = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": text, "no_basics": "1"})
    assert full.status_code == lean.status_code == 200
    assert len(read_pdf(lean.data).pages) == math.ceil(51 / 9) < len(read_pdf(full.data).pages)
    only = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": "4 火之法力石", "no_basics": "1"})
    assert only.status_code == 400 and "没有要打印的卡" in only.get_data(as_text=True)


def test_cli_proxies_without_basics(sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(_deck(sample_catalogue), encoding="utf-8")
    out = tmp_path / "proxies.pdf"
    result = runner.invoke(args=["deck", "proxies", str(deck), "--game", "samsara", "--no-basics", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "51 张代理卡" in result.output and len(read_pdf(out.read_bytes()).pages) == 6

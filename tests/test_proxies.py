"""Proxy PDFs (issue 7; issue 15 item 13): A4 pages of 63×88 mm cards with cut marks, one JPEG
image per distinct face drawn for every copy, a face cache, and leaving out basic cards."""

from __future__ import annotations

import io
import math
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import check_decklist
from catalog.games import GAMES
from catalog.images import proxies
from catalog.rules import PoolCard
from tests.test_deck_images import pdf_pages
from tests.test_decks import legal_samsara_list

RED, BLUE = (220, 20, 20), (20, 40, 220)


def _solid(colour: tuple[int, int, int], size: tuple[int, int]) -> Image.Image:
    return Image.new("RGB", size, colour)


def pdf_objects(data: bytes) -> dict[int, bytes]:
    """Object number → its body, checking the cross-reference table points at every object."""
    objects = {int(n): body for n, body in re.findall(rb"(?ms)^(\d+) 0 obj\n(.*?)\nendobj\n", data)}
    start = int(re.findall(rb"startxref\n(\d+)\n%%EOF", data)[-1])
    assert data[start:].startswith(b"xref\n")
    entries = re.findall(rb"(\d{10}) 00000 n ", data[start:])
    assert len(entries) == len(objects)
    for number, offset in enumerate(entries, start=1):
        assert data[int(offset) :].startswith(b"%d 0 obj\n" % number)
    return objects


def stream_of(body: bytes) -> bytes:
    data = body.split(b"stream\n", 1)[1].rsplit(b"\nendstream", 1)[0]
    return zlib.decompress(data) if b"/FlateDecode" in body.split(b"stream\n", 1)[0] else data


def images_of(objects: dict[int, bytes]) -> dict[int, bytes]:
    return {n: b for n, b in objects.items() if b"/Subtype /Image" in b and b"/DCTDecode" in b}


def page_draws(objects: dict[int, bytes]) -> list[list[tuple[float, float, float, float, int]]]:
    """For every page in order: (width, height, x, y in points, image object) of each face drawn."""
    pages_body = next(b for b in objects.values() if b.startswith(b"<< /Type /Pages"))
    pages = []
    for kid in re.findall(rb"(\d+) 0 R", pages_body.split(b"/Kids [", 1)[1].split(b"]", 1)[0]):
        page = objects[int(kid)]
        names = {n.decode(): int(r) for n, r in re.findall(rb"/(C\d+) (\d+) 0 R", page)}
        content = stream_of(objects[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))]).decode()
        draws = re.findall(r"q ([\d.]+) 0 0 ([\d.]+) ([\d.]+) ([\d.]+) cm /(C\d+) Do Q", content)
        pages.append([(float(w), float(h), float(x), float(y), names[n]) for w, h, x, y, n in draws])
    return pages


@pytest.mark.parametrize(("copies", "pages"), [(1, 1), (9, 1), (10, 2), (60, 7)])
def test_proxy_pdf_has_a4_pages_for_every_copy(copies: int, pages: int) -> None:
    data = proxies.render_proxies(cards=[(_solid(RED, (745, 1040)), copies)])
    count, boxes = pdf_pages(data)
    assert count == pages == math.ceil(copies / 9) and len(boxes) == pages
    for width, height in boxes:  # A4 = 595.28 × 841.89 pt
        assert round(width) == 595 and round(height) == 842
    objects = pdf_objects(data)
    assert len(images_of(objects)) == 1  # one image, drawn for every copy
    assert sum(len(p) for p in page_draws(objects)) == copies


def test_proxy_cards_are_63_by_88_mm_in_a_centred_grid_with_cut_marks_outside() -> None:
    assert (proxies.PROXY_W, proxies.PROXY_H) == (744, 1039)  # 63×88 mm at 300 dpi
    data = proxies.render_proxies(cards=[(_solid(RED, (745, 1040)), 1), (_solid(BLUE, (500, 700)), 8)])
    objects = pdf_objects(data)
    (draws,) = page_draws(objects)
    pt = 72 / 300
    left, top = proxies.proxy_layout()
    for index, (width, height, x, y, _image) in enumerate(draws):
        assert (width, height) == pytest.approx((744 * pt, 1039 * pt), abs=0.01)  # 62.99 × 87.98 mm
        assert x == pytest.approx((left + index % 3 * 744) * pt, abs=0.01)
        assert y == pytest.approx(841.89 - (top + (index // 3 + 1) * 1039) * pt, abs=0.01)
    assert len({d[4] for d in draws}) == 2 and draws[0][4] != draws[1][4] == draws[8][4]
    # The faces are JPEGs of exactly the card's pixels: the large face cropped, no blur.
    red = Image.open(io.BytesIO(stream_of(objects[draws[0][4]])))
    assert red.format == "JPEG" and red.size == (744, 1039)
    assert red.getpixel((0, 0)) == pytest.approx(RED, abs=4)
    assert red.getpixel((743, 1038)) == pytest.approx(RED, abs=4)
    assert Image.open(io.BytesIO(stream_of(objects[draws[1][4]]))).size == (744, 1039)
    # Cut marks: vector lines continuing every card edge, starting ~1 mm off the grid.
    page = next(b for b in objects.values() if b.startswith(b"<< /Type /Page "))
    content = stream_of(objects[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))]).decode()
    lines = [tuple(map(float, m)) for m in re.findall(r"([\d.]+) ([\d.]+) m ([\d.]+) ([\d.]+) l S", content)]
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
    objects = pdf_objects(data)
    info = next(b for b in objects.values() if b.startswith(b"<< /Title"))
    assert "火 (deck) \\".encode("utf-16-be").hex().upper().encode() in info


def _deck(engine: Engine, stones: int = 3) -> str:
    """The legal sample deck with ``stones`` copies of each basic stone (51 main + stones)."""
    text = legal_samsara_list(engine)
    return re.sub(r"(?m)^2 (\S+之法力石)$", rf"{stones} \1", text)


def test_a_75_card_deck_draws_each_distinct_face_once_and_stays_small(sample_catalogue: Engine, tmp_path: Path) -> None:
    """Issue 15 item 13: 6.6 MB before; the target is ≤ 2 MB."""
    text = _deck(sample_catalogue, stones=4)
    with Session(sample_catalogue) as session:
        check = check_decklist(session=session, text=text, game="samsara")
        assert sum(e.count for e in check.deck.entries) == 75
        data, copies = proxies.deck_proxies_of(session=session, check=check, scan_dir=None, cache_dir=tmp_path)
    distinct = len({e.card.id for e in check.deck.entries})
    objects = pdf_objects(data)
    assert len(images_of(objects)) == distinct
    assert sum(len(p) for p in page_draws(objects)) == copies
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
        assert sum(len(p) for p in page_draws(pdf_objects(data))) == fewer
        only = check_decklist(session=session, text="额外卡组:\n4 火之法力石\n", game="samsara")
        with pytest.raises(proxies.NothingToPrint):
            proxies.deck_proxies_of(session=session, check=only, scan_dir=None, skip_basics=True)


def test_the_deck_page_offers_proxies_without_basic_stones(sample_app: Any, sample_catalogue: Engine) -> None:
    client = sample_app.test_client()
    text = _deck(sample_catalogue)
    page = client.get("/decks", query_string={"game": "samsara", "list": text}).get_data(as_text=True)
    form = re.search(r'<form class="proxy-form" method="get" action="/decks/proxies.pdf">(.*?)</form>', page, re.S)
    assert form, page
    assert 'type="checkbox" name="no_basics" value="1"' in form.group(1) and "基本法力石" in form.group(1)
    full = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": text})
    lean = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": text, "no_basics": "1"})
    assert full.status_code == lean.status_code == 200
    assert pdf_pages(lean.data)[0] == math.ceil(51 / 9) < pdf_pages(full.data)[0]
    only = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": "4 火之法力石", "no_basics": "1"})
    assert only.status_code == 400 and "没有要打印的卡" in only.get_data(as_text=True)


def test_cli_proxies_without_basics(sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(_deck(sample_catalogue), encoding="utf-8")
    out = tmp_path / "proxies.pdf"
    result = runner.invoke(args=["deck", "proxies", str(deck), "--game", "samsara", "--no-basics", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "51 张代理卡" in result.output and pdf_pages(out.read_bytes())[0] == 6

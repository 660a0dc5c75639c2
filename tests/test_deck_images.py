"""Deck images and proxy sheets: sizes, pages, scans used, the CLI and the web links.

The proxy PDF itself is tested in tests/test_proxies.py."""

from __future__ import annotations

import html
import io
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog.db import transaction
from catalog.decks.check import check_decklist
from catalog.images import decks as deckimages
from catalog.images import faces as images
from catalog.images import scans
from catalog.models import Printing
from catalog.rules import Verdict, Violation
from tests.kits.deck import legal_samsara_list, pdf_pages

GREEN = (20, 200, 40)


def test_deck_image_size_is_computed_from_the_sections() -> None:
    # 10 columns of 146 px cards with 10 px gaps and 32 px margins: 64 + 1460 + 90 = 1614 wide.
    # Height: margins 64 + header 120 + footer 56; main 12 cards = 2 rows: 48 + 2·204 + 10 + 20;
    # side 3 cards = 1 row: 48 + 204 + 20.
    assert deckimages.deck_image_size([12, 0, 3]) == (1614, 240 + 486 + 272)
    assert deckimages.deck_image_size([10, 0, 0]) == (1614, 240 + 272)


def _solid(colour: tuple[int, int, int], size: tuple[int, int]) -> Image.Image:
    return Image.new("RGB", size, colour)


@pytest.mark.parametrize("distinct", [1, 10, 11, 23])
def test_deck_image_opens_with_the_expected_size(distinct: int) -> None:
    rows = [deckimages.DeckRow("main", deckimages.FaceKey(i), f"卡{i}", 3) for i in range(distinct)] + [
        deckimages.DeckRow("side", deckimages.FaceKey(100), "备", 2)
    ]
    faces = {r.key: _solid(GREEN, images.dimensions("small")) for r in rows}
    verdict = Verdict("samsara", "m8", {"main": 3 * distinct, "extra": 0, "side": 2}, [])
    data = deckimages.render_deck_image(
        rows=rows, faces=faces, verdict=verdict, deck_name="测试", game_name="轮回残响", format_name="M8"
    )
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.size == deckimages.deck_image_size([distinct, 0, 1])
    # The first card sits at the top-left of the main grid, with the green of its face.
    y = deckimages.MARGIN + deckimages.HEADER + deckimages.SECTION_TITLE
    assert image.convert("RGB").getpixel((deckimages.MARGIN + 20, y + 20)) == GREEN


def test_legality_badge_colour() -> None:
    rows = [deckimages.DeckRow("main", deckimages.FaceKey(1), "卡", 1)]
    faces = {rows[0].key: _solid(GREEN, images.dimensions("small"))}
    bad = Violation("too_many_copies", "太多", "too many")
    pixels = []
    for violations in ([], [bad]):
        verdict = Verdict("samsara", "m8", {"main": 1, "extra": 0, "side": 0}, violations)
        data = deckimages.render_deck_image(
            rows=rows, faces=faces, verdict=verdict, deck_name="", game_name="轮回残响", format_name="M8"
        )
        image = Image.open(io.BytesIO(data)).convert("RGB")
        pixels.append(image.getpixel((image.width - deckimages.MARGIN - 8, deckimages.MARGIN + 33)))
    assert pixels == [deckimages.LEGAL, deckimages.ILLEGAL]


# ---------------------------------------------------------------------------- from the database


def test_load_faces_uses_the_scan_when_there_is_one(sample_catalogue: Engine, tmp_path: Path) -> None:
    store = tmp_path / "scans"
    buffer = io.BytesIO()
    Image.new("RGB", (630, 880), GREEN).save(buffer, "PNG")
    with transaction(sample_catalogue) as session:
        printing = session.scalars(select(Printing).where(Printing.number == "M4-001")).one()
        assert printing.id is not None
        scans.add_scan(
            session=session,
            printing_id=printing.id,
            data=buffer.getvalue(),
            store_dir=store,
            now=datetime(2026, 1, 1, tzinfo=UTC),
        )
    with Session(sample_catalogue) as session:
        result = check_decklist(session=session, text="3 M4-001\n2 M4-002\n", game="samsara")
        rows = deckimages.deck_rows(result.deck)
        faces = deckimages.load_faces(
            session=session, game="samsara", keys=[r.key for r in rows], size="small", scan_dir=store
        )
    scanned, drawn = faces[rows[0].key], faces[rows[1].key]
    assert scanned.size == drawn.size == images.dimensions("small")
    assert scanned.getpixel((70, 100)) == pytest.approx(GREEN, abs=6)
    assert drawn.getpixel((70, 100)) != scanned.getpixel((70, 100))


def _deck_file(tmp_path: Path, engine: Engine) -> tuple[Path, int, int]:
    text = legal_samsara_list(engine)
    path = tmp_path / "deck.txt"
    path.write_text(text, encoding="utf-8")
    with Session(engine) as session:
        result = check_decklist(session=session, text=text, game="samsara")
    rows = deckimages.deck_rows(result.deck)
    return path, sum(r.count for r in rows), len(rows)


def test_cli_deck_image_and_proxies(sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path) -> None:
    deck, copies, _distinct = _deck_file(tmp_path, sample_catalogue)
    out = tmp_path / "deck.png"
    result = runner.invoke(args=["deck", "image", str(deck), "--game", "samsara", "--format", "m8", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "（合法）" in result.output
    with Image.open(out) as image:
        size = image.size
    main = sum(1 for line in deck.read_text().split("额外卡组:")[0].splitlines() if line[:1].isdigit())
    extra = sum(1 for line in deck.read_text().split("额外卡组:")[1].splitlines() if line[:1].isdigit())
    assert size == deckimages.deck_image_size([main, extra, 0])

    pdf = tmp_path / "proxies.pdf"
    result = runner.invoke(args=["deck", "proxies", str(deck), "--game", "samsara", "--out", str(pdf)])
    assert result.exit_code == 0, result.output
    count, boxes = pdf_pages(pdf.read_bytes())
    assert count == math.ceil(copies / 9) == len(boxes)
    assert f"{copies} 张代理卡" in result.output


@pytest.mark.parametrize("command", ["image", "proxies"])
def test_cli_unknown_cards_are_listed_and_nothing_is_written(
    sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path, command: str
) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("3 M4-001\n2 不存在的卡\n1 也没有这张\n", encoding="utf-8")
    out = tmp_path / "out.file"
    result = runner.invoke(args=["deck", command, str(deck), "--game", "samsara", "--out", str(out)])
    assert result.exit_code == 2
    assert "不存在的卡" in result.output and "也没有这张" in result.output and "卡组里有找不到的卡" in result.output
    assert not out.exists()


def test_deck_page_links_download_the_image_and_the_pdf(sample_app: Any, client: Any, sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue)
    page = client.get("/decks", query_string={"game": "samsara", "list": text}).get_data(as_text=True)
    links = {}
    match = re.search(r'<a class="button secondary" href="([^"]+)" download>下载卡组图片', page)
    assert match
    links["下载卡组图片"] = match.group(1).replace("&amp;", "&")
    # The proxy PDF is a GET form (a checkbox leaves out basic stones): its URL is the query.
    form = re.search(r'<form class="proxy-form" method="get" action="([^"]+)">(.*?)</form>', page, re.S)
    assert form and "打印代理 PDF" in form.group(2)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form.group(2)))
    links["打印代理 PDF"] = form.group(1) + "?" + urlencode({k: html.unescape(v) for k, v in fields.items()})
    image = client.get(links["下载卡组图片"])
    assert image.status_code == 200 and image.mimetype == "image/png"
    assert "attachment" in image.headers["Content-Disposition"]
    assert Image.open(io.BytesIO(image.data)).width == deckimages.deck_image_size([1])[0]
    pdf = client.get(links["打印代理 PDF"])
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf_pages(pdf.data)[0] >= 1

    # The working deck (kept in the session) works without the list in the URL.
    assert client.get("/decks/image.png").status_code == 200

    unknown = {"game": "samsara", "list": "2 不存在的卡\n"}
    assert "下载卡组图片" not in client.get("/decks", query_string=unknown).get_data(as_text=True)
    refused = client.get("/decks/proxies.pdf", query_string=unknown)
    assert refused.status_code == 400 and "不存在的卡" in refused.get_data(as_text=True)

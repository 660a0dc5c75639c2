"""Card-image speed (``make bench``; figures, no asserts on time).

1. Rendering throughput at normal size, cold cache: every printing of the sample catalogue
   drawn and encoded as WebP into an empty cache folder (target ≥ 50 cards/s).
2. A warm search grid: the 60 small images of one results page served through the Flask test
   client after a first pass filled the cache (target ≤ 50 ms in total).
"""

from __future__ import annotations

import time
from pathlib import Path

from sqlmodel import Session, col, select

from catalog.games import GAMES
from catalog.images import faces as images
from catalog.models import Card, CardSet, Game, Printing


def _printings(engine):
    with Session(engine) as session:
        rows = session.exec(
            select(Card, Printing, CardSet, Game)
            .join(Printing, col(Printing.card_id) == col(Card.id))
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .join(Game, col(Game.id) == col(Card.game_id))
            .order_by(col(Printing.id))
        ).all()
        session.expunge_all()
    return rows


def test_render_throughput_cold(sample_catalogue, tmp_path: Path) -> None:
    rows = _printings(sample_catalogue)
    started = time.perf_counter()
    for card, printing, card_set, game in rows:
        images.card_image(card, printing, card_set, GAMES[game.slug], cache_dir=tmp_path, size="normal")
    seconds = time.perf_counter() - started
    print(
        f"\nrender+encode (normal, webp, cold): {len(rows)} cards in {seconds:.2f} s"
        f" = {len(rows) / seconds:.0f} cards/s"
    )
    started = time.perf_counter()
    for card, printing, card_set, game in rows[:200]:
        images.render_card(card, printing, card_set, GAMES[game.slug], "normal")
    seconds = time.perf_counter() - started
    print(f"render only (normal): {200 / seconds:.0f} cards/s")


def test_warm_grid_of_60(sample_app, client) -> None:
    page = client.get("/cards?q=t:战魂&game=samsara").get_data(as_text=True)
    urls = [part.split('"', 1)[0].replace("&amp;", "&") for part in page.split('class="tile-image" src="')[1:]]
    assert len(urls) == 60
    etags = [client.get(url).headers["ETag"] for url in urls]  # fill the cache
    served, revalidated = [], []
    for _round in range(5):
        started = time.perf_counter()
        for url in urls:
            client.get(url)
        served.append(time.perf_counter() - started)
        started = time.perf_counter()
        for url, etag in zip(urls, etags, strict=True):
            assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
        revalidated.append(time.perf_counter() - started)
    print(
        f"\nwarm grid of 60 small images: served {min(served) * 1000:.1f} ms best, {max(served) * 1000:.1f} ms worst;"
        f" revalidated (304) {min(revalidated) * 1000:.1f} ms best, {max(revalidated) * 1000:.1f} ms worst"
    )


def test_deck_image_and_proxy_pdf(sample_catalogue, tmp_path: Path) -> None:
    """3. A deck image (cold face cache) and a 60-card proxy PDF of 20 distinct cards."""
    from catalog.decks.check import check_decklist
    from catalog.images import decks as deckimages
    from catalog.images import proxies
    from tests.kits.deck import legal_samsara_list

    text = legal_samsara_list(sample_catalogue)
    with Session(sample_catalogue) as session:
        result = check_decklist(session=session, text=text, game="samsara")
        rows = deckimages.deck_rows(result.deck)
        started = time.perf_counter()
        faces = deckimages.load_faces(
            session=session, game="samsara", keys=[r.key for r in rows], size="small", scan_dir=None
        )
        data = deckimages.render_deck_image(
            rows=rows, faces=faces, verdict=result.verdict, deck_name="样例", game_name="轮回残响", format_name="M8"
        )
        image_seconds = time.perf_counter() - started
        proxy_rows = [deckimages.DeckRow("main", r.key, r.name, 3) for r in rows[:20]]
        started = time.perf_counter()
        large = deckimages.load_faces(
            session=session, game="samsara", keys=[r.key for r in proxy_rows], size="large", scan_dir=None
        )
        faces_seconds = time.perf_counter() - started
        pdf = proxies.render_proxies(cards=[(large[r.key], r.count) for r in proxy_rows])
        pdf_seconds = time.perf_counter() - started
    copies = sum(r.count for r in proxy_rows)
    print(
        f"\ndeck image: {len(rows)} distinct cards in {image_seconds * 1000:.0f} ms ({len(data) // 1024} KB);"
        f" proxy PDF: {copies} cards, {-(-copies // 9)} pages in {pdf_seconds:.2f} s"
        f" ({faces_seconds:.2f} s drawing the large faces, {len(pdf) // 1024} KB)"
    )

"""a proxy PDF request is bounded in copies, and in memory whatever it asks.

The memory is measured in a child process (its own peak RSS, VmHWM), because the test
process itself has already grown by other tests: the child warms up with a one-card PDF (fonts,
the app, the modules), then makes the worst request the site allows — :data:`MAX_PROXIES`
copies of as many different cards — and reports how much its peak grew.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from catalog.images import decks as deckimages
from catalog.images import proxies
from catalog.models import Card, Game

# Budget for the worst allowed proxy request's peak RSS growth: ≤ 9 large faces drawn at a time
# (2.3 MB each), the JPEG encoder and the PDF in memory (≈ 5 MB for 90 distinct faces). Pages
# are no longer bitmaps (catalog.images.proxies); the budget stays where it was set.
PEAK_GROWTH_BUDGET_MB = 150

# The child's own high-water mark (VmHWM, kB), not getrusage's ru_maxrss: a child forked from a
# pytest worker inherits the worker's resident size at the fork in ru_maxrss (Linux keeps the
# larger of the old image's and the new one's across exec), so while the worker is larger than
# the child, ru_maxrss never moves and the growth measured would be 0 whatever the PDF costs.
CHILD = r"""
import json, sys


def peak_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


from webapp import create_app
app = create_app({"TESTING": True, "DATABASE_URL": sys.argv[1], "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})
app.instance_path = sys.argv[2]
client = app.test_client()
names = json.loads(sys.argv[3])
warm = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": f"1 {names[0]}"})
assert warm.status_code == 200, warm.status_code
before = peak_kb()
deck = "\n".join(f"1 {name}" for name in names)
response = client.get("/decks/proxies.pdf", query_string={"game": "samsara", "list": deck})
after = peak_kb()
print(json.dumps({"status": response.status_code, "bytes": len(response.data), "growth_kb": after - before}))
"""


def _card_names(engine: Engine, count: int) -> list[str]:
    with Session(engine) as session:
        game_id = session.exec(select(Game.id).where(Game.slug == "samsara")).one()
        query = select(Card.name).where(Card.game_id == game_id).order_by(col(Card.id)).limit(count)
        return list(session.exec(query))


def test_worst_allowed_proxy_pdf_stays_within_its_memory_budget(
    sample_catalogue: Engine, database_url: str, tmp_path: Path
) -> None:
    names = _card_names(sample_catalogue, proxies.MAX_PROXIES)
    assert len(names) == proxies.MAX_PROXIES
    sample_catalogue.dispose()
    run = subprocess.run(
        [sys.executable, "-c", CHILD, database_url, str(tmp_path / "instance"), json.dumps(names, ensure_ascii=False)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["status"] == 200
    growth_mb = figures["growth_kb"] / 1024
    print(f"worst allowed proxy PDF: {figures['bytes'] / 1e6:.1f} MB, peak RSS growth {growth_mb:.0f} MB")
    assert growth_mb < PEAK_GROWTH_BUDGET_MB


def test_a_deck_of_more_proxies_than_one_pdf_holds_is_refused(sample_app: Any) -> None:
    names = _card_names_from_app(sample_app)
    too_many = {"game": "samsara", "list": f"{proxies.MAX_PROXIES + 1} {names[0]}"}
    response = sample_app.test_client().get("/decks/proxies.pdf", query_string=too_many)
    assert response.status_code == 400
    assert f"最多打印 {proxies.MAX_PROXIES} 张" in response.get_data(as_text=True)
    huge = {"game": "samsara", "list": f"999 {names[0]}\n999 {names[1]}"}  # the report's 12 GB request
    assert sample_app.test_client().get("/decks/proxies.pdf", query_string=huge).status_code == 400


def _card_names_from_app(app: Any) -> list[str]:
    from webapp.db import get_engine

    with app.app_context():
        return _card_names(get_engine(), 2)


def test_a_want_list_longer_than_one_pdf_prints_its_first_proxies(sample_catalogue: Engine) -> None:
    from tests.kits.deck import pdf_pages

    with Session(sample_catalogue) as session:
        card = session.exec(select(Card).order_by(col(Card.id))).first()
        assert card is not None and card.id is not None
        wanted = [(card_game(session, card), deckimages.FaceKey(card.id), proxies.MAX_PROXIES + 11)]
        data = proxies.proxies_of_cards(session=session, wanted=wanted, scan_dir=None, title="需求列表")
    assert pdf_pages(data)[0] == proxies.MAX_PROXIES // proxies.PER_PAGE


def card_game(session: Session, card: Card) -> str:
    return session.exec(select(Game.slug).where(Game.id == card.game_id)).one()

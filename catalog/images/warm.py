"""Faces drawn before anyone asks for them: ``lunzang images warm``.

Every printing's face at the sizes the pages show, drawn once per printing and data version into
the face cache (files named by :func:`catalog.images.keys.cache_key`, the folder every worker
and server reads), so a results page's 50–60 images are served as static files from its first
visit. Faces already drawn for the current data are left alone; printings with an uploaded
scan are skipped (their scan is what the pages show).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session, col, select

from catalog.games import GAMES
from catalog.images import faces
from catalog.images.keys import cache_key, cache_path, image_version, scan_hashes
from catalog.models import Card, CardSet, Game, Printing

# The grid's tiles (and a phone's srcset) and the card page's face.
WARM_SIZES = ("small", "normal")


@dataclass
class WarmReport:
    drawn: int = 0
    kept: int = 0  # already in the cache for the current data
    scans: int = 0  # printings showing an uploaded scan instead


def warm_faces(
    *,
    session: Session,
    cache_dir: Path,
    game: str | None = None,
    sizes: tuple[str, ...] = WARM_SIZES,
    fmt: str = "webp",
    progress: Callable[[WarmReport], None] | None = None,
) -> WarmReport:
    """Draw every missing face of ``game`` (every imported game when ``None``) at ``sizes``.
    Reads only: the caller's transaction is left as it was."""
    report = WarmReport()
    with_scan = scan_hashes(session)
    games = session.scalars(select(Game).where(Game.slug == game) if game else select(Game))
    for game_row in games:
        if game_row.slug not in GAMES:
            continue
        module = GAMES[game_row.slug]  # as the image URLs and the image route key the face
        rows = session.execute(
            select(Printing, Card, CardSet)
            .join(Card, col(Card.id) == col(Printing.card_id))
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .where(CardSet.game_id == game_row.id)
            .order_by(col(CardSet.position), col(Printing.number))
        )
        for printing, card, card_set in rows:
            if (printing.id or 0) in with_scan:
                report.scans += 1
                continue
            version = image_version(card, printing, card_set, module)
            for size in sizes:
                key = cache_key(module.slug, card_set.code, printing.number, version, size, fmt)
                if cache_path(cache_dir, key, fmt).exists():
                    report.kept += 1
                    continue
                faces.card_image(card, printing, card_set, module, cache_dir=cache_dir, size=size, fmt=fmt)
                report.drawn += 1
                if progress is not None and report.drawn % 100 == 0:
                    progress(report)
    return report

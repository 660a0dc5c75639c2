"""How many copies the signed-in user owns of the printings on a page (the +1 / −1 buttons)."""

from __future__ import annotations

from collections.abc import Iterable

from flask_login import current_user

from catalog.collection.views import owned_counts
from webapp.db import get_session


def owned_for(printing_ids: Iterable[int | None]) -> dict[int, int] | None:
    """Copies owned per printing in one query; ``None`` for a visitor (no buttons shown)."""
    if not current_user.is_authenticated:
        return None
    ids = [pid for pid in printing_ids if pid is not None]
    return owned_counts(session=get_session(), user_id=int(current_user.id), printing_ids=ids)

"""A booster opening into the collection, at most once per user, set and seed.

The packs page and ``POST /api/v1/packs/open`` re-open a set with a seed (the same seed gives
the same cards) and add the cards through :func:`catalog.collection.ledger.add_opening`, whose
ledger rows carry reason ``pack`` and ref ``"<SET> seed <S>"``. A double-click, a reload of the
form, or a replayed API call must not add the cards twice, so :func:`add_opening_once` refuses
when the user already has a ``pack`` ledger row with that ref on a printing of that set.

The guard is per set and seed, whatever the count: 1 pack and 1 box opened with the same seed
begin with the same pack, so adding both would count those cards twice. Concurrent requests of
one user are serialised first (the user's row is locked on PostgreSQL; on SQLite the caller's
writer transaction, ``BEGIN IMMEDIATE``, already holds the write lock), so two simultaneous
clicks add the cards exactly once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import DEFAULT_GRADE, LEDGER, ItemChange, add_opening, lock_user
from catalog.errors import LunzangError, Message


class OpeningAlreadyAdded(LunzangError):
    """This user already added the opening of this set and seed: nothing changed."""

    code = "opening_already_added"


def opening_ref(opening: Any) -> str:
    """The ledger ref :func:`add_opening` writes for an opening."""
    return f"{opening.model.set_code} seed {opening.seed}"


def opening_added(*, session: Session, user_id: int, opening: Any) -> bool:
    """Whether the user's ledger already holds this opening (same set and seed)."""
    printing_ids = [p.id for p in opening.model.printings]
    found = session.scalar(
        select(LEDGER.c.id)
        .where(
            LEDGER.c.user_id == user_id,
            LEDGER.c.reason == "pack",
            LEDGER.c.ref == opening_ref(opening),
            LEDGER.c.printing_id.in_(printing_ids),
        )
        .limit(1)
    )
    return found is not None


def add_opening_once(
    *, session: Session, user_id: int, opening: Any, grade: ItemGrade = DEFAULT_GRADE, now: datetime
) -> list[ItemChange]:
    """Add a booster opening to the collection unless this user already added it (no commit).

    Raises :class:`OpeningAlreadyAdded` (nothing changed) for a second add of the same set and
    seed. The caller's transaction must be a writer (``catalog.db.transaction(write=True)``; the
    web opens every POST as one).
    """
    # Serialise this user's concurrent adds: the second waits here, then sees the first's rows.
    lock_user(session, user_id)
    if opening_added(session=session, user_id=user_id, opening=opening):
        code, seed = opening.model.set_code, opening.seed
        raise OpeningAlreadyAdded(
            Message(
                f"这次开包（{code}，种子 {seed}）已经加入过你的收藏，不会重复添加；换一个种子再开一次吧",
                f"this opening ({code}, seed {seed}) is already in your collection and is not added twice; "
                f"open again with another seed",
            )
        )
    return add_opening(session=session, user_id=user_id, opening=opening, grade=grade, now=now)

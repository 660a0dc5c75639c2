"""Opening packs and boxes (DESIGN §7): ``open_packs`` and what an opening turns into."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sqlmodel import Session

from catalog.boosters.engine import draw_packs
from catalog.boosters.model import PackModel, PackPrinting, check_counts, check_seed, load_pack_model, make_rng
from catalog.games import DEFAULT_GAME


@dataclass(frozen=True)
class Opening:
    """The boxes of one opening: ``boxes[b][p]`` is pack p of box b, a list of printings."""

    model: PackModel
    seed: int
    boxes: list[list[list[PackPrinting]]]
    packs_requested: int | None = None  # --packs N: one box holding just those packs

    def all_cards(self) -> list[PackPrinting]:
        return [card for box in self.boxes for pack in box for card in pack]

    def rarity_counts(self) -> dict[str, int]:
        """Cards of each rarity in the whole opening, lowest rarity first."""
        counts = {r: 0 for r in self.model.pools}
        for card in self.all_cards():
            counts[card.rarity] += 1
        return {r: n for r, n in counts.items() if n}

    def best_pulls(self, *, limit: int | None = None) -> list[tuple[PackPrinting, int]]:
        """Distinct printings with their copies, highest rarity first (then collector number)."""
        index = {p.id: i for i, p in enumerate(self.model.printings)}
        rank = {r: i for i, r in enumerate(self.model.pools)}
        tally: dict[int, tuple[PackPrinting, int]] = {}
        for card in self.all_cards():
            seen = tally.get(card.id)
            tally[card.id] = (card, (seen[1] if seen else 0) + 1)
        ranked = sorted(tally.values(), key=lambda pc: (-rank[pc[0].rarity], index[pc[0].id]))
        return ranked[:limit] if limit is not None else ranked


def open_model(model: PackModel, *, seed: int, packs: int | None = None, boxes: int | None = None) -> Opening:
    """Open ``boxes`` boxes (or ``packs`` packs) of a model with ``Generator(PCG64(seed))``.

    ``packs=N`` opens ⌈N/B⌉ whole boxes and keeps their first N packs, reported as one box: a
    box collation then still holds per physical box, and ``--packs 16`` shows the same cards
    as ``--boxes 1`` with the same seed. Within a pack the cards are listed slot by slot and,
    inside a slot, by rarity then collector number, so an EL pack ends with its "C or higher"
    card (the reveal keeps the best for last).
    """
    packs, boxes = check_counts(packs=packs, boxes=boxes)
    seed = check_seed(seed)
    rng = make_rng(seed)
    per_box = model.packs_per_box
    physical = boxes if boxes is not None else math.ceil((packs or 0) / per_box)
    cards = draw_packs(model, rng, physical)
    if packs is not None:
        cards = cards[:packs]
    # Sort within each slot: indices are ordered by rarity, then collector number.
    start = 0
    for slot in model.slots:
        cards[:, start : start + slot.count] = np.sort(cards[:, start : start + slot.count], axis=1)
        start += slot.count
    printings = model.printings
    as_packs = [[printings[i] for i in row] for row in cards.tolist()]
    grouped = [as_packs] if packs is not None else [as_packs[b * per_box : (b + 1) * per_box] for b in range(physical)]
    return Opening(model=model, seed=seed, boxes=grouped, packs_requested=packs)


def open_packs(
    *,
    session: Session,
    set_code: str,
    game: str = DEFAULT_GAME,
    packs: int | None = None,
    boxes: int | None = None,
    seed: int | None = None,
) -> Opening:
    """Open packs or boxes of a set. No seed → a fresh one, returned in the opening.

    The randomness is the seed (``Generator(PCG64(seed))``): the same seed and catalogue give
    the same cards on every machine and database, so an opening is shared as a link.
    """
    check_counts(packs=packs, boxes=boxes)
    seed = check_seed(seed)
    model = load_pack_model(session=session, set_code=set_code, game=game)
    return open_model(model, seed=seed, packs=packs, boxes=boxes)


@dataclass(frozen=True)
class CollectionLine:
    """One line for the future collection ledger: a printing, how many, and why."""

    printing_id: int
    quantity: int
    reason: str


def collection_lines(opening: Opening) -> list[CollectionLine]:
    """The opening as ledger lines: one per printing, quantity = copies, reason with the seed.

    This is the hook for "add these cards to my collection" (once accounts exist):
    the collection use case will take these lines and write, in one transaction, each
    quantity change plus a ``LedgerEntry`` whose reason is ``pack opening, seed S`` — the seed
    lets anyone replay the very opening the cards came from. Lines are in collector order.
    """
    reason = f"pack opening, seed {opening.seed}"
    order = {p.id: i for i, p in enumerate(opening.model.printings)}
    counts: dict[int, int] = {}
    for card in opening.all_cards():
        counts[card.id] = counts.get(card.id, 0) + 1
    return [CollectionLine(pid, n, reason) for pid, n in sorted(counts.items(), key=lambda kv: order[kv[0]])]

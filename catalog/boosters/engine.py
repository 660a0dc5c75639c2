"""The vectorised pack engine: whole boxes of packs as one integer array, no loop per pack.

``draw_packs`` returns, for ``boxes × packs_per_box`` packs, the index (into
``PackModel.printings``) of every card. Openings, the Monte Carlo and the tests all use it, so
a seed means the same cards everywhere.

How a slot is filled (the rules the odds in ``odds.py`` are computed from):

- rarities: each of the slot's ``count`` positions independently by the weights, or — with a
  ``box_collation`` — the box's exact multiset of rarities (``count × packs_per_box`` labels)
  in a uniformly random order, dealt to the packs in turn;
- cards: within one pack and one slot, the cards of one rarity are distinct printings drawn
  uniformly (a uniform random subset). The issue asks for "the 7 commons of one pack distinct
  when the set has enough"; we apply the same rule to every rarity of every slot. When a slot
  needs more cards of a rarity than the set has (m > n), every printing appears ⌊m/n⌋ times
  and a uniform subset of m mod n printings once more (as spread out as possible). Two
  different slots are independent: the 8th card of an EL pack may repeat one of its commons.
"""

from __future__ import annotations

import numpy as np

from catalog.boosters.model import PackModel

Array = np.ndarray


def _floyd_columns(rng: np.random.Generator, n: int, k: int, rows: int) -> Array:
    """The fast path of ``_floyd``: the same k ≤ n ≤ 63 for every row, position-major (k, rows).

    The picks so far are one bit mask per row, and plain int64 arithmetic replaces boolean
    masks: the fastest of the variants we measured (about twice the straightforward version).
    """
    bounds = (n - k + np.arange(k)).astype(np.int64)
    columns = (rng.random((k, rows)) * (bounds + 1)[:, None]).astype(np.int64)
    seen = np.left_shift(1, columns[0])
    for j in range(1, k):  # a loop over positions in a slot (≤ count), not over packs
        t = columns[j]
        taken = np.right_shift(seen, t) & 1
        np.maximum(t, taken * bounds[j], out=t)  # t, or n−k+j (> every earlier pick) if taken
        seen |= np.left_shift(1, t)
    return columns


def _floyd(rng: np.random.Generator, n: int, k: Array) -> Array:
    """Uniform random k[p]-subsets of range(n), row p in its first k[p] columns (rest −1); k ≤ n.

    Floyd's algorithm, vectorised over rows: at step j pick t in [0, n−k+j]; if t was picked
    already take n−k+j instead (it cannot have been). It needs k random numbers per row and no
    shuffle of the whole pool.
    """
    rows = k.shape[0]
    kmax = int(k.max()) if rows else 0
    if kmax == 0:
        return np.full((rows, 0), -1, dtype=np.int32)
    steps = np.arange(kmax)
    constant = bool((k == kmax).all())
    # t_j = ⌊u·(top_j + 1)⌋ with u uniform in [0, 1): five times faster than integers() with
    # per-element bounds, and uniform up to u's 53-bit resolution (a bias below 10⁻¹⁴).
    # Position-major (kmax, rows): each step of the loop below reads one contiguous row.
    if constant:
        bounds = (n - kmax + steps).astype(np.int64)[:, None]  # the same for every row
    else:
        bounds = (n - k[None, :] + steps[:, None]).astype(np.int64)
    columns = (rng.random((kmax, rows)) * np.maximum(bounds + 1, 1)).astype(np.int64)
    if n <= 63:
        # Pools of up to 63 printings: the picks so far as one bit mask per row, and plain
        # int64 arithmetic instead of boolean masks: the fastest of the variants we measured
        # (about twice the straightforward version).
        seen = np.left_shift(1, columns[0])
        for j in range(1, kmax):  # a loop over positions in a slot (≤ count), not over packs
            t = columns[j]
            taken = np.right_shift(seen, t) & 1
            np.maximum(t, taken * bounds[j], out=t)  # t, or n−k+j (> every earlier pick) if taken
            seen |= np.left_shift(1, t)
        out = columns.T.astype(np.int32)
    else:
        out = columns.T.astype(np.int32)
        for j in range(1, kmax):
            t = out[:, j]
            dup = (out[:, :j] == t[:, None]).any(axis=1)
            out[:, j] = np.where(dup, np.broadcast_to(bounds[j], t.shape), t)
    if not constant:
        out[steps[None, :] >= k[:, None]] = -1
    return out


def distinct_picks(rng: np.random.Generator, n: int, k: Array) -> Array:
    """Row p: k[p] printings of a pool of n, distinct while k[p] ≤ n (−1 pads to the widest row).

    With k > n every printing comes ⌊k/n⌋ times, then a uniform subset of k mod n once more.
    """
    k = np.asarray(k, dtype=np.int64)
    if n <= 0:
        raise ValueError("empty pool")
    if (k <= n).all():
        return _floyd(rng, n, k)
    whole = (k // n) * n
    rest = _floyd(rng, n, k - whole)
    kmax = int(k.max())
    steps = np.arange(kmax)[None, :]
    out = np.where(steps < whole[:, None], steps % n, -1).astype(np.int32)
    if rest.shape[1]:
        at = steps - whole[:, None]
        inside = (at >= 0) & (at < (k - whole)[:, None])
        taken = np.take_along_axis(rest, np.clip(at, 0, rest.shape[1] - 1), axis=1)
        out[inside] = taken[inside]
    return out


def draw_packs(model: PackModel, rng: np.random.Generator, boxes: int) -> Array:
    """``(boxes × packs_per_box, cards_per_pack)`` printing indices, slot by slot.

    Packs ``b·B … b·B+B−1`` form box ``b`` (``B = packs_per_box``): a box collation is dealt
    within each of those groups. The sequence of generator calls depends only on the model and
    ``boxes``, so a seed replays exactly.
    """
    per_box = model.packs_per_box
    packs = boxes * per_box
    offsets = model.offsets()
    out = np.empty((packs, model.cards_per_pack), dtype=np.int32)
    column = 0
    for slot in model.slots:
        k = slot.count
        rarities = slot.rarities
        first = np.array([offsets[r] for r in rarities], dtype=np.int32)
        sizes = np.array([len(model.pools[r]) for r in rarities], dtype=np.int32)
        if len(rarities) == 1 and k <= sizes[0] <= 63:
            columns = _floyd_columns(rng, int(sizes[0]), k, packs)
            np.add(columns.T, first[0], out=out[:, column : column + k], casting="unsafe")
            column += k
            continue
        if len(rarities) == 1:
            picks = distinct_picks(rng, int(sizes[0]), np.full(packs, k))
            out[:, column : column + k] = first[0] + picks
            column += k
            continue
        if slot.collation is None and k == 1:
            # One weighted card: its rarity is the number of cumulative weights u passes (a few
            # branch-free comparisons: 3× faster than searchsorted on random keys), then a
            # uniform printing of that rarity.
            u, v = rng.random((2, packs))
            label = np.zeros(packs, dtype=np.intp)
            for bound in np.cumsum([slot.weights[r] for r in rarities])[:-1]:
                label += u >= bound
            size = sizes[label]
            within = np.minimum((v * size).astype(np.int32), size - 1)
            out[:, column] = first[label] + within
            column += 1
            continue
        if slot.collation is not None:
            dealt = np.repeat(np.arange(len(rarities)), [slot.collation[r] for r in rarities])
            order = np.argsort(rng.random((boxes, per_box * k)), axis=1)
            labels = dealt[order].reshape(packs, k)
        else:
            cumulative = np.cumsum([slot.weights[r] for r in rarities])[:-1]
            labels = np.searchsorted(cumulative, rng.random((packs, k)), side="right")
        if k == 1:
            label = labels[:, 0]
            size = sizes[label]
            within = np.minimum((rng.random(packs) * size).astype(np.int32), size - 1)
            out[:, column] = first[label] + within
        else:
            block = np.empty((packs, k), dtype=np.int32)
            for index in range(len(rarities)):
                mask = labels == index
                wanted = mask.sum(axis=1)
                if not wanted.any():
                    continue
                picks = distinct_picks(rng, int(sizes[index]), wanted)
                # Row-major order lines the j-th True of each row up with its j-th pick.
                block[mask] = first[index] + picks[picks >= 0]
            out[:, column : column + k] = block
        column += k
    return out


def box_counts(model: PackModel, rng: np.random.Generator, boxes: int) -> Array:
    """``(boxes, printings)`` copies of each printing in each of ``boxes`` fresh boxes."""
    cards = draw_packs(model, rng, boxes)
    width = len(model.printings)
    per_box = model.packs_per_box * model.cards_per_pack
    keys = cards.reshape(boxes, per_box) + (np.arange(boxes, dtype=np.int32) * width)[:, None]
    return np.bincount(keys.ravel(), minlength=boxes * width).reshape(boxes, width)


def count_printings(model: PackModel, rng: np.random.Generator, *, packs: int, chunk_packs: int = 1 << 16) -> Array:
    """Copies of each printing in ``packs`` packs (whole boxes, the last one cut), in chunks.

    Memory stays that of one chunk (a few MB) whatever ``packs`` is: 10⁸ packs run in a
    constant footprint. The benchmark measures the engine's packs per second with it.
    """
    per_box = model.packs_per_box
    totals = np.zeros(len(model.printings), dtype=np.int64)
    boxes_per_chunk = max(1, chunk_packs // per_box)
    left = packs
    while left > 0:
        boxes = min(boxes_per_chunk, -(-left // per_box))
        cards = draw_packs(model, rng, boxes)[:left]
        totals += np.bincount(cards.ravel(), minlength=len(totals))
        left -= cards.shape[0]
    return totals

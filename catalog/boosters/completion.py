"""How many boxes a set takes: vectorised Monte Carlo, and the exact expectation for small sets.

"Complete" = owning at least one copy of every printing a pack can contain; "playset" = three
of each (EL's copy limit). We count whole boxes opened (a box is what one buys), from the
first box on. Printings of a rarity no slot can give (none in the sample data) are left out of
the target and counted in ``unobtainable``.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from math import comb, factorial, prod
from typing import Any

import numpy as np

from catalog.boosters.engine import box_counts
from catalog.boosters.model import MAX_TRIALS, BadCount, Message, PackModel, check_seed, make_rng

PLAYSET = 3
# Packs generated per numpy step: bounds memory whatever the trials, and small enough to stay
# in the CPU caches (64k packs ran twice as fast as 1M in the benchmark).
CHUNK_PACKS = 1 << 16
TRIAL_CELLS = 1 << 22  # trials × printings held at once (counts), likewise
MAX_BOXES_PER_TRIAL = 1_000_000
EXACT_MAX_TERMS = 200_000  # compositions summed by the exact formula


@dataclass(frozen=True)
class Distribution:
    """Boxes needed over the trials: mean, percentiles and the histogram {boxes: trials}."""

    mean: float
    p50: int
    p90: int
    p99: int
    histogram: dict[int, int]
    exact_mean: float | None = None


@dataclass(frozen=True)
class Completion:
    model: PackModel
    trials: int
    seed: int
    complete: Distribution
    playset: Distribution
    packs_simulated: int
    unobtainable: int = 0
    copies: int = field(default=PLAYSET)


def _distribution(boxes: np.ndarray, exact: float | None = None) -> Distribution:
    p50, p90, p99 = (int(v) for v in np.quantile(boxes, [0.5, 0.9, 0.99], method="inverted_cdf"))
    values, counts = np.unique(boxes, return_counts=True)
    return Distribution(
        float(boxes.mean()), p50, p90, p99, {int(v): int(c) for v, c in zip(values, counts, strict=True)}, exact
    )


def simulate_boxes_needed(
    model: PackModel,
    rng: np.random.Generator,
    *,
    trials: int,
    copies: tuple[int, ...] = (1, PLAYSET),
    owned: tuple[int, ...] | None = None,
) -> tuple[dict[int, np.ndarray], int]:
    """Per trial, the boxes opened until every obtainable printing has ``c`` copies, per c.

    Trials advance together: each step opens ``step`` boxes for every unfinished trial in one
    ``box_counts`` call (a loop over steps, never over packs), takes running totals with
    ``cumsum`` and finds the first box where the scarcest printing reaches c. ``step`` grows
    as trials finish so that each step generates about ``CHUNK_PACKS`` packs; trials are run in
    batches of ``TRIAL_CELLS / printings``. Memory is bounded by those two constants.
    ``owned`` (copies per printing, in ``model.printings`` order) starts every trial from a
    collection: a target it already meets takes 0 boxes ("from my collection").
    Returns ({c: boxes per trial}, packs generated).
    """
    targets = np.array([i for i, p in enumerate(model.printings) if p.rarity in model.obtainable()], dtype=np.int64)
    width = len(targets)
    partial = width < len(model.printings)  # some printings are not targets: keep the others
    per_box = model.packs_per_box
    results = {c: np.zeros(trials, dtype=np.int64) for c in copies}
    most = max(copies)
    packs_done = 0
    batch = max(1, min(TRIAL_CELLS // max(width, 1), CHUNK_PACKS // per_box))
    start_counts = np.zeros(width, dtype=np.int32)
    if owned is not None:
        start_counts = np.minimum(np.asarray(owned, dtype=np.int64)[targets], most).astype(np.int32)
    for start in range(0, trials, batch):
        size = min(batch, trials - start)
        held = np.tile(start_counts, (size, 1))
        # -1: not reached yet; 0: reached before any box (the collection already has it)
        initial = held.min(axis=1) if width else np.full(size, most)
        found = {c: np.where(initial >= c, 0, -1).astype(np.int64) for c in copies}
        active = np.flatnonzero(found[most] == -1)
        opened = 0
        while active.size:
            step = int(min(max(1, CHUNK_PACKS // (active.size * per_box)), 4096))
            fresh = box_counts(model, rng, active.size * step)
            if partial:
                fresh = fresh[:, targets]
            fresh = fresh.reshape(active.size, step, width)
            packs_done += active.size * step * per_box
            if step > 1:
                fresh = np.cumsum(fresh, axis=1, dtype=np.int32)
            running = held[active][:, None, :] + fresh
            scarcest = running.min(axis=2)  # (active, step)
            for c in copies:
                hit = scarcest >= c
                reached = hit.any(axis=1) & (found[c][active] == -1)
                found[c][active[reached]] = opened + hit[reached].argmax(axis=1) + 1
            held[active] = running[:, -1, :]
            opened += step
            active = active[found[most][active] == -1]
            if opened > MAX_BOXES_PER_TRIAL:
                raise BadCount(Message("这个系列太难集齐，模拟超过了上限", "the set takes too many boxes to simulate"))
        for c in copies:
            results[c][start : start + size] = found[c]
    return results, packs_done


def complete_set(
    model: PackModel, *, trials: int, seed: int | None = None, owned: tuple[int, ...] | None = None
) -> Completion:
    """Monte Carlo of the boxes needed to complete the set and to own a playset of it.

    ``seed`` as for openings (``None`` → a fresh one, returned). For small sets the exact
    expected boxes to complete (``exact_expected_boxes``) is attached as ``exact_mean``.
    ``owned``: start from a collection (copies per printing in ``model.printings`` order); the
    exact mean then counts only the printings still lacking (a playset has no closed form here:
    Monte Carlo).
    """
    if not 1 <= trials <= MAX_TRIALS:
        raise BadCount(
            Message(
                f"模拟次数应在 1 到 {MAX_TRIALS} 之间，而不是 {trials}",
                f"trials must be between 1 and {MAX_TRIALS}, not {trials}",
            )
        )
    seed = check_seed(seed)
    found, packs = simulate_boxes_needed(model, make_rng(seed), trials=trials, owned=owned)
    lacking = None
    if owned is not None:
        have = dict(zip((p.id for p in model.printings), owned, strict=True))
        lacking = {r: sum(1 for p in model.pools[r] if have.get(p.id, 0) < 1) for r in model.obtainable()}
    unobtainable = sum(1 for p in model.printings if p.rarity not in model.obtainable())
    return Completion(
        model=model,
        trials=trials,
        seed=seed,
        complete=_distribution(found[1], exact_expected_boxes(model, lacking=lacking)),
        playset=_distribution(found[PLAYSET]),
        packs_simulated=packs,
        unobtainable=unobtainable,
    )


# ---- exact expectation ------------------------------------------------------------------


def _avoid(n: int, m: int, s: int) -> Decimal:
    """P(a uniform m-subset of n printings misses s given ones) = C(n−s, m)/C(n, m) (m ≤ n).

    With m > n (every printing at least once) it is 0 unless s = 0.
    """
    if s == 0:
        return Decimal(1)
    if m >= n:
        return Decimal(0)
    return Decimal(comb(n - s, m)) / Decimal(comb(n, m))


def _slot_pack_avoid(slot: Any, sizes: dict[str, int], missing: dict[str, int]) -> Decimal:
    """P(one pack's cards from this weighted slot avoid a given set of printings).

    ``missing[r]`` printings of rarity r are to be avoided. Summed over the multinomial
    rarity counts m of the slot: Σ_m k!/Π m_r! Π p_r^m_r · Π_r C(n_r−s_r, m_r)/C(n_r, m_r).
    """
    rarities = slot.rarities
    k = slot.count
    if len(rarities) == 1:
        return _avoid(sizes[rarities[0]], k, missing.get(rarities[0], 0))
    if k == 1:  # the usual rare slot: 1 − Σ_r p_r·s_r/n_r
        return Decimal(1) - sum((Decimal(slot.weights[r]) * missing.get(r, 0) / sizes[r] for r in rarities), Decimal(0))
    total = Decimal(0)
    for split in itertools.product(range(k + 1), repeat=len(rarities)):
        if sum(split) != k:
            continue
        weight = Decimal(factorial(k)) / Decimal(prod(factorial(m) for m in split))
        for r, m in zip(rarities, split, strict=True):
            weight *= Decimal(slot.weights[r]) ** m * _avoid(sizes[r], m, missing.get(r, 0))
            if not weight:
                break
        total += weight
    return total


# Exact means already computed, by the pack structure and what is lacking: the sum over an EL
# set's 27,720 terms took 0.65 s of the completion page's 0.74 (≤ 300 ms), and it
# depends on nothing that changes between visits. A few hundred small floats at most.
_EXACT_CACHE: dict[str, float | None] = {}
_EXACT_CACHE_SIZE = 512
_EXACT_LOCK = threading.Lock()


def exact_expected_boxes(
    model: PackModel, *, max_terms: int = EXACT_MAX_TERMS, lacking: dict[str, int] | None = None
) -> float | None:
    """Cached :func:`_exact_expected_boxes` (same arguments, same answer)."""
    sizes = tuple((r, len(model.pools[r])) for r in model.obtainable())
    wanted = None if lacking is None else tuple(sorted(lacking.items()))
    key = repr((model.packs_per_box, model.slots, sizes, wanted, max_terms))
    with _EXACT_LOCK:
        if key in _EXACT_CACHE:
            return _EXACT_CACHE[key]
    value = _exact_expected_boxes(model, max_terms=max_terms, lacking=lacking)
    with _EXACT_LOCK:
        if len(_EXACT_CACHE) >= _EXACT_CACHE_SIZE:
            _EXACT_CACHE.pop(next(iter(_EXACT_CACHE)))
        _EXACT_CACHE[key] = value
    return value


def _exact_expected_boxes(
    model: PackModel, *, max_terms: int = EXACT_MAX_TERMS, lacking: dict[str, int] | None = None
) -> float | None:
    """E[boxes to own every obtainable printing], exactly, or ``None`` when the set is too big.

    Boxes are independent and alike, so with N the boxes needed,
    E[N] = Σ_{b≥0} P(N > b) and, by inclusion–exclusion over the set S of printings still
    missing after b boxes, P(N > b) = Σ_{S≠∅} (−1)^{|S|+1} a(S)^b with a(S) = P(one box contains
    none of S). Summing the geometric series: E[N] = Σ_{S≠∅} (−1)^{|S|+1} / (1 − a(S)).
    a(S) depends on S only through s_r = |S ∩ rarity r|, so the sum runs over the vectors
    (s_r) with multiplicity Π_r C(n_r, s_r): Π_r (n_r + 1) terms (27,720 for an EL set of
    23/10/6/4/2). Per pack, a weighted slot avoids S with ``_slot_pack_avoid``; the box is the
    product over slots of that to the power B. A collated slot of one card per pack deals c_r
    cards of r per box, each uniform over its n_r printings: Π_r (1 − s_r/n_r)^{c_r}. Collated
    slots of several cards per pack are not handled (``None``). The alternating sum cancels
    heavily, so it runs in 60-digit decimal arithmetic.

    ``lacking`` (printings of each rarity not owned yet; default: all): completing a collection
    is the same sum over the subsets of what it lacks — s_r runs to t_r, multiplicity
    Π_r C(t_r, s_r) — since a box's chance to avoid S depends on S only through (s_r).
    """
    rarities = model.obtainable()
    sizes = {r: len(model.pools[r]) for r in rarities}
    wanted = sizes if lacking is None else {r: min(lacking.get(r, 0), sizes[r]) for r in rarities}
    if prod(n + 1 for n in wanted.values()) > max_terms:
        return None
    if any(s.collation is not None and s.count > 1 and len(s.rarities) > 1 for s in model.slots):
        return None
    B = model.packs_per_box
    with localcontext() as context:
        context.prec = 60
        total = Decimal(0)
        cache: dict[tuple[int, tuple[int, ...]], Decimal] = {}
        for split in itertools.product(*(range(wanted[r] + 1) for r in rarities)):
            if not any(split):
                continue
            missing = dict(zip(rarities, split, strict=True))
            box = Decimal(1)
            for index, slot in enumerate(model.slots):
                key = (index, tuple(missing.get(r, 0) for r in slot.rarities))
                if key not in cache:
                    if slot.collation is not None and len(slot.rarities) > 1:
                        value = Decimal(1)
                        for r, c in slot.collation.items():
                            value *= (Decimal(1) - Decimal(missing.get(r, 0)) / Decimal(sizes[r])) ** c
                    else:
                        value = _slot_pack_avoid(slot, sizes, missing) ** B
                    cache[key] = value
                box *= cache[key]
            multiplicity = prod(comb(wanted[r], s) for r, s in missing.items())
            sign = 1 if sum(split) % 2 else -1
            total += sign * multiplicity / (Decimal(1) - box)
        return float(total)

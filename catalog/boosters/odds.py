"""Exact odds of a pack model, in closed form (DESIGN §7 ``packs odds``): nothing is sampled.

Notation: B packs per box; a slot has k positions; a rarity r has n printings in the set.
``M`` is how many cards of rarity r one slot puts in one pack:

- independent weights p: every position is r with probability p, so M ~ Binomial(k, p);
- box collation (c cards of r per box, dealt in random order over the B·k positions of the
  box): one pack's k positions are a uniform k-subset of the B·k, so
  M ~ Hypergeometric(population B·k, c successes, k draws).

Within a pack and slot the m cards of rarity r are a uniform m-subset of the n printings
(``engine.py``), so a given printing is missing with probability g(m) = 1 − m/n (m ≤ n; the
subset misses it in C(n−1, m)/C(n, m) = (n−m)/n of the cases) and 0 when m ≥ n. Different
slots, and different packs of independent slots, are independent; the packs of one collated
box are not, which the dynamic programme in ``_collated_box_absence`` handles exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb, prod

from catalog.boosters.model import PackModel, PackPrinting, Slot


def binomial_pmf(k: int, p: float) -> list[float]:
    """P(M = m), m = 0…k, for M ~ Binomial(k, p)."""
    return [comb(k, m) * p**m * (1 - p) ** (k - m) for m in range(k + 1)]


def hypergeometric_pmf(population: int, successes: int, draws: int) -> list[float]:
    """P(M = m), m = 0…draws: m successes among ``draws`` taken without replacement."""
    total = comb(population, draws)
    return [comb(successes, m) * comb(population - successes, draws - m) / total for m in range(draws + 1)]


def slot_pmf(slot: Slot, rarity: str, packs_per_box: int) -> list[float]:
    """Distribution of M, the cards of ``rarity`` this slot puts into one pack (see above)."""
    if slot.collation is not None:
        return hypergeometric_pmf(packs_per_box * slot.count, slot.collation.get(rarity, 0), slot.count)
    return binomial_pmf(slot.count, slot.weights.get(rarity, 0.0))


def missing(m: int, n: int) -> float:
    """g(m): P(a given printing of a pool of n is absent when the slot holds m of its rarity)."""
    return max(0.0, 1.0 - m / n)


def _collated_box_absence(slot: Slot, rarity: str, packs_per_box: int, n: int) -> float:
    """P(a given printing of ``rarity`` is absent from a whole collated box's slot).

    The box holds exactly c cards of r; packs take their k positions in turn. After t packs
    have used j of the c, pack t+1 gets m of the remaining c−j among the remaining (B−t)·k
    positions (hypergeometric), and misses the printing with probability g(m). Summing over
    j as a dynamic programme gives E[Π g(m_pack)] exactly in O(B·c·k) steps.
    """
    c = (slot.collation or {}).get(rarity, 0)
    k = slot.count
    states = {0: 1.0}
    for t in range(packs_per_box):
        remaining = (packs_per_box - t) * k
        following: dict[int, float] = {}
        for used, weight in states.items():
            for m, p in enumerate(hypergeometric_pmf(remaining, c - used, k)):
                if p:
                    following[used + m] = following.get(used + m, 0.0) + weight * p * missing(m, n)
        states = following
    return sum(states.values())


@dataclass(frozen=True)
class RarityOdds:
    expected: float
    p_at_least_one: float


@dataclass(frozen=True)
class PrintingOdds:
    printing: PackPrinting
    p_pack: float  # P(at least one copy in one pack)
    p_box: float  # … in one box
    p_boxes: float  # … in n_boxes boxes
    expected_per_pack: float
    expected_per_box: float


@dataclass(frozen=True)
class Odds:
    model: PackModel
    n_boxes: int
    per_pack: dict[str, RarityOdds]
    per_box: dict[str, RarityOdds]
    per_boxes: dict[str, RarityOdds]
    printings: list[PrintingOdds]


def rarity_odds(model: PackModel, rarity: str, n_boxes: int) -> tuple[RarityOdds, RarityOdds, RarityOdds]:
    """Expected count and P(≥1) of a rarity per pack, per box and per ``n_boxes`` boxes.

    Expected per pack = Σ_slots E[M] (k·p, or c/B with collation); per box B times that.
    P(none in a pack) = Π_slots P(M = 0): (1−p)^k, or the hypergeometric C(Bk−c, k)/C(Bk, k).
    P(none in a box) = Π_slots (1−p)^(kB) for weights, and 0 for a collated slot with c > 0
    (the box holds exactly c). Boxes are independent, so P(none in N boxes) = P(none in a box)^N.
    """
    B = model.packs_per_box
    expected = sum(sum(m * p for m, p in enumerate(slot_pmf(s, rarity, B))) for s in model.slots)
    none_pack = prod(slot_pmf(s, rarity, B)[0] for s in model.slots)
    none_box = 1.0
    for slot in model.slots:
        if slot.collation is not None:
            none_box *= 0.0 if slot.collation.get(rarity, 0) > 0 else 1.0
        else:
            none_box *= (1 - slot.weights.get(rarity, 0.0)) ** (slot.count * B)
    return (
        RarityOdds(expected, 1 - none_pack),
        RarityOdds(expected * B, 1 - none_box),
        RarityOdds(expected * B * n_boxes, 1 - none_box**n_boxes),
    )


def printing_odds(model: PackModel, printing: PackPrinting, n_boxes: int) -> PrintingOdds:
    """P(≥1 copy of one printing) per pack, box and N boxes, and its expected copies.

    Per slot and pack the printing is absent with probability a = Σ_m P(M = m)·g(m) (for the
    EL common slot: M = 7 always, so a = 1 − 7/n — the distinct-commons rule; with repeats
    allowed it would be (1 − 1/n)^7). P(absent from a pack) = Π_slots a. Per box: a^B for a
    slot with weights (its packs are independent), the dynamic programme for a collated slot.
    Expected copies per pack = Σ_slots E[M]/n (each of the m is equally likely to be any of the
    n printings), per box B times that.
    """
    B = model.packs_per_box
    n = len(model.pools[printing.rarity])
    absent_pack = 1.0
    absent_box = 1.0
    expected = 0.0
    for slot in model.slots:
        pmf = slot_pmf(slot, printing.rarity, B)
        per_pack = sum(p * missing(m, n) for m, p in enumerate(pmf))
        absent_pack *= per_pack
        expected += sum(m * p for m, p in enumerate(pmf)) / n
        if slot.collation is not None:
            absent_box *= _collated_box_absence(slot, printing.rarity, B, n)
        else:
            absent_box *= per_pack**B
    return PrintingOdds(
        printing=printing,
        p_pack=1 - absent_pack,
        p_box=1 - absent_box,
        p_boxes=1 - absent_box**n_boxes,
        expected_per_pack=expected,
        expected_per_box=expected * B,
    )


def pack_odds(model: PackModel, *, n_boxes: int = 3) -> Odds:
    """Every exact number of the odds page: per rarity and per printing (see the module doc)."""
    per_pack, per_box, per_boxes = {}, {}, {}
    for rarity in model.pools:
        per_pack[rarity], per_box[rarity], per_boxes[rarity] = rarity_odds(model, rarity, n_boxes)
    # One computation per rarity: printings of a rarity share their odds.
    shared: dict[str, PrintingOdds] = {}
    printings = []
    for printing in model.printings:
        base = shared.get(printing.rarity)
        if base is None:
            base = shared[printing.rarity] = printing_odds(model, printing, n_boxes)
        printings.append(
            PrintingOdds(printing, base.p_pack, base.p_box, base.p_boxes, base.expected_per_pack, base.expected_per_box)
        )
    return Odds(model, n_boxes, per_pack, per_box, per_boxes, printings)

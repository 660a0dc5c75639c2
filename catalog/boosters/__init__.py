"""Booster simulator (issue 5, DESIGN §7): open packs and boxes, exact odds, set completion.

- ``model``: the pack model (template + printings by rarity), errors, seeds;
- ``engine``: the vectorised sampler every other part uses;
- ``opening``: ``open_packs`` and the collection hook ``collection_lines``;
- ``odds``: ``pack_odds``, exact and in closed form;
- ``completion``: ``complete_set`` (Monte Carlo) and ``exact_expected_boxes``.
"""

from catalog.boosters.completion import Completion, complete_set, exact_expected_boxes
from catalog.boosters.model import (
    MAX_BOXES,
    MAX_PACKS,
    MAX_SEED,
    BadCount,
    BadSeed,
    BoosterError,
    NoPackTemplate,
    PackModel,
    PackPrinting,
    Slot,
    UnknownGame,
    UnknownSet,
    build_model,
    check_seed,
    load_pack_model,
    make_rng,
    parse_int,
)
from catalog.boosters.odds import Odds, pack_odds
from catalog.boosters.opening import CollectionLine, Opening, collection_lines, open_model, open_packs

__all__ = [
    "MAX_BOXES",
    "MAX_PACKS",
    "MAX_SEED",
    "BadCount",
    "BadSeed",
    "BoosterError",
    "CollectionLine",
    "Completion",
    "NoPackTemplate",
    "Odds",
    "Opening",
    "PackModel",
    "PackPrinting",
    "Slot",
    "UnknownGame",
    "UnknownSet",
    "build_model",
    "check_seed",
    "collection_lines",
    "complete_set",
    "exact_expected_boxes",
    "load_pack_model",
    "make_rng",
    "open_model",
    "open_packs",
    "pack_odds",
    "parse_int",
]

"""Booster simulator (DESIGN §7): open packs and boxes, exact odds, set completion.

- ``model``: the pack model (template + printings by rarity), errors, seeds;
- ``engine``: the vectorised sampler every other part uses;
- ``opening``: ``open_packs`` and the collection hook ``collection_lines``;
- ``odds``: ``pack_odds``, exact and in closed form;
- ``completion``: ``complete_set`` (Monte Carlo) and ``exact_expected_boxes``.
"""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from catalog.boosters.completion import Completion, complete_set, exact_expected_boxes
    from catalog.boosters.opening import CollectionLine, Opening, collection_lines, open_model, open_packs

# Drawing needs numpy (~0.15 s to import): the parts that draw load on first use, so a page or
# command that only names the errors or the limits (every blueprint is imported when the app
# is created) does not pay for it.
_COMPLETION = frozenset({"Completion", "complete_set", "exact_expected_boxes"})
_OPENING = frozenset({"CollectionLine", "Opening", "collection_lines", "open_model", "open_packs"})


def __getattr__(name: str) -> Any:
    if name in _COMPLETION:
        from catalog.boosters import completion

        return getattr(completion, name)
    if name in _OPENING:
        from catalog.boosters import opening

        return getattr(opening, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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

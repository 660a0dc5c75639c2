"""A card's rules values: the fields that make two printings the same rules object, in the
form they are stored, and the digest an import compares instead of loading every card.
"""

from __future__ import annotations

import hashlib
from operator import itemgetter
from typing import Any

# The fields that make a card the same rules object. A reprint must agree on all of them.
RULES_FIELDS = (
    "type",
    "subtype",
    "attributes",
    "cost_text",
    "cost",
    "cost_total",
    "attack",
    "defense",
    "level",
    "life",
    "faction",
    "traits",
    "keywords",
    "text",
    "extra",
)
# printed_text: the words this printing has where the game allows errata (KeyForge), so the card
# page can show an older wording; empty for the other games
PRINTING_FIELDS = ("card_id", "rarity", "rarity_rank", "flavor", "illustrator", "image", "printed_text", "number_key")


def card_columns(parsed: dict[str, Any], digest: str | None = None) -> dict[str, Any]:
    """A parsed card in storage form: attributes as a string, plus the hash of its rules
    (``digest`` when the caller computed it already)."""
    values = {key: parsed[key] for key in RULES_FIELDS}
    values["attributes"] = "".join(parsed["attributes"])
    values["rules_hash"] = digest or rules_hash(values)
    return values


STORED_CARD = (*RULES_FIELDS, "rules_hash")  # a card's stored values, as a tuple (card_values)
_ATTRIBUTES_AT = RULES_FIELDS.index("attributes")
_RULES_OF = itemgetter(*RULES_FIELDS)


def card_values(parsed: dict[str, Any]) -> tuple[Any, ...]:
    """:func:`card_columns` as a tuple in :data:`STORED_CARD` order (what a checked chunk keeps:
    no key per value, and no dict to build again per card in the writer)."""
    values = list(_RULES_OF(parsed))
    values[_ATTRIBUTES_AT] = "".join(values[_ATTRIBUTES_AT])
    # the digest of rules_hash: the same list, the same repr
    return (*values, hashlib.blake2b(repr(values).encode("utf-8"), digest_size=20).hexdigest())


def rules_hash(values: dict[str, Any]) -> str:
    """A digest of the rules fields: equal cards, equal digests (their values are built in
    a fixed order by the game modules, so ``repr`` is canonical; json.dumps cost 20% of a
    large import). Stored, so a re-import compares digests instead of loading every card."""
    canonical = repr([values.get(key) for key in RULES_FIELDS])
    return hashlib.blake2b(canonical.encode("utf-8"), digest_size=20).hexdigest()

"""永恒之轮 Eternal Samsara: the game, assembled from its parts.

- ``vocabulary``: types, attributes/colours, rarity ladder, keywords, how its CSV columns are read;
- ``rules``: its rule kinds (construction rules), rulebook and draw model, from its seed.
"""

from catalog.games.samsara import rules
from catalog.games.samsara.vocabulary import Samsara

SAMSARA = Samsara(
    rule_sets=rules.RULE_SETS,
    rulebook=rules.RULEBOOK,
    draw_model=rules.DRAW_MODEL,
    basic_card=rules.is_basic_stone,
)

__all__ = ["SAMSARA"]

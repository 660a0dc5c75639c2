"""龍之弈: the game, assembled from its parts.

- ``vocabulary``: types, attributes/colours, rarity ladder, keywords, how its CSV columns are read;
- ``rules``: its rule kinds (construction rules), rulebook and draw model, from its seed.
"""

from catalog.games.longzhiyi import rules
from catalog.games.longzhiyi.vocabulary import Longzhiyi

LONGZHIYI = Longzhiyi(rule_sets=rules.RULE_SETS, rulebook=rules.RULEBOOK, draw_model=rules.DRAW_MODEL)

__all__ = ["LONGZHIYI"]

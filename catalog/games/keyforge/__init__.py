"""熔钥秘境 KeyForge: the game, assembled from its parts.

- ``vocabulary``: types, attributes/colours, rarity ladder, keywords, how its CSV columns are read;
- ``rules``: its rule kinds (construction rules), rulebook and draw model, from its seed;
- ``community``: the community JSON card-data format it also reads;
- ``decks``: the deck JSON shapes its players exchange (keyteki, Master Vault).
"""

from catalog.games.keyforge import community, decklists, decks, figures, rules
from catalog.games.keyforge.vocabulary import KeyForge

KEYFORGE = KeyForge(
    rule_sets=rules.RULE_SETS,
    rulebook=rules.RULEBOOK,
    draw_model=None,
    json_format=community.FORMAT,
    deck_json=decks.read_deck_json,
)
KEYFORGE.write_deck = decklists.write_deck  # a deck players own: its canonical text
KEYFORGE.deck_figures = figures.deck_figures  # and the figures its page shows

__all__ = ["KEYFORGE"]

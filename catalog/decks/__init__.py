"""Decks: everything about a list of cards meant to be played.

- ``lists``: the decklist text/JSON format (DESIGN §4): parse, write, resolve names in a pool;
- ``check``: the deck-check use case (load a game's pool and a format, judge a list);
- ``stats``: cost curve, attribute/type counts, exact draw odds;
- ``saved``: a user's saved decks and what their collection covers of them.
"""

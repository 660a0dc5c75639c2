"""Kits: what tests build their world with (catalogues, users, collections, decks, events,
trades, servers, pages) and the probes they read it back with. Test modules import from here,
never from one another; fixtures stay in ``conftest.py``."""

"""水墨 Shuimo: a tiny made-up fifth game, to prove that a game is one package + its data.

It is assembled exactly as the real games are (``catalog/games/<game>/__init__.py``); the test
``tests/test_fifth_game.py`` adds it to the registry, imports ``data/`` and uses it everywhere.
"""

from tests.fakegame import rules
from tests.fakegame.vocabulary import Shuimo

SHUIMO = Shuimo(rule_sets=rules.RULE_SETS, rulebook=rules.RULEBOOK, draw_model=rules.DRAW_MODEL)
DATA = __path__[0] + "/data"

"""samsara: the game package (vocabulary.py, rules.py)."""

"""zhutian: the game package (vocabulary.py, rules.py)."""

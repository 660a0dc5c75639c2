"""Nearest names for a misspelt one, in bounded work whatever the size of the catalogue.

``difflib.get_close_matches`` over every name of the game made one unknown deck line
cost ~0.4 s on a 100,000-printing catalogue. :class:`NameIndex` keeps, per gram (a character
or a pair of characters), the names containing it; a query scores only the names sharing the
most grams with it (at most :data:`CANDIDATES`), then ranks those with RapidFuzz's ``WRatio``
(edit distance with partial and token matching, in C++). A gram found in more than
:data:`COMMON_SHARE` of the names (a digit of the synthetic names, 之) is not used to find
candidates unless it is all the query has, so no query reads more than a bounded number of
postings.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from catalog.pauses import collector_paused

CANDIDATES = 256  # names RapidFuzz scores per query
COMMON_SHARE = 0.05  # a gram in more names than this share is too common to find candidates
MAX_QUERY_GRAMS = 24  # a long query uses its first grams only
SCORE_CUTOFF = 50  # WRatio below this is no suggestion (difflib's cutoff was 0.3)


def grams(text: str) -> set[str]:
    """The characters and pairs of adjacent characters of ``text`` (spaces left out)."""
    chars = [c for c in text if not c.isspace()]
    return set(chars) | {a + b for a, b in itertools.pairwise(chars)}


class NameIndex:
    """Grams → names, for :meth:`nearest`. Built once per card pool (the pool is cached)."""

    def __init__(self, names: Iterable[str]) -> None:
        # numpy here, not at the top: a deck check loads this module, and only a check with an
        # unknown name builds an index (numpy costs ~0.15 s to import;).
        import numpy as np

        with collector_paused():  # a gram list per name: 90,000 names at 100,000 printings
            self.names: list[str] = list(dict.fromkeys(names))
            postings: dict[str, list[int]] = {}
            for index, name in enumerate(self.names):
                for gram in grams(name):
                    postings.setdefault(gram, []).append(index)
            self._postings = {g: np.asarray(v, dtype=np.int32) for g, v in postings.items()}
        self._common = max(1, int(COMMON_SHARE * len(self.names)))

    def nearest(self, query: str, *, limit: int = 3) -> list[str]:
        """Up to ``limit`` names nearest to ``query``, best first (ties: the earlier name)."""
        import numpy as np

        if not query or not self.names:
            return []
        found = [self._postings[g] for g in sorted(grams(query)) if g in self._postings]
        if not found:
            return []
        usable = [p for p in found if len(p) <= self._common][:MAX_QUERY_GRAMS]
        if not usable:  # only common grams: the rarest one, cut to the bound
            usable = [min(found, key=len)[: self._common]]
        shared = np.bincount(np.concatenate(usable), minlength=len(self.names))
        hit = np.flatnonzero(shared)
        if len(hit) > CANDIDATES:
            # The names sharing the most grams; ties broken by position (stable sort).
            hit = hit[np.argsort(-shared[hit], kind="stable")[:CANDIDATES]]
            hit.sort()
        choices: Sequence[str] = [self.names[i] for i in hit]
        # RapidFuzz here, not at the top, like numpy: only a misspelt name needs it (~15 ms).
        from rapidfuzz import fuzz, process

        ranked = process.extract(query, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=SCORE_CUTOFF)
        return [name for name, _score, _index in ranked]

"""Catalogue search (DESIGN §6): parse the query, compile it to one SQL statement, page it.

``search(session=…, text="t:战魂 a:火 cost<=3")`` returns a :class:`SearchResult`;
a malformed query raises :class:`QueryError` with the position of the bad term.

This package's face; the parts: ``parser`` (tokens, tree, errors), ``keys`` (the key
registry: each key → SQL), ``compile`` (the tree and the directives → one condition), ``sql``
(portable SQL helpers), ``run`` (scope, paging, ordering, the hits).
"""

from catalog.search.parser import QueryError
from catalog.search.run import (
    MAX_PER_PAGE,
    PER_PAGE,
    SearchHit,
    SearchResult,
    printing_ids_matching,
    random_hit,
    search,
)

__all__ = [
    "MAX_PER_PAGE",
    "PER_PAGE",
    "QueryError",
    "SearchHit",
    "SearchResult",
    "printing_ids_matching",
    "random_hit",
    "search",
]

"""Card-name suggestions while typing: a few names for a few typed characters.

The names come from ``card_search`` (folded name, pinyin, initials, English name per card)
and are held in memory per (database, catalogue versions): reading 90,000 rows on every key
press would cost far more than the 20 ms a suggestion may take. A query is folded like a search
term (width, script, case, spaces) and matched twice, both in C-level string code:
prefixes by binary search over the sorted keys, then substrings by ``str.find`` over a
joined text of every card's keys (ASCII keys and Chinese names apart), until ``limit`` names
are found. Prefix matches come first
(typing 孙 offers 孙悟空 before 小孙), then substring matches, each in 拼音 order.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy import Connection
from sqlmodel import Session, col, select

from catalog.models import CardSearch, Game
from catalog.pauses import collector_paused
from catalog.text import KEY_SEPARATOR, fold

MAX_QUERY = 64  # characters of a query looked at: a name is never longer
MAX_LIMIT = 20
MAX_EXAMINED = 4000  # cards a substring scan looks at before giving up on finding more
CACHE_SIZE = 4
_RECORD = "\x1e"  # between two cards' keys in the joined text (never typed, like KEY_SEPARATOR)


@dataclass(frozen=True)
class Suggestion:
    name: str
    game: str  # slug


class SuggestIndex:
    """Every card name of the catalogue, ready for prefix and substring lookups."""

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        # rows: (sort key, name, game slug, keys), sorted by sort key
        self.names = [(name, game) for _sort, name, game, _keys in rows]
        prefixes: list[tuple[str, int]] = []
        # Two joined texts: the keys written in ASCII (pinyin, initials, English names) and the
        # others (the folded Chinese names). A query searches only the one of its own kind, and
        # the ASCII one is stored one byte a character: a miss scans it in well under a ms.
        parts: dict[bool, list[str]] = {True: [], False: []}
        self._starts: dict[bool, list[int]] = {True: [], False: []}
        offsets = {True: 0, False: 0}
        for index, (_sort, _name, _game, keys) in enumerate(rows):
            split = [key for key in keys.split(KEY_SEPARATOR) if key]
            for key in split:
                prefixes.append((key, index))
            for ascii_kind in (True, False):
                joined = KEY_SEPARATOR.join(key for key in split if key.isascii() == ascii_kind)
                self._starts[ascii_kind].append(offsets[ascii_kind])
                parts[ascii_kind].append(joined)
                offsets[ascii_kind] += len(joined) + 1
        prefixes.sort()
        self._keys = [key for key, _index in prefixes]
        self._owners = [index for _key, index in prefixes]
        self._texts = {kind: _RECORD.join(texts) for kind, texts in parts.items()}

    def lookup(self, query: str, *, game: str | None = None, limit: int = 8) -> list[Suggestion]:
        """Up to ``limit`` names for ``query``, prefix matches first, of ``game`` when given."""
        needle = fold(query[:MAX_QUERY])
        if not needle or KEY_SEPARATOR in needle or _RECORD in needle:
            return []
        limit = max(1, min(limit, MAX_LIMIT))
        found: list[int] = []
        seen: set[int] = set()

        def take(index: int) -> bool:
            if index not in seen and (game is None or self.names[index][1] == game):
                seen.add(index)
                found.append(index)
            return len(found) >= limit

        # Prefixes: the sorted keys from the first one >= needle while they start with it. In
        # sort-key order, not key order, so the few found are gathered before being ordered.
        start = bisect.bisect_left(self._keys, needle)
        prefix_hits: list[int] = []
        for position in range(start, len(self._keys)):
            if not self._keys[position].startswith(needle):
                break
            prefix_hits.append(self._owners[position])
            if len(prefix_hits) >= 50 * limit:  # a one-letter prefix: enough to choose from
                break
        for index in sorted(set(prefix_hits)):
            if take(index):
                return self._result(found)
        # Substrings, in the joined text of the query's kind (cards in sort-key order there).
        kind = needle.isascii()
        text, starts = self._texts[kind], self._starts[kind]
        at = text.find(needle)
        examined = 0
        while at != -1 and examined < MAX_EXAMINED:  # bounded, for a game with few matches
            examined += 1
            index = bisect.bisect_right(starts, at) - 1
            if take(index):
                break
            # on to the next card: its keys cannot match again within this one
            following = starts[index + 1] if index + 1 < len(starts) else len(text)
            at = text.find(needle, following)
        return self._result(found)

    def _result(self, found: list[int]) -> list[Suggestion]:
        return [Suggestion(name=self.names[i][0], game=self.names[i][1]) for i in found]


_indexes: OrderedDict[tuple[object, ...], SuggestIndex] = OrderedDict()
_lock = threading.Lock()


def suggestion_index(session: Session) -> SuggestIndex:
    """The index of the catalogue this transaction sees (built once per catalogue version)."""
    versions = tuple(session.exec(select(Game.id, Game.slug, Game.catalogue_version).order_by(col(Game.id))).all())
    bind = session.get_bind()
    url = bind.engine.url if isinstance(bind, Connection) else bind.url
    key = (url.render_as_string(hide_password=False), versions)
    with _lock:
        index = _indexes.get(key)
        if index is not None:
            _indexes.move_to_end(key)
            return index
    slugs = {game_id: slug for game_id, slug, _version in versions}
    statement = select(CardSearch.sort_key, CardSearch.name, CardSearch.game_id, CardSearch.keys).order_by(
        col(CardSearch.sort_key), col(CardSearch.name)
    )
    with collector_paused():
        rows = [(sort, name, slugs.get(game_id, ""), keys) for sort, name, game_id, keys in session.exec(statement)]
        index = SuggestIndex(rows)
    with _lock:
        _indexes[key] = index
        while len(_indexes) > CACHE_SIZE:
            _indexes.popitem(last=False)
    return index


def suggest(*, session: Session, query: str, game: str | None = None, limit: int = 8) -> list[Suggestion]:
    """Card names for what has been typed so far (see the module's docstring). Reads only."""
    if not fold(query[:MAX_QUERY]):
        return []
    return suggestion_index(session).lookup(query, game=game, limit=limit)

"""Decklist lines resolved against a game's cards (:class:`CardPool`).

:func:`resolve` looks each line up (name in either script, English, pinyin or initials; set and
collector number) and turns lines naming no card, or several, into ``unknown_card`` /
``ambiguous_card`` violations, so a deck with a typo is still checked for everything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalog.decks.parse import MAX_NAME, SUGGESTED_LINES, DeckLine, DeckList
from catalog.fuzzy import NameIndex
from catalog.games import GAMES
from catalog.lookup import number_candidates, number_tail
from catalog.pauses import collector_paused
from catalog.rules import Deck, DeckEntry, PoolCard, Violation
from catalog.text import fold


@dataclass
class CardPool:
    """One game's cards in memory, indexed for decklist lookups (built by ``catalog.decks.check``)."""

    game: str
    cards: dict[int, PoolCard]
    numbers: dict[str, list[tuple[int, str, str]]]  # folded number → (card id, set code, number)
    set_codes: dict[str, str]  # folded code → code
    pinyin: dict[int, tuple[str, str]] = field(default_factory=dict)
    by_name: dict[str, list[int]] = field(init=False)
    by_key: dict[str, list[int]] = field(init=False)
    # Built on first use and kept with the pool (which catalog.decks caches per catalogue version).
    _factions: frozenset[str] | None = field(init=False, default=None, repr=False)
    _name_index: NameIndex | None = field(init=False, default=None, repr=False)
    _pinyin_index: NameIndex | None = field(init=False, default=None, repr=False)
    _by_pinyin: dict[str, list[int]] | None = field(init=False, default=None, repr=False)
    _names_of_pinyin: dict[str, str] | None = field(init=False, default=None, repr=False)
    _aliases: dict[str, dict[str, list[int]]] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.by_name, self.by_key = {}, {}
        for card in self.cards.values():
            self.by_name.setdefault(card.name, []).append(card.id)
            self.by_key.setdefault(card.name_key, []).append(card.id)

    def aliases(self, kind: str) -> dict[str, list[int]]:
        """The other names search accepts, folded → card ids: ``english``, ``pinyin``, ``initials``.

        Built on first use (most decklists name cards in Chinese).
        """
        if not self._aliases:
            with collector_paused():
                self._build_aliases()
        return self._aliases[kind]

    def _build_aliases(self) -> None:
        english: dict[str, list[int]] = {}
        pinyin: dict[str, list[int]] = {}
        initials: dict[str, list[int]] = {}
        slugs: dict[str, list[int]] = {}
        card_slug = GAMES[self.game].card_slug if self.game in GAMES else None
        for card in self.cards.values():
            if card.name_en:
                english.setdefault(fold(card.name_en), []).append(card.id)
                if card_slug is not None:
                    # the game's own deck files' ids: as the data gives them, else derived
                    for slug in (card.extra or {}).get("ids") or (card_slug(card.name_en),):
                        slugs.setdefault(str(slug), []).append(card.id)
        for card_id, (full, short) in self.pinyin.items():
            if full:
                pinyin.setdefault(full, []).append(card_id)
            if short:
                initials.setdefault(short, []).append(card_id)
        self._aliases.update(english=english, pinyin=pinyin, initials=initials, slug=slugs)

    def numbers_in_set(self, set_code: str) -> list[tuple[int, str, str]]:
        """Every (card id, set code, number) printed in one set, in number order."""
        return sorted({h for hits in self.numbers.values() for h in hits if h[1] == set_code}, key=lambda h: h[2])

    def factions(self) -> frozenset[str]:
        if self._factions is None:  # once per pool: pools are cached and shared (catalog.decks)
            self._factions = frozenset(fold(c.faction) for c in self.cards.values() if c.faction)
        return self._factions

    def suggest(self, text: str, limit: int = 3) -> list[str]:
        """The nearest card names: same pinyin or initials, then the nearest pinyin, then the
        nearest folded names (:class:`catalog.fuzzy.NameIndex`: bounded work per query)."""
        key = fold(text)[:MAX_NAME]
        if not key:
            return []
        found: list[str] = []
        if key.isascii():
            if self._by_pinyin is None:
                self._by_pinyin = {}
                for card_id, (py, ini) in self.pinyin.items():
                    for spelling in dict.fromkeys((py, ini)):
                        self._by_pinyin.setdefault(spelling, []).append(card_id)
                self._pinyin_index = NameIndex(py for py, _ini in self.pinyin.values())
                self._names_of_pinyin = {}
                for card_id, (py, _ini) in self.pinyin.items():
                    self._names_of_pinyin.setdefault(py, self.cards[card_id].name)
            found += [self.cards[i].name for i in self._by_pinyin.get(key, [])]
            assert self._pinyin_index is not None and self._names_of_pinyin is not None
            found += [self._names_of_pinyin[py] for py in self._pinyin_index.nearest(key, limit=limit)]
        if self._name_index is None:
            self._name_index = NameIndex(self.by_key)
        found += [self.cards[self.by_key[k][0]].name for k in self._name_index.nearest(key, limit=limit)]
        return list(dict.fromkeys(found))[:limit]


def _number_hits(pool: CardPool, number: str, set_code: str) -> list[tuple[int, str, str]]:
    """The printings of ``set_code`` a written number means: as written, with the set's prefix
    added (``(M4) 017`` → ``M4-017``), or by the part after the set's prefix (``(S13) 101`` →
    ``SD-101``, ``(M4) 17`` → ``M4-017``: numbers compared as numbers)."""
    # the same rules as a collection file's numbers (catalog.lookup: one resolver)
    for key in number_candidates(set_code, number):
        hits = [h for h in pool.numbers.get(key, []) if h[1] == set_code]
        if hits:
            return hits
    tail = number_tail(number)
    return [h for h in pool.numbers_in_set(set_code) if number_tail(h[2]) == tail]


def _lookup(pool: CardPool, line: DeckLine) -> tuple[list[int], str | None, str | None]:
    """Candidate card ids for a line, with the printing (set code, number) it picked if any."""
    if line.by_slug:
        return sorted(set(pool.aliases("slug").get(line.name, []))), None, None
    set_code = pool.set_codes.get(fold(line.set_code)) if line.set_code else None
    if line.set_code and set_code is None:
        return [], None, None
    if line.number:
        hits = _number_hits(pool, line.number, set_code) if set_code else []
        if line.name:
            # the number is trusted; the name must be one of the card's names (as in a collection file)
            key = fold(line.name)
            named = {*_name_ids(pool, line.name), *pool.aliases("pinyin").get(key, [])}
            hits = [h for h in hits if h[0] in named]
        return sorted({h[0] for h in hits}), set_code, hits[0][2] if hits else None
    ids = _name_ids(pool, line.name)
    if ids:
        if set_code is not None:
            ids = [i for i in ids if set_code in pool.cards[i].set_codes]
        return ids, set_code, None
    hits = pool.numbers.get(fold(line.name), [])
    if set_code is not None:
        hits = [h for h in hits if h[1] == set_code]
    ids = sorted({h[0] for h in hits})
    if not ids and set_code is None and (coded := _SET_NUMBER.match(line.name)):
        # a set code and number as people write them, in any case: CotA-001, cota-001, COTA 1
        in_set = pool.set_codes.get(fold(coded["set"]))
        if in_set is not None:
            found = _number_hits(pool, coded["number"], in_set)
            if found:
                return sorted({h[0] for h in found}), in_set, found[0][2]
    if not ids:
        # the other names search accepts: pinyin and initials (``sunwukong``, ``swk``)
        key = fold(line.name)
        ids = pool.aliases("pinyin").get(key, []) or pool.aliases("initials").get(key, [])
        if set_code is not None:
            ids = [i for i in ids if set_code in pool.cards[i].set_codes]
        return sorted(ids), set_code, None
    return ids, (hits[0][1] if len(hits) == 1 else set_code), (hits[0][2] if len(hits) == 1 else None)


_SET_NUMBER = re.compile(r"^(?P<set>[A-Za-z][A-Za-z0-9]*)(?:-|\s+)(?P<number>\d+[A-Za-z]?)$")


def _name_ids(pool: CardPool, name: str) -> list[int]:
    """Cards named so: the name as written, folded, or a stored English name (KeyForge)."""
    key = fold(name)
    return pool.by_name.get(name) or pool.by_key.get(key) or pool.aliases("english").get(key, [])


def _house(word: str | None, pool: CardPool) -> str | None:
    """A house as the game stores it (``sanctum`` → 圣所), for a game with houses."""
    if not word:
        return None
    houses = getattr(GAMES.get(pool.game), "houses", None)
    resolved = houses.resolve(word) if houses is not None else None
    return resolved or word.strip().lower()


def _where(line: DeckLine) -> tuple[str, str]:
    return (f"第 {line.line} 行：", f"line {line.line}: ") if line.line else ("", "")


def resolve(decklist: DeckList, pool: CardPool, *, game: str | None = None) -> tuple[Deck, list[Violation]]:
    """Look every line up; lines naming no card or several become violations (the rest still count)."""
    deck = Deck(game=game or pool.game, name=decklist.name, format=decklist.format, metadata=dict(decklist.metadata))
    problems: list[Violation] = []
    suggested = 0
    for line in decklist.lines:
        ids, set_code, number = _lookup(pool, line)
        where_zh, where_en = _where(line)
        if not ids and line.set_code and line.name and not line.number:
            # the name is a card, not one printed in the set named (or the set does not exist):
            # count it as the card it names, and say where it is printed
            named = [i for i in _name_ids(pool, line.name) if set_code not in pool.cards[i].set_codes]
            if len(named) == 1:
                found = pool.cards[named[0]]
                printed = "、".join(sorted(found.set_codes)) or "—"
                deck.entries.append(
                    DeckEntry(found, line.count, line.section, (line.line,) if line.line else (), None, None)
                )
                missing_zh = f"没有 {set_code} 的印刷" if set_code else f"所写的系列「{line.set_code}」不存在"
                missing_en = f"has no printing in {set_code}" if set_code else f"names no set '{line.set_code}'"
                problems.append(
                    Violation(
                        "card_not_in_set",
                        f"{where_zh}「{found.name}」{missing_zh}，它印于：{printed}；"
                        f"请改正系列或去掉 ({line.set_code})",
                        f"{where_en}'{found.name}' {missing_en}; it is printed in: {printed}; "
                        f"correct the set or drop ({line.set_code})",
                        cards=[found.name],
                        counts={"line": line.line, "copies": line.count, "sets": sorted(found.set_codes)},
                        lines=[line.line] if line.line else [],
                    )
                )
                continue
        if len(ids) == 1:
            deck.entries.append(
                DeckEntry(
                    pool.cards[ids[0]],
                    line.count,
                    line.section,
                    (line.line,) if line.line else (),
                    set_code,
                    number,
                    house=_house(line.house, pool),
                    maverick=line.maverick,
                    legacy=line.legacy,
                    anomaly=line.anomaly,
                    enhancements=line.enhancements,
                )
            )
            continue
        deck.unresolved[line.section] = deck.unresolved.get(line.section, 0) + line.count
        written = line.raw or line.name
        shown = line.name or f"({line.set_code}) {line.number}"
        if not ids:
            suggested += 1
            suggestions = pool.suggest(line.name or line.number or "") if suggested <= SUGGESTED_LINES else []
            extra_zh = f"，你是不是要找：{'、'.join(suggestions)}？" if suggestions else ""
            extra_en = f"; did you mean: {', '.join(suggestions)}?" if suggestions else ""
            in_set = f"（系列 {line.set_code}）" if line.set_code else ""
            what_zh, what_en = "不是这个游戏的卡牌", "names no card of this game"
            if line.set_code and set_code is None:
                known = "、".join(sorted(set(pool.set_codes.values()))[:12])
                what_zh = f"：这个游戏没有这个系列「{line.set_code}」（系列有：{known}…）"
                what_en = f": this game has no set '{line.set_code}' (sets: {known}…)"
            elif set_code is not None and line.number:
                in_set_numbers = pool.numbers_in_set(set_code)
                span = f"{in_set_numbers[0][2]} 到 {in_set_numbers[-1][2]}" if in_set_numbers else "—"
                span_en = f"{in_set_numbers[0][2]} to {in_set_numbers[-1][2]}" if in_set_numbers else "—"
                what_zh = f"：{set_code} 没有编号 {line.number} 的卡（{set_code} 的编号为 {span}）"
                what_en = f": {set_code} has no number {line.number} (its numbers run {span_en})"
            problems.append(
                Violation(
                    "unknown_card",
                    f"{where_zh}「{shown}」{in_set}{what_zh}{extra_zh}",
                    f"{where_en}'{shown}'{' in ' + line.set_code if line.set_code else ''}"
                    f"{what_en if what_en.startswith(':') else ' ' + what_en}{extra_en}",
                    counts={"line": line.line, "copies": line.count},
                    lines=[line.line] if line.line else [],
                    suggestions=suggestions,
                )
            )
            continue
        candidates = [pool.cards[i].name for i in ids]
        problems.append(
            Violation(
                "ambiguous_card",
                f"{where_zh}「{written}」对应多张卡：{'、'.join(candidates)}；请写全名或加上 (系列) 编号",
                f"{where_en}'{written}' matches several cards: {', '.join(candidates)}; write the full name "
                f"or add (SET) NUMBER",
                cards=candidates,
                counts={"line": line.line, "copies": line.count},
                lines=[line.line] if line.line else [],
            )
        )
    return deck, problems

"""Shared construction-rule machinery (DESIGN §5): decks, violations, verdicts, formats, rules.

A construction rule is a small named object whose ``check`` returns :class:`Violation`s; a
format is a list of rules plus parameters. Each game assembles its own rule sets, rulebook and
draw model in its package (``catalog/games/<game>/``) from the pieces here, so this module knows
no game and names no card.

Everything here is pure Python over in-memory snapshots (:class:`PoolCard`): no database,
no Flask. Loading those snapshots is :mod:`catalog.decks.check`' job.
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from catalog.errors import Message

SECTIONS = ("main", "extra", "side")
SECTION_ZH = {"main": "主卡组", "extra": "额外卡组", "side": "备牌"}
ERROR, WARNING = "error", "warning"


@dataclass(frozen=True, eq=False)  # identity equality: one snapshot per Card, hashable
class PoolCard:
    """What the rules need to know about one Card (the rules object), detached from the session."""

    id: int
    name: str
    name_key: str
    type: str
    subtype: str = ""
    attributes: str = ""
    faction: str = ""
    cost: Mapping[str, int] = field(default_factory=dict)
    cost_total: int | None = None
    level: int | None = None
    traits: tuple[str, ...] = ()
    trait_keys: frozenset[str] = frozenset()
    keywords: tuple[Mapping[str, Any], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    set_codes: frozenset[str] = frozenset()  # the sets it has a printing in
    text: str = ""  # rules text (a 永恒之轮 basic 法力石 is a stone without any)
    name_en: str = ""  # the English name, when the catalogue has one (KeyForge)
    attack: int | None = None  # for a deck's figures (KeyForge power)
    defense: int | None = None  # (KeyForge armor)

    @functools.cached_property
    def _keyword_kinds(self) -> dict[str, Mapping[str, Any]]:
        found: dict[str, Mapping[str, Any]] = {}
        for keyword in self.keywords:
            found.setdefault(str(keyword.get("kind")), keyword)
        return found

    def keyword(self, kind: str) -> Mapping[str, Any] | None:
        """The card's first keyword of this kind (``legion``, ``extra_build`` …), or ``None``."""
        return self._keyword_kinds.get(kind)

    def keywords_of(self, kind: str) -> list[Mapping[str, Any]]:
        return [k for k in self.keywords if k.get("kind") == kind]


@dataclass
class DeckEntry:
    """One resolved line of a decklist: so many copies of a card in a section."""

    card: PoolCard
    count: int
    section: str = "main"
    lines: tuple[int, ...] = ()  # decklist line numbers (for pointing at them)
    set_code: str | None = None  # the printing picked with (SET), if any
    number: str | None = None
    # KeyForge: the house the copies play for (a maverick's, or the heading they were
    # listed under), whether they are mavericks / legacy / anomalies, their bonus icons
    house: str | None = None
    maverick: bool = False
    legacy: bool = False
    anomaly: bool = False
    enhancements: tuple[str, ...] = ()


@dataclass
class Deck:
    """A deck: entries in sections main / extra / side, plus metadata (name, 职业 …)."""

    game: str
    entries: list[DeckEntry] = field(default_factory=list)
    name: str = ""
    format: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    # copies per section of the lines that named no card or several: they still count towards
    # the section's size, as the player meant them (an unknown card never drags a false
    # "too small" along with it)
    unresolved: dict[str, int] = field(default_factory=dict)
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def section(self, name: str) -> list[DeckEntry]:
        return [e for e in self.entries if e.section == name]

    def size(self, *sections: str) -> int:
        wanted = sections or SECTIONS
        return sum(e.count for e in self.entries if e.section in wanted)

    def counts(self) -> dict[str, int]:
        """Cards per section as written, lines naming no card included."""
        totals = dict.fromkeys(SECTIONS, 0)
        for entry in self.entries:
            totals[entry.section] += entry.count
        for section, count in self.unresolved.items():
            totals[section] += count
        return totals

    def copies(self, *sections: str) -> dict[int, tuple[PoolCard, int]]:
        """Copies per Card over the given sections (all when none): printings never matter.

        Memoised per section choice (every rule asks; a deck is judged once it is resolved).
        """
        wanted = sections or SECTIONS
        key = ("copies", wanted, len(self.entries))
        found = self._memo.get(key)
        if found is None:
            found = {}
            for entry in self.entries:
                if entry.section in wanted:
                    _card, count = found.get(entry.card.id, (entry.card, 0))
                    found[entry.card.id] = (entry.card, count + entry.count)
            self._memo[key] = found
        return found

    def lines_of(self, card_ids: Iterable[int], *sections: str) -> list[int]:
        """The decklist lines naming these cards (in the given sections, all when none)."""
        key = ("lines", sections, len(self.entries))
        index = self._memo.get(key)
        if index is None:
            index = {}
            for entry in self.entries:
                if not sections or entry.section in sections:
                    index.setdefault(entry.card.id, []).extend(entry.lines)
            self._memo[key] = index
        return sorted({line for card_id in card_ids for line in index.get(card_id, ())})


@dataclass
class Violation:
    """One problem: contract code, severity, messages (zh + en), the cards concerned, counts."""

    code: str
    message: str
    message_en: str
    severity: str = ERROR
    cards: list[str] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=dict)
    lines: list[int] = field(default_factory=list)  # decklist lines concerned (extension)
    suggestions: list[str] = field(default_factory=list)  # unknown_card: the nearest names

    def to_json(self) -> dict[str, Any]:
        extra = {"suggestions": list(self.suggestions)} if self.suggestions else {}
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "message_en": self.message_en,
            "cards": list(self.cards),
            "counts": dict(self.counts),
            "lines": list(self.lines),
            **extra,
        }


@dataclass
class Verdict:
    """Every violation of a deck at once; ``legal`` iff none has severity error."""

    game: str
    format: str
    counts: dict[str, int]
    violations: list[Violation]

    @property
    def legal(self) -> bool:
        return not any(v.severity == ERROR for v in self.violations)

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == ERROR]

    @property
    def warnings(self) -> list[Violation]:
        return [v for v in self.violations if v.severity != ERROR]

    def codes(self) -> list[str]:
        return [v.code for v in self.violations]

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "game": self.game,
            "format": self.format,
            "counts": dict(self.counts),
            "violations": [v.to_json() for v in self.violations],
        }


@dataclass(frozen=True)
class FormatSpec:
    """A format made concrete: rule kind, merged parameters, legal sets, ban list by card id."""

    game: str
    code: str
    kind: str
    name: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    legal_sets: tuple[str, ...] = ("*",)
    bans: Mapping[int, int] = field(default_factory=dict)  # card id → 0 banned, 1 限制, 2 准限制
    # facts about the catalogue a rule may need (誅天: the folded faction names that exist)
    catalogue: Mapping[str, Any] = field(default_factory=dict)

    def param(self, key: str, default: Any = None) -> Any:
        value = self.params.get(key)
        return default if value is None else value

    def set_is_legal(self, code: str) -> bool:
        return _set_is_legal(self.legal_sets, code)

    def card_is_legal(self, card: PoolCard) -> bool:
        """Whether one of the card's printings is in a legal set (a reprint counts)."""
        return "*" in self.legal_sets or any(_set_is_legal(self.legal_sets, code) for code in card.set_codes)


@functools.lru_cache(maxsize=4096)
def _set_is_legal(patterns: tuple[str, ...], code: str) -> bool:
    return any(fnmatch.fnmatchcase(code, pattern) for pattern in patterns)


class Rule(Protocol):
    """A construction rule: a name (for docs and debugging) and a check returning violations."""

    @property
    def name(self) -> str: ...

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterable[Violation]: ...


# ---------------------------------------------------------------------------- what a game assembles


@dataclass(frozen=True)
class Rulebook:
    """What the rules page says about a game: the seed it follows, the rules, our choices."""

    seed: str
    rules: tuple[Message, ...]
    choices: tuple[Message, ...] = ()


@dataclass(frozen=True)
class DrawModel:
    """Opening hand size and cards drawn per turn; ``first_turn_draw`` False = no draw on turn 1."""

    opening: int
    per_turn: int = 1
    first_turn_draw: bool = True
    note: str = ""  # the seed's words, shown on the page
    note_en: str = ""
    set_aside: tuple[str, ...] = ()  # card types never shuffled into the deck (龍之弈 武器)

    def seen_by_turn(self, turn: int) -> int:
        draws = turn if self.first_turn_draw else max(turn - 1, 0)
        return self.opening + draws * self.per_turn


def evaluate(deck: Deck, fmt: FormatSpec, rules: Sequence[Rule], *, before: Sequence[Violation] = ()) -> Verdict:
    """Run ``rules`` (the format's kind, from its game); ``before`` holds resolution problems (unknown cards)."""
    violations = list(before)
    for rule in rules:
        violations.extend(rule.check(deck, fmt))
    return Verdict(game=deck.game, format=fmt.code, counts=deck.counts(), violations=violations)


# ---------------------------------------------------------------------------- shared rules


def names(cards: Iterable[PoolCard]) -> list[str]:
    return [c.name for c in cards]


@dataclass(frozen=True)
class SectionSize:
    """``sections`` together hold between ``min_param`` and ``max_param`` cards (``None`` = no bound).

    ``exclude`` leaves some cards out of the count (龍之弈 counts the deck "besides the weapon").
    ``home`` says where a card belongs (main or extra): a card of the main or extra deck is
    then counted in the section it belongs to, as the player meant it, so a stone written in
    the main deck does not hide that the main deck is short (its misplacement is reported by
    the game's placement rule). Lines naming no card count in the section they were written in.
    """

    name: str
    sections: tuple[str, ...]
    small_code: str
    large_code: str
    label: str = "主卡组"
    label_en: str = "main deck"
    min_param: str = "main_min"
    max_param: str = "main_max"
    exclude: Callable[[PoolCard], bool] | None = None
    home: Callable[[PoolCard], str] | None = None

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        size = moved_in = moved_out = 0
        for e in deck.entries:
            if self.exclude is not None and self.exclude(e.card):
                continue
            meant = self.home(e.card) if self.home is not None and e.section != "side" else e.section
            if meant in self.sections:
                size += e.count
                moved_in += e.count if e.section not in self.sections else 0
            elif e.section in self.sections:
                moved_out += e.count
        size += sum(n for section, n in deck.unresolved.items() if section in self.sections)
        note_zh = note_en = ""
        if moved_in or moved_out:
            parts_zh = ([f"含写在其他分区、应放在这里的 {moved_in} 张"] if moved_in else []) + (
                [f"不含写在这里、应放在其他分区的 {moved_out} 张"] if moved_out else []
            )
            parts_en = ([f"including {moved_in} written elsewhere that belong here"] if moved_in else []) + (
                [f"not counting {moved_out} written here that belong elsewhere"] if moved_out else []
            )
            note_zh, note_en = f"（{'，'.join(parts_zh)}）", f" ({'; '.join(parts_en)})"
        low, high = fmt.param(self.min_param), fmt.param(self.max_param)
        if low is not None and size < low:
            yield Violation(
                self.small_code,
                f"{self.label} {size} 张，少于下限 {low} 张{note_zh}",
                f"the {self.label_en} has {size} cards, fewer than the minimum {low}{note_en}",
                counts={"size": size, "min": low},
            )
        if high is not None and size > high:
            yield Violation(
                self.large_code,
                f"{self.label} {size} 张，多于上限 {high} 张{note_zh}",
                f"the {self.label_en} has {size} cards, more than the maximum {high}{note_en}",
                counts={"size": size, "max": high},
            )


@dataclass(frozen=True)
class NoExtraDeck:
    """A game without an extra deck refuses a list that has one (its cards are not silently counted)."""

    game_name: str
    name: str = "no_extra_deck"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        size = deck.size("extra") + deck.unresolved.get("extra", 0)
        if not size:
            return
        extra = deck.section("extra")
        cards = list(dict.fromkeys(e.card.name for e in extra))
        yield Violation(
            "extra_deck_not_used",
            f"{self.game_name}没有额外卡组：额外卡组的 {size} 张应放入主卡组（或备牌）",
            f"{self.game_name} has no extra deck: move its {size} card(s) to the main deck (or the side board)",
            cards=cards,
            counts={"copies": size},
            lines=sorted({ln for e in extra for ln in e.lines}),
        )


@dataclass(frozen=True)
class CopyLimit:
    """Copies of one Card over main + extra + side (all printings) stay within its limit.

    ``limit_of(card, fmt)`` gives the game's own limit (``None`` = unlimited); a ban-list limit
    of 1 or 2 lowers it (0 is the :class:`Banned` rule's business). ``exempt`` cards have none.
    """

    name: str
    limit_of: Callable[[PoolCard, FormatSpec], int | None]
    reason: Callable[[PoolCard, FormatSpec], tuple[str, str]] | None = None

    def allowed(self, card: PoolCard, fmt: FormatSpec) -> tuple[int | None, bool]:
        """Copies of ``card`` a deck may hold in ``fmt`` (``None`` = no limit), and whether the
        ban list set that number (a 1 or 2 below the game's own limit). A ban-list 0 is
        :class:`Banned`'s business: the game's limit is returned for it."""
        limit = self.limit_of(card, fmt)
        ban = fmt.bans.get(card.id)
        if ban is not None and ban > 0 and (limit is None or ban < limit):
            return ban, True
        return limit, False

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        for card_id, (card, count) in deck.copies().items():
            ban = fmt.bans.get(card_id)
            limit, by_ban_list = self.allowed(card, fmt)
            source_zh, source_en = self.reason(card, fmt) if self.reason else ("", "")
            if by_ban_list:
                label = {1: "限制", 2: "准限制"}.get(limit or 0, "")
                source_zh, source_en = f"（禁限卡表：{label}）", f" (ban list: limited to {limit})"
            if ban == 0 or limit is None or count <= limit:
                continue
            yield Violation(
                "too_many_copies",
                f"「{card.name}」共 {count} 张（所有印刷、主卡组/额外卡组/备牌合计），上限 {limit} 张{source_zh}",
                f"{count} copies of '{card.name}' (all printings and sections together); the limit is {limit}"
                f"{source_en}",
                cards=[card.name],
                counts={"copies": count, "limit": limit},
                lines=deck.lines_of([card_id]),
            )


@dataclass(frozen=True)
class Banned:
    """A card whose ban-list limit is 0 (禁止) is in the deck, in any section."""

    name: str = "banned"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        banned = [(card, n) for card_id, (card, n) in deck.copies().items() if fmt.bans.get(card_id) == 0]
        for card, count in banned:
            yield Violation(
                "banned",
                f"「{card.name}」在赛制 {fmt.name or fmt.code} 中被禁止",
                f"'{card.name}' is banned in {fmt.name or fmt.code}",
                cards=[card.name],
                counts={"copies": count},
                lines=deck.lines_of([card.id]),
            )


@dataclass(frozen=True)
class LegalSets:
    """Every card has at least one printing in the format's legal sets (a reprint counts)."""

    name: str = "legal_sets"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        if "*" in fmt.legal_sets:
            return
        for card_id, (card, count) in deck.copies().items():
            if not fmt.card_is_legal(card):
                printed = "、".join(sorted(card.set_codes)) or "—"
                yield Violation(
                    "not_legal_in_format",
                    f"「{card.name}」只印于 {printed}，不在赛制 {fmt.name or fmt.code} 的合法系列中",
                    f"'{card.name}' is printed only in {printed}, none legal in {fmt.name or fmt.code}",
                    cards=[card.name],
                    counts={"copies": count},
                    lines=deck.lines_of([card_id]),
                )


def standard_rules() -> tuple[Rule, ...]:
    """The rules every game shares: ban list and legal sets (copy limits differ per game)."""
    return (Banned(), LegalSets())

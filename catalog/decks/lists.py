"""Decklists (DESIGN §4): read text or JSON, resolve names against a game's cards, write back.

Reading has two steps. :func:`parse_decklist` turns text into :class:`DeckList` lines and
raises :class:`DecklistError` (every bad line, numbered) when the text cannot be read at all.
:func:`resolve` looks each line up in a :class:`CardPool` and turns lines naming no card, or
several, into ``unknown_card`` / ``ambiguous_card`` violations, so a deck with a typo is still
checked for everything else.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from catalog.errors import LunzangError, Message
from catalog.fuzzy import NameIndex
from catalog.games import GAMES
from catalog.lookup import number_candidates, number_tail
from catalog.pauses import collector_paused
from catalog.rules import SECTION_ZH, SECTIONS, Deck, DeckEntry, PoolCard, Violation
from catalog.text import fold

# every game's line markers and bonus-icon words (KeyForge's: catalog.games.keyforge.decks)
MARKER_WORDS = {fold(word): marker for game in GAMES.values() for word, marker in game.line_markers.items()}
ICON_WORDS = {fold(word): icon for game in GAMES.values() for word, icon in game.icon_words.items()}
# Section headers, with or without a colon, in both languages and as other tools write them
# (MTG Arena: Deck / Sideboard / Commander / Companion; .ydk: #main / #extra / !side). Each
# maps to one of our sections: a commander is part of the deck, a companion waits outside it.
SECTION_WORDS = {
    **{
        fold(w): "main"
        for w in ("主卡组", "主牌组", "卡组", "主卡組", "主牌組", "卡組", "Main", "Deck", "Maindeck", "Main deck")
    },
    **{fold(w): "main" for w in ("Commander", "Commanders", "指挥官", "指揮官")},
    **{fold(w): "extra" for w in ("额外卡组", "額外卡組", "额外", "Extra", "Extra deck")},
    **{fold(w): "side" for w in ("备牌", "備牌", "Side", "Sideboard", "Side deck", "Side board", "Companion")},
}
YDK_SECTIONS = {"#main": "main", "#extra": "extra", "!side": "side"}
# Headers other tools write that are not sections of ours: a line like these (or any "Word (12)")
# is reported as a header we do not know, never looked up as a card.
FOREIGN_HEADERS = frozenset(
    fold(w)
    for w in (
        "Maybeboard",
        "Maybe",
        "Considering",
        "Tokens",
        "Token",
        "Creatures",
        "Creature",
        "Lands",
        "Land",
        "Instants",
        "Sorceries",
        "Artifacts",
        "Enchantments",
        "Planeswalkers",
        "Spells",
        "Battles",
        "Attractions",
        "Stickers",
        "Other",
        "候选",
        "备选",
    )
)
ABOUT = fold("About")  # MTG Arena: "About" then "Name …" lines are the deck's metadata
# metadata keys (folded) → the canonical key we keep; unknown keys are kept as written
META_KEYS = {
    **{fold(w): "name" for w in ("name", "名称", "名稱", "卡组名", "牌组名", "deck")},
    **{fold(w): "game" for w in ("game", "游戏", "遊戲")},
    **{fold(w): "format" for w in ("format", "赛制", "賽制")},
    **{fold(w): "职业" for w in ("职业", "職業", "profession")},
    **{fold(w): "houses" for w in ("houses", "三派系")},
}
MAX_COUNT = 999
# Bounds on one decklist (issue 16: every request does bounded work). A deck of any of our games
# has at most ~90 cards, so 300 card lines leave room for one line per copy and printings; the
# text bound comes first so that nothing reads a 10 MB body line by line.
MAX_TEXT_CHARS = 100_000
MAX_LINES = 300
MAX_NAME = 200  # characters of a card name that are looked up and compared
SUGGESTED_LINES = 20  # unknown lines that get "did you mean"; the ones after are only named


def _too_long() -> DecklistError:
    return DecklistError(
        [
            LineProblem(
                0,
                Message(
                    f"卡组太长：最多 {MAX_TEXT_CHARS:,} 个字符、{MAX_LINES} 行卡牌",
                    f"the decklist is too long: at most {MAX_TEXT_CHARS:,} characters and {MAX_LINES} card lines",
                ),
            )
        ]
    )


# "3 名称", "3x 名称", "3×名称", "3 x 名称". An x after a space starts the name unless a space follows
# it ("3 X-47无人机", "1 xiaohongmao"), and an x glued to a Latin letter does too ("3xM4" is a name).
_COUNT_FIRST = re.compile(r"^(?P<count>\d+)(?:[xX×*](?![A-Za-z])\s*|\s+[xX×*]\s+|\s+)(?P<body>\S.*)$")
_COUNT_LAST = re.compile(r"^(?P<body>\S.*?)\s+[xX×*]\s*(?P<count>\d+)$")
_SET_SUFFIX = re.compile(r"^(?P<name>.*?)\s*\((?P<set>[^()]+)\)(?:\s+(?P<number>\S+))?$")
_META = re.compile(r"^(?P<key>[^\s:()][^:()]{0,23}?)\s*:\s*(?P<value>\S.*)$")
_COUNT_PREFIXED = re.compile(r"^[xX×*]\s*(?P<count>\d+)\s+(?P<body>\S.*)$")  # "x3 名称", "×3 名称"
_BULLET = re.compile(r"^(?:[•·▪●◦‣∙・]\s*|[-–—*]\s+)")  # "• 3 名称", "- 3 名称", "1 • 名称"
_HEADER_COUNT = re.compile(r"\s*[(（\[]\s*\d+\s*[)）\]]$")  # "Sideboard (15)", "主卡组（50）"
_WORDS_ONLY = re.compile(r"^[^\W\d_]+(?:[ '’-][^\W\d_]+){0,3}$")
_COMMENT = re.compile(r"(^|\s)#.*$")
# markers at the end of a card line (DESIGN §4 extended for KeyForge): [maverick] [legacy]
# [anomaly] [enhanced: draw, capture] (Chinese: [变节] [传承] [异常] [强化: 抽牌])
_MARKER = re.compile(r"\s*\[(?P<word>[^\]:：]+)(?:[:：](?P<value>[^\]]*))?\]\s*$")


@dataclass
class DeckLine:
    """One card line as written: section, count and what names the card."""

    line: int
    section: str
    count: int
    name: str  # a card name or a collector number ('' when only "(SET) NUMBER" is given)
    set_code: str | None = None
    number: str | None = None
    raw: str = ""
    # KeyForge (issue 30): the house the copies play for (a heading's or a maverick's), markers
    house: str | None = None
    maverick: bool = False
    legacy: bool = False
    anomaly: bool = False
    enhancements: tuple[str, ...] = ()
    by_slug: bool = False  # ``name`` is keyteki's card id (a slug of the English name)


@dataclass
class DeckList:
    """A parsed, not yet resolved, decklist."""

    lines: list[DeckLine] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.metadata.get("name", "")

    @property
    def game(self) -> str | None:
        return self.metadata.get("game") or None

    @property
    def format(self) -> str | None:
        return self.metadata.get("format") or None


@dataclass(frozen=True)
class LineProblem:
    line: int
    message: Message

    def __str__(self) -> str:
        return f"第 {self.line} 行：{self.message.zh}" if self.line else self.message.zh


class DecklistError(LunzangError):
    """The decklist could not be read: every problem, with its line number."""

    code = "unreadable_decklist"

    def __init__(self, problems: list[LineProblem]) -> None:
        zh = "；".join(str(p) for p in problems)
        en = "; ".join(f"line {p.line}: {p.message.en}" if p.line else p.message.en for p in problems)
        super().__init__(Message(f"无法读取卡组：{zh}", f"cannot read the decklist: {en}"))
        self.problems = problems


# ---------------------------------------------------------------------------- parsing


def parse_decklist(text: str, *, houses: bool = False) -> DeckList:
    """Text or JSON (DESIGN §4) → :class:`DeckList`, or :class:`DecklistError` listing every bad line.
    A file of several decks gives its first (:func:`parse_decklists` gives them all). ``houses``:
    a heading that is no section word is a house (KeyForge)."""
    return parse_decklists(text, houses=houses)[0]


def parse_decklists(text: str, *, houses: bool = False) -> list[DeckList]:
    """Every deck of a text or JSON file: one for our formats, one or more for a game's own deck
    JSON (KeyForge: keyteki's deck or list of decks, Master Vault's deck)."""
    if len(text) > MAX_TEXT_CHARS * 10:
        raise _too_long()
    text = text.lstrip("\ufeff")
    start = text.lstrip()[:1]
    if start in ("{", "["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise DecklistError(
                [LineProblem(error.lineno, Message(f"JSON 格式错误：{error.msg}", f"malformed JSON: {error.msg}"))]
            ) from error
        for game in GAMES.values():
            found = game.deck_json(data) if game.deck_json is not None else None
            if found is not None:
                return [_from_deck_dict(deck) for deck in found]
        if len(text) > MAX_TEXT_CHARS:
            raise _too_long()
        return [from_json(data)]
    if len(text) > MAX_TEXT_CHARS:
        raise _too_long()
    return [parse_text(text, houses=houses)]


def _from_deck_dict(deck: dict[str, Any]) -> DeckList:
    """A game's plain deck dict (see ``catalog.games.keyforge.decks``) as a decklist."""
    decklist = DeckList(metadata={k: v for k, v in deck["metadata"].items() if v})
    problems: list[LineProblem] = []
    for index, card in enumerate(deck["cards"], start=1):
        count = card.get("count", 1)
        if not card.get("card") or not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
            problems.append(
                LineProblem(
                    0,
                    Message(
                        f"cards[{index - 1}]：需要卡牌 id 和 1 到 {MAX_COUNT} 的张数",
                        f"cards[{index - 1}]: needs a card id and a count 1 to {MAX_COUNT}",
                    ),
                )
            )
            continue
        decklist.lines.append(
            DeckLine(
                0,
                "main",
                count,
                str(card["card"]),
                raw=f"{count} {card['card']}",
                house=card.get("house") or None,
                maverick=bool(card.get("maverick")),
                legacy=bool(card.get("legacy")),
                anomaly=bool(card.get("anomaly")),
                enhancements=tuple(card.get("enhancements") or ()),
                by_slug=card.get("by") == "slug",
            )
        )
        if len(decklist.lines) > MAX_LINES:
            raise _too_long()
    if problems:
        raise DecklistError(problems)
    return decklist


def _section_word(word: str) -> str | None:
    return SECTION_WORDS.get(fold(word))


def _header_of(line: str) -> tuple[str | None, str | None]:
    """(section, None) when ``line`` is a section header (with or without a colon, a count in
    brackets allowed: ``Sideboard (15)``); (None, word) when it only looks like one (a word
    ending in ':' or a count in brackets, or another tool's header such as ``Maybeboard``);
    (None, None) for anything else."""
    word = line[:-1].strip() if line.endswith(":") and ":" not in line[:-1] else line
    bracketed = _HEADER_COUNT.search(word)
    if bracketed:
        word = word[: bracketed.start()].strip()
    found = _section_word(word)
    if found is not None:
        return found, None
    foreign = fold(word) in FOREIGN_HEADERS
    if word and (foreign or (word != line and (line.endswith(":") or _WORDS_ONLY.match(word)))):
        return None, word
    return None, None


def _unknown_section(number: int, word: str) -> LineProblem:
    return LineProblem(
        number,
        Message(
            f"未知的分区「{word}」：这一行看起来是分区标题，不当作卡牌；"
            "可用 主卡组、额外卡组、备牌（或 Deck、Extra、Sideboard）",
            f"unknown section '{word}': this line looks like a section header, not a card; use Main, Extra or Side "
            "(主卡组, 额外卡组, 备牌)",
        ),
    )


def parse_text(text: str, *, houses: bool = False) -> DeckList:
    """A text decklist (DESIGN §4, and the forms other tools write: MTG Arena, MTGO, bullets,
    ``.ydk``; documented on the site's help and in the README)."""
    deck = DeckList()
    problems: list[LineProblem] = []
    section = "main"
    headers = False  # any section header seen: then a blank line means nothing
    about = False  # inside MTG Arena's "About" block: "Name …" lines are metadata
    group, after_card = 0, False  # blank-separated groups of card lines (MTGO: the last is the side)
    groups: list[int] = []
    house: str | None = None  # under a heading per house (KeyForge)
    unknown_headings: list[LineProblem] = []
    for number, original in enumerate(text.splitlines(), start=1):
        line = unicodedata.normalize("NFKC", original).strip()
        ydk = YDK_SECTIONS.get(line.lower())
        if ydk is not None:
            section, house, headers, about = ydk, None, True, False
            continue
        if "#" in line:
            line = _COMMENT.sub("", line).strip()
        if not line:
            about = False
            if after_card:
                group, after_card = group + 1, False
            continue
        if fold(line) == ABOUT:
            about = True
            continue
        if about and not _COUNT_FIRST.match(line):
            key, _space, value = line.partition(" ")
            if ":" not in key and value.strip():
                deck.metadata[META_KEYS.get(fold(key), key)] = value.strip()
                continue
        line = _BULLET.sub("", line)
        count_match = _COUNT_FIRST.match(line) or _COUNT_PREFIXED.match(line) or _COUNT_LAST.match(line)
        if count_match is None:
            found, looks_like = _header_of(line)
            if found is not None:
                section, house, headers, about = found, None, True, False
                continue
            if looks_like is not None:
                # a heading per house (KeyForge) when the deck is of a game with houses: known from
                # the caller, a houses: line or a game: line (checked at the end); else a problem
                section, house, headers, about = "main", looks_like, True, False
                unknown_headings.append(_unknown_section(number, looks_like))
                continue
        if count_match is None and ":" in line and (meta := _META.match(line)):
            key = META_KEYS.get(fold(meta["key"]), meta["key"].strip())
            deck.metadata[key] = meta["value"].strip()
            continue
        count, body = (int(count_match["count"]), count_match["body"].strip()) if count_match else (1, line)
        body = _BULLET.sub("", body)
        markers: dict[str, str] = {}
        while "[" in body and (marker := _MARKER.search(body)):
            marked = MARKER_WORDS.get(fold(marker["word"].strip()))
            if marked is None:
                problems.append(
                    LineProblem(
                        number,
                        Message(
                            f"未知的标记「[{marker['word']}]」，可用：[变节] [传承] [异常] [强化: 抽牌]",
                            f"unknown marker '[{marker['word']}]'; use [maverick] [legacy] [anomaly] [enhanced: draw]",
                        ),
                    )
                )
                break
            markers[marked] = (marker["value"] or "").strip()
            body = body[: marker.start()].strip()
        if count < 1 or count > MAX_COUNT:
            problems.append(
                LineProblem(
                    number,
                    Message(f"张数 {count} 应在 1 到 {MAX_COUNT} 之间", f"count {count} must be 1 to {MAX_COUNT}"),
                )
            )
            continue
        name, set_code, card_number = body, None, None
        if ")" in body and (suffix := _SET_SUFFIX.match(body)):
            name, set_code, card_number = suffix["name"].strip(), suffix["set"].strip(), suffix["number"]
        if not name and not card_number:
            problems.append(LineProblem(number, Message("缺少卡名或编号", "the card name or number is missing")))
            continue
        deck.lines.append(
            DeckLine(
                number,
                section,
                count,
                name,
                set_code,
                card_number,
                original.strip(),
                house=house,
                maverick="maverick" in markers,
                legacy="legacy" in markers,
                anomaly="anomaly" in markers,
                enhancements=_icons(markers.get("enhanced", "")),
            )
        )
        groups.append(group)
        after_card = True
        if len(deck.lines) > MAX_LINES:
            raise _too_long()
    if unknown_headings and not (houses or "houses" in deck.metadata or _has_houses(deck.metadata.get("game"))):
        problems = sorted([*problems, *unknown_headings], key=lambda p: p.line)
    if problems:
        raise DecklistError(problems)
    if not headers and groups and len(set(groups)) == 2:
        # MTGO: the main deck, a blank line, the sideboard (and no header anywhere)
        last = groups[-1]
        for line_, in_group in zip(deck.lines, groups, strict=True):
            if in_group == last:
                line_.section = "side"
    return deck


def _has_houses(game: str | None) -> bool:
    """Whether the game a ``game:`` line names heads its decks by house (KeyForge)."""
    from catalog.games import get_game

    module = get_game((game or "").strip()) if game else None
    houses = getattr(module, "houses", None)
    return houses is not None and bool(houses.canonical)


def _icons(text: str) -> tuple[str, ...]:
    """``draw, capture`` / ``抽牌、捕获`` → the bonus icons, in our words."""
    return tuple(ICON_WORDS.get(fold(word), word.strip()) for word in re.split(r"[,，、\s]+", text) if word)


def parse_json(text: str) -> DeckList:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DecklistError(
            [LineProblem(error.lineno, Message(f"JSON 格式错误：{error.msg}", f"malformed JSON: {error.msg}"))]
        ) from error
    return from_json(data)


def from_json(data: Any) -> DeckList:
    """A decoded JSON deck (``{"name", "game", "format", "main": [{"card", "count"}], …}``)."""
    if not isinstance(data, dict):
        raise DecklistError([LineProblem(0, Message("JSON 卡组应是一个对象", "a JSON deck must be an object"))])
    deck = DeckList()
    problems: list[LineProblem] = []
    for key, value in data.items():
        if key in SECTIONS:
            continue
        if isinstance(value, str | int) and not isinstance(value, bool):
            deck.metadata[META_KEYS.get(fold(str(key)), str(key))] = str(value)
    ordinal = 0
    for section in SECTIONS:
        entries = data.get(section) or []
        if not isinstance(entries, list):
            problems.append(LineProblem(0, Message(f"「{section}」应是列表", f"'{section}' must be a list")))
            continue
        for index, entry in enumerate(entries):
            ordinal += 1
            if ordinal > MAX_LINES:
                raise _too_long()
            where = f"{section}[{index}]"
            if isinstance(entry, str):
                entry = {"card": entry}
            if not isinstance(entry, dict):
                problems.append(LineProblem(0, Message(f"{where} 应是对象", f"{where} must be an object")))
                continue
            count = entry.get("count", 1)
            name = str(entry.get("card") or entry.get("name") or "").strip()
            number = entry.get("number")
            if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
                problems.append(
                    LineProblem(
                        0,
                        Message(
                            f"{where}：张数应为 1 到 {MAX_COUNT} 的整数，而不是 {count!r}",
                            f"{where}: count must be a whole number 1 to {MAX_COUNT}, not {count!r}",
                        ),
                    )
                )
                continue
            if not name and not number:
                problems.append(LineProblem(0, Message(f"{where}：缺少 card", f"{where}: 'card' is missing")))
                continue
            set_code = entry.get("set")
            deck.lines.append(
                DeckLine(
                    0,
                    section,
                    count,
                    name,
                    str(set_code) if set_code else None,
                    str(number) if number else None,
                    raw=f"{count} {name}",
                )
            )
    if problems:
        raise DecklistError(problems)
    return deck


# ---------------------------------------------------------------------------- the card pool


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


# ---------------------------------------------------------------------------- writing


def merged(entries: Iterable[DeckEntry]) -> list[tuple[str, PoolCard, int, str | None]]:
    """Entries merged by (section, card, printing), in first-seen order: what export writes."""
    out: dict[tuple[str, int, str | None], list[Any]] = {}
    for entry in entries:
        key = (entry.section, entry.card.id, entry.set_code)
        if key in out:
            out[key][2] += entry.count
        else:
            out[key] = [entry.section, entry.card, entry.count, entry.set_code]
    return [(s, c, n, code) for s, c, n, code in out.values()]


def write_text(deck: Deck) -> str:
    """The deck in the DESIGN §4 text format (metadata, then 主卡组 / 额外卡组 / 备牌)."""
    lines: list[str] = []
    labels = {"name": "名称", "game": "游戏", "format": "赛制"}
    # The game by its name for people (游戏: 永恒之轮); reading accepts names and slugs alike.
    module = GAMES.get(deck.game or "")
    metadata = {"name": deck.name, "game": module.name if module else deck.game, "format": deck.format or ""}
    metadata |= {k: v for k, v in deck.metadata.items() if k not in metadata}
    for key, value in metadata.items():
        if value:
            lines.append(f"{labels.get(key, key)}: {value}")
    rows = merged(deck.entries)
    for section in SECTIONS:
        chosen = [r for r in rows if r[0] == section]
        if not chosen:
            continue
        lines.append("")
        lines.append(f"{SECTION_ZH[section]}:")
        for _s, card, count, set_code in chosen:
            lines.append(f"{count} {card.name}" + (f" ({set_code})" if set_code else ""))
    return "\n".join(lines).strip() + "\n"


def write_json(deck: Deck) -> dict[str, Any]:
    """The deck as DESIGN §4 JSON."""
    data: dict[str, Any] = {"name": deck.name, "game": deck.game, "format": deck.format}
    for key, value in deck.metadata.items():
        if key not in data:
            data[key] = value
    rows = merged(deck.entries)
    for section in SECTIONS:
        data[section] = [
            {"card": card.name, "count": count, **({"set": code} if code else {})}
            for s, card, count, code in rows
            if s == section
        ]
    return data


# ---------------------------------------------------------------------------- editing the text


def adjust_line(text: str, line: int, delta: int) -> str:
    """Add ``delta`` copies on card line ``line`` (1-based); a count reaching 0 removes the line.

    Other lines (comments, metadata, headers) are left as written; a line that is not a card
    line is not touched.
    """
    rows = text.splitlines()
    if not 1 <= line <= len(rows):
        return text
    written = unicodedata.normalize("NFKC", rows[line - 1]).strip()
    if not written or written.startswith("#") or (written.endswith(":") and ":" not in written[:-1]):
        return text
    match = _COUNT_FIRST.match(written) or _COUNT_LAST.match(written)
    if match is None and ":" in written and _META.match(written):
        return text
    count, body = (int(match["count"]), match["body"].strip()) if match else (1, written)
    count = max(0, min(MAX_COUNT, count + delta))
    if count:
        rows[line - 1] = f"{count} {body}"
    else:
        del rows[line - 1]
    return "\n".join(rows) + "\n"


def add_card(text: str, name: str, count: int = 1, section: str = "main") -> str:
    """``count`` more copies of ``name`` in ``section``: on the line already naming it there
    (so "3 赤晶幼龙" becomes "4 赤晶幼龙", not a second line), else a new line at the end of
    the section (adding its header if needed)."""
    name = name.strip()
    if not name or count < 1 or section not in SECTIONS:
        return text
    try:
        existing = [
            line
            for line in parse_decklist(text).lines
            if line.section == section and line.name and fold(line.name) == fold(name)
        ]
    except DecklistError:
        existing = []
    if existing:
        return adjust_line(text, existing[0].line, count)
    rows = text.splitlines()
    current = "main"
    last_of: dict[str, int] = {}
    for index, row in enumerate(rows):
        stripped = unicodedata.normalize("NFKC", row).strip()
        header, _looks = _header_of(stripped) if stripped and not _COUNT_FIRST.match(stripped) else (None, None)
        if header is not None:
            current = header
            last_of[current] = index
        elif stripped and not stripped.startswith("#"):
            last_of[current] = index
    entry = f"{min(count, MAX_COUNT)} {name}"
    if section in last_of:
        rows.insert(last_of[section] + 1, entry)
    else:
        rows += [f"{SECTION_ZH[section]}:", entry]
    return "\n".join(rows) + "\n"


def copies_by_name(text: str) -> dict[str, int]:
    """Copies per folded card name over every section of a list (lines naming a card by
    collector number are not counted: that needs the catalogue). An unreadable list → {}."""
    try:
        decklist = parse_decklist(text)
    except DecklistError:
        return {}
    counts: dict[str, int] = {}
    for line in decklist.lines:
        if line.name:
            key = fold(line.name)
            counts[key] = counts.get(key, 0) + line.count
    return counts


def remove_card(text: str, name: str) -> str:
    """One copy fewer of ``name`` (its last line naming it); the list unchanged if none does."""
    try:
        decklist = parse_decklist(text)
    except DecklistError:
        return text
    key = fold(name)
    lines = [line for line in decklist.lines if line.name and fold(line.name) == key]
    return adjust_line(text, lines[-1].line, -1) if lines else text

"""Decklist text and JSON (DESIGN §4) read into :class:`DeckList` lines.

:func:`parse_decklist` turns text into lines and raises :class:`DecklistError` (every bad line,
numbered) when the text cannot be read at all; naming the cards is :mod:`catalog.decks.resolve`'s.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.rules import SECTIONS
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
# Bounds on one decklist (every request does bounded work). A deck of any of our games
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
COUNT_FIRST = re.compile(r"^(?P<count>\d+)(?:[xX×*](?![A-Za-z])\s*|\s+[xX×*]\s+|\s+)(?P<body>\S.*)$")
COUNT_LAST = re.compile(r"^(?P<body>\S.*?)\s+[xX×*]\s*(?P<count>\d+)$")
_SET_SUFFIX = re.compile(r"^(?P<name>.*?)\s*\((?P<set>[^()]+)\)(?:\s+(?P<number>\S+))?$")
META = re.compile(r"^(?P<key>[^\s:()][^:()]{0,23}?)\s*:\s*(?P<value>\S.*)$")
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
    # KeyForge: the house the copies play for (a heading's or a maverick's), markers
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


def header_of(line: str) -> tuple[str | None, str | None]:
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
        if about and not COUNT_FIRST.match(line):
            key, _space, value = line.partition(" ")
            if ":" not in key and value.strip():
                deck.metadata[META_KEYS.get(fold(key), key)] = value.strip()
                continue
        line = _BULLET.sub("", line)
        count_match = COUNT_FIRST.match(line) or _COUNT_PREFIXED.match(line) or COUNT_LAST.match(line)
        if count_match is None:
            found, looks_like = header_of(line)
            if found is not None:
                section, house, headers, about = found, None, True, False
                continue
            if looks_like is not None:
                # a heading per house (KeyForge) when the deck is of a game with houses: known from
                # the caller, a houses: line or a game: line (checked at the end); else a problem
                section, house, headers, about = "main", looks_like, True, False
                unknown_headings.append(_unknown_section(number, looks_like))
                continue
        if count_match is None and ":" in line and (meta := META.match(line)):
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

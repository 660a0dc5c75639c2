"""The grade vocabularies of a collection item: condition, language and finish, with aliases.

One table per vocabulary maps every accepted spelling (folded: width-, case-, script- and
space-insensitive, parentheses and hyphens dropped) to the canonical value stored in the
database. The CSV importer, the API and the pages all read grades through :func:`parse_grade`.

Choices where usage differs (documented for users in the README):
- Conditions follow the usual NM/LP/MP/HP/DMG ladder. "Mint"/"M"/全新/近全新/完美 count as NM:
  nobody grades sealed-fresh cards separately here. Deckbox's ladder maps as Mint/Near Mint → NM,
  "Good (Lightly Played)" → LP, "Played" → MP, "Heavily Played" → HP, "Poor" → DMG.
- "Chinese"/中文/zh without a script means Simplified (简中), the main market of these games.
- A finish cell of yes/true/1/foil/闪卡 is 闪; empty/no/false/0/normal/non-foil is 普通, so
  Deckbox's ``Foil`` column (``foil`` or empty) reads directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalog.errors import LunzangError, Message
from catalog.text import fold

CONDITIONS = ("NM", "LP", "MP", "HP", "DMG")  # best to worst: the order of "worst acceptable"
LANGUAGES = ("简中", "繁中", "EN", "日")
FINISHES = ("普通", "闪")
DEFAULT_CONDITION, DEFAULT_LANGUAGE, DEFAULT_FINISH = "NM", "简中", "普通"

CONDITION_NAMES = {
    "NM": Message("近全新", "Near Mint"),
    "LP": Message("轻微使用", "Lightly Played"),
    "MP": Message("中度使用", "Moderately Played"),
    "HP": Message("重度使用", "Heavily Played"),
    "DMG": Message("损坏", "Damaged"),
}

LANGUAGE_NAMES = {
    "简中": Message("简体中文", "Simplified Chinese"),
    "繁中": Message("繁体中文", "Traditional Chinese"),
    "EN": Message("英文", "English"),
    "日": Message("日文", "Japanese"),
}
FINISH_NAMES = {"普通": Message("普通", "Non-foil"), "闪": Message("闪卡", "Foil")}
GRADE_NAMES = {"condition": CONDITION_NAMES, "language": LANGUAGE_NAMES, "finish": FINISH_NAMES}

_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "condition": {
        "NM": ("nm", "nearmint", "mint", "m", "nm/m", "nm-m", "全新", "近全新", "完美", "极好"),
        "LP": (
            "lp",
            "lightlyplayed",
            "goodlightlyplayed",
            "excellent",
            "ex",
            "sp",
            "slightlyplayed",
            "轻微使用",
            "轻度使用",
            "轻微磨损",
            "轻度磨损",
            "良好",
            "轻微",
        ),
        "MP": ("mp", "moderatelyplayed", "played", "good", "gd", "pl", "中度使用", "中度磨损", "一般", "中等"),
        "HP": ("hp", "heavilyplayed", "重度使用", "重度磨损", "较差", "严重磨损"),
        "DMG": ("dmg", "damaged", "poor", "po", "d", "损坏", "破损", "损毁", "残"),
    },
    "language": {
        "简中": (
            "简中",
            "简",
            "简体",
            "简体中文",
            "中文",
            "中文简体",
            "chinese",
            "simplifiedchinese",
            "chinesesimplified",
            "zh",
            "zhcn",
            "zhhans",
            "cn",
            "schinese",
            "chs",
            "sc",
        ),
        "繁中": (
            "繁中",
            "繁",
            "繁体",
            "繁体中文",
            "中文繁体",
            "traditionalchinese",
            "chinesetraditional",
            "zhtw",
            "zhhant",
            "zhhk",
            "tw",
            "tchinese",
            "cht",
            "tc",
        ),
        "EN": ("en", "english", "eng", "英", "英文", "英语", "英文版"),
        "日": ("日", "日文", "日语", "日本语", "日版", "japanese", "ja", "jp", "jpn"),
    },
    "finish": {
        "普通": ("普通", "普", "平", "平卡", "非闪", "normal", "nonfoil", "regular", "no", "false", "0", "n", "否"),
        "闪": ("闪", "闪卡", "闪光", "闪面", "foil", "yes", "true", "1", "y", "是", "holo", "holofoil"),
    },
}
_DEFAULTS = {"condition": DEFAULT_CONDITION, "language": DEFAULT_LANGUAGE, "finish": DEFAULT_FINISH}
_KNOWN = {"condition": CONDITIONS, "language": LANGUAGES, "finish": FINISHES}
_LABELS = {"condition": ("品相", "condition"), "language": ("语言", "language"), "finish": ("工艺", "finish")}
_PUNCTUATION = re.compile(r"[()（）\-_/·.]")


def grade_key(text: str) -> str:
    """A grade word as compared: folded, without parentheses, hyphens, underscores, slashes, dots."""
    return _PUNCTUATION.sub("", fold(text))


_key = grade_key
_FINISH_SUFFIXES = ("holofoil", "foil", "闪卡", "闪")


def split_finish(text: str) -> tuple[str, str] | None:
    """A condition word carrying the finish (TCGplayer: ``Lightly Played Foil``, ``Near Mint
    Holofoil``) → (condition word, finish word), else None."""
    key = grade_key(text)
    for suffix in _FINISH_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)], "闪"
    return None


_TABLES: dict[str, dict[str, str]] = {
    kind: {_key(alias): canonical for canonical, aliases in table.items() for alias in (canonical, *aliases)}
    for kind, table in _ALIASES.items()
}
# "nm/m" and similar lose their slash to _key; "n" is ambiguous between NM and 普通 only across
# vocabularies, never within one.


class BadGrade(LunzangError):
    """A condition, language or finish word that none of the vocabularies knows."""

    code = "bad_grade"

    def __init__(self, message: Message, field: str) -> None:
        super().__init__(message)
        self.field = field


def parse_grade(kind: str, text: str | None) -> str | None:
    """The canonical value of a ``kind`` ('condition' | 'language' | 'finish') cell, or None if unknown.

    An empty cell is the default (NM / 简中 / 普通).
    """
    if text is None or not text.strip():
        return _DEFAULTS[kind]
    return _TABLES[kind].get(_key(text))


def unknown_grade_message(kind: str, text: str) -> Message:
    zh, en = _LABELS[kind]
    known = " / ".join(_KNOWN[kind])
    return Message(f"未知的{zh}「{text}」，可用：{known}", f"unknown {en} '{text}'; known: {known}")


@dataclass(frozen=True, order=True)
class ItemGrade:
    """The grade that, with the printing, identifies a collection item."""

    condition: str = DEFAULT_CONDITION
    language: str = DEFAULT_LANGUAGE
    finish: str = DEFAULT_FINISH

    @classmethod
    def parse(cls, condition: str | None = None, language: str | None = None, finish: str | None = None) -> ItemGrade:
        """Grade words (any alias) → an ItemGrade, or :class:`BadGrade` naming the first bad word."""
        values = {}
        for kind, text in (("condition", condition), ("language", language), ("finish", finish)):
            value = parse_grade(kind, text)
            if value is None:
                raise BadGrade(unknown_grade_message(kind, text or ""), kind)
            values[kind] = value
        return cls(**values)


def condition_rank(condition: str) -> int:
    """0 for NM … 4 for DMG (higher is worse)."""
    return CONDITIONS.index(condition)


def acceptable(condition: str, worst: str) -> bool:
    """True if a card in ``condition`` is at least as good as the worst acceptable ``worst``."""
    return condition_rank(condition) <= condition_rank(worst)

"""Chinese text folding: the keys that make search and name matching script-insensitive.

Every name is stored together with precomputed keys (computed once, at import time):

- ``fold(text)``: NFKC (full-width → half-width), Traditional → Simplified (OpenCC ``t2s``),
  lower case, no whitespace. ``龍王`` and ``龙王`` and ``ＤＥＦ`` / ``def`` fold alike.
- ``pinyin_key(text)``: tone-less pinyin of the folded text, without separators (``sunwukong``).
- ``initials_key(text)``: first letters of each syllable (``swk``).

Non-Chinese characters pass through both pinyin keys unchanged (lower-cased), so a name such
as ``F.J之刃`` still matches ``f.jzhiren`` / ``f.jzr``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from typing import NamedTuple

import opencc

_WHITESPACE = re.compile(r"\s+")
# Name separators people type for the middle dot of 小红帽·狼猎手: all fold to U+00B7.
_DOTS = str.maketrans({"・": "·", "•": "·", "‧": "·", "･": "·", "⋅": "·"})
MAX_PHRASE = 10  # the longest entry of pypinyin's phrase dictionary


class _Pinyin(NamedTuple):
    readings: Mapping[int, object]  # code point → readings: which characters have pinyin at all
    phrases: Mapping[str, object]  # pypinyin's phrase dictionary (the keys are what we need)
    phrase_starts: frozenset[str]  # first two characters of every phrase


@functools.cache
def _pinyin() -> _Pinyin:
    """pypinyin's dictionaries, loaded on the first name that needs its pinyin.

    Importing pypinyin costs ~0.4 s (the phrase dictionary), which every command paid through
    this module; only an import computes pinyin keys — a query is matched against the keys
    stored with each name, so search, deck checks and pages never load it."""
    from pypinyin.phrases_dict import phrases_dict
    from pypinyin.pinyin_dict import pinyin_dict

    return _Pinyin(pinyin_dict, phrases_dict, frozenset(phrase[:2] for phrase in phrases_dict))


@functools.cache
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


@functools.cache
def _s2t() -> opencc.OpenCC:
    return opencc.OpenCC("s2t")


def normalize_width(text: str) -> str:
    """Full-width ASCII and compatibility forms to their plain forms (NFKC)."""
    return unicodedata.normalize("NFKC", text)


def to_simplified(text: str) -> str:
    """Traditional Chinese → Simplified (characters the converter knows; others unchanged)."""
    return _t2s().convert(text)


def to_traditional(text: str) -> str:
    """Simplified Chinese → Traditional (used for display hints, never for matching)."""
    return _s2t().convert(text)


@functools.lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """The matching key of a name or word: width-, script-, case- and space-insensitive.

    Cached: the vocabulary words of a large import (types, rarities, attributes) repeat.
    """
    text = text or ""
    if text.isascii():  # nothing to convert: skip NFKC and OpenCC (collector numbers, codes)
        return _WHITESPACE.sub("", text).lower()
    text = normalize_width(text).translate(_DOTS)
    text = to_simplified(text)
    return _WHITESPACE.sub("", text).lower()


@functools.cache
def _char_reading(char: str) -> str:
    """The usual tone-less reading of one character (pypinyin's first reading)."""
    from pypinyin import lazy_pinyin

    return lazy_pinyin(char)[0]


@functools.cache
def _phrase_readings(phrase: str) -> tuple[str, ...]:
    from pypinyin import lazy_pinyin

    return tuple(lazy_pinyin(phrase))


def syllables(text: str) -> list[str]:
    """Tone-less pinyin syllables of the folded text; other characters one item each.

    Forward longest match against pypinyin's phrase dictionary, so a polyphonic character
    takes the reading its word needs (长城 chang, 银行 hang); elsewhere each character's
    usual reading. This is pypinyin's own segmentation idea, done with cached lookups:
    the per-call cost of ``lazy_pinyin`` dominated large imports (measured: 3× slower).
    """
    folded = fold(text)
    if folded.isascii():  # nothing to read (codes, English names): no dictionary needed
        return list(folded)
    dictionaries = _pinyin()
    out: list[str] = []
    index, size = 0, len(folded)
    while index < size:
        char = folded[index]
        if char.isascii() or ord(char) not in dictionaries.readings:
            out.append(char)
            index += 1
            continue
        if folded[index : index + 2] not in dictionaries.phrase_starts:
            out.append(_char_reading(char))
            index += 1
            continue
        for length in range(min(MAX_PHRASE, size - index), 1, -1):
            phrase = folded[index : index + length]
            if phrase in dictionaries.phrases:
                out.extend(_phrase_readings(phrase))
                index += length
                break
        else:
            out.append(_char_reading(char))
            index += 1
    return out


def pinyin_key(text: str) -> str:
    """Tone-less pinyin of ``text``, syllables joined without separators."""
    return "".join(syllables(text))


def initials_key(text: str) -> str:
    """First letter of each pinyin syllable (other characters kept): ``孙悟空`` → ``swk``."""
    return "".join(s[:1] for s in syllables(text))


def pinyin_keys(text: str) -> tuple[str, str]:
    """Both keys with one conversion: ``(pinyin_key, initials_key)``."""
    parts = syllables(text)
    return "".join(parts), "".join(s[:1] for s in parts)


KEY_SEPARATOR = "\x1f"  # never typed in a query, so a substring test cannot span two keys


def search_keys_text(name_key: str, pinyin: str, initials: str, name_en: str) -> str:
    """The single searchable string of a name (see ``CardSearch.keys``)."""
    return KEY_SEPARATOR.join((name_key, pinyin, initials, name_en.lower()))

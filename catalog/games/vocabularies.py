"""A game's words for a field: a closed :class:`Vocabulary` (canonical words, synonyms, English
names), an :class:`AttributeSet` (several per card, a bit mask for search) and a
:class:`RarityLadder` (ordered, for ``r>=UR``). No game knowledge here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from catalog.errors import Message
from catalog.games.cells import FieldError
from catalog.text import fold


class Vocabulary:
    """Canonical terms with synonyms, matched after folding (width, script, case).

    ``Vocabulary({"火": ["红", "fire"], …})``: the canonical spelling is the key; every
    synonym and the Traditional spelling of the key resolve to it.
    """

    def __init__(self, terms: Mapping[str, Iterable[str]], *, english: Mapping[str, str] | None = None):
        self.terms: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in terms.items()}
        self.canonical: tuple[str, ...] = tuple(terms)
        self.english: dict[str, str] = dict(english or {})
        self._lookup: dict[str, str] = {}
        self._synonyms: dict[str, tuple[str, ...]] = {c: tuple(words) for c, words in terms.items()}
        for canonical, synonyms in self._synonyms.items():
            for word in (canonical, *synonyms, self.english.get(canonical, "")):
                if word:
                    self._lookup[fold(word)] = canonical

    def resolve(self, word: str) -> str | None:
        """The canonical term for ``word`` (any synonym or script), or ``None``."""
        found = self._lookup.get(word)  # fast path: already canonical (the usual case)
        return found if found is not None else self._lookup.get(fold(word))

    def index(self, canonical: str) -> int:
        return self.canonical.index(canonical)

    def english_name(self, canonical: str) -> str:
        """The word in English for the English pages (``战魂`` → Soul): the declared English,
        else the first ASCII synonym (what search accepts, ``t:soul``), else the word itself."""
        if canonical in self.english:
            return self.english[canonical]
        for word in self._synonyms.get(canonical, ()):
            if word.isascii():
                return word[:1].upper() + word[1:]
        return canonical

    def synonyms(self) -> dict[str, str]:
        """Every accepted (folded) spelling → its canonical term."""
        return dict(self._lookup)

    def __contains__(self, word: str) -> bool:
        return self.resolve(word) is not None

    def extended(self, extra: Mapping[str, Iterable[str]]) -> Vocabulary:
        """This vocabulary plus a catalogue's own words (manifest ``[vocabulary]``)."""
        terms = {k: list(v) for k, v in self.terms.items()}
        for word, aliases in extra.items():
            terms.setdefault(word, [])
            terms[word] += [a for a in aliases if a not in terms[word]]
        return type(self)(terms, english=self.english)

    def describe(self) -> str:
        return "、".join(self.canonical)


class AttributeSet(Vocabulary):
    """Attributes/colours a card can have several of; stored as a bit mask for search."""

    def mask(self, attributes: Iterable[str]) -> int:
        value = 0
        for attribute in attributes:
            value |= 1 << self.index(attribute)
        return value

    def parse_many(self, text: str, column: str) -> list[str]:
        """Split ``光暗`` or ``光|暗`` or ``light dark`` into canonical attributes, in order."""
        return list(self._parse_many(text, column))

    @functools.lru_cache(maxsize=1024)  # noqa: B019  (vocabularies live as long as the process)
    def _parse_many(self, text: str, column: str) -> tuple[str, ...]:
        text = text.strip()
        if not text:
            return ()
        parts = [p for p in re.split(r"[|/,，、\s]+", text) if p]
        found: list[str] = []
        for part in parts:
            single = self.resolve(part)
            if single is not None:
                found.append(single)
                continue
            # Chinese attributes are written together without separators: 光暗, 紅綠.
            for char in part:
                resolved = self.resolve(char)
                if resolved is None:
                    raise FieldError(
                        column,
                        Message(
                            f"未知的属性/颜色「{part}」，可用：{self.describe()}",
                            f"unknown attribute/colour '{part}'; known: {', '.join(self.canonical)}",
                        ),
                    )
                found.append(resolved)
        return tuple(a for a in self.canonical if a in found)


@dataclass(frozen=True)
class RarityLadder:
    """A game's rarities from lowest to highest; ``rank`` orders them for ``r>=UR``."""

    codes: tuple[str, ...]
    synonyms: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    labels_en: Mapping[str, str] = field(default_factory=dict)  # the English pages' names

    def resolve(self, word: str) -> str | None:
        if word in self.codes:
            return word
        key = fold(word)
        for code in self.codes:
            if fold(code) == key:
                return code
        for synonym, code in self.synonyms.items():
            if fold(synonym) == key:
                return code
        return None

    def rank(self, code: str) -> int:
        return self.codes.index(code)

    def label(self, code: str, language: str = "zh") -> str:
        if language == "en" and code in self.labels_en:
            return self.labels_en[code]
        return self.labels.get(code, code)

    def describe(self) -> str:
        return " < ".join(self.codes)

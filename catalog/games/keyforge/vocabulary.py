"""熔钥秘境 KeyForge: vocabulary, CSV columns and the community card-data JSON format.

Source: ``shared/seeds/004_1f8fe3ec01abfa21.txt`` ("每套牌组包含3个不同的派系").
House names: the seed names no house. Our Chinese renderings (used for sample data and for
the community JSON, whose houses are English slugs) are listed in ``HOUSES``; the English
names are accepted everywhere as synonyms.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from catalog.games.base import (
    N_,
    AttributeSet,
    FieldError,
    GameModule,
    Keyword,
    RarityLadder,
    Vocabulary,
    bad,
    cell,
    collect,
    parse_int,
    parse_list,
    written,
)
from catalog.games.keyforge.decks import ICON_WORDS, MARKERS, slugify
from catalog.text import fold, normalize_width

# Rules text as the sets write it: markup (``2<A>``), private-use glyphs (U+F360 the æmber
# icon, U+F361 damage …), Unicode spaces (U+202F, U+00A0), byte-order marks, carriage returns
# and line breaks differ between printings of the same words. The text we keep and compare is
# the words: icons as their letter, any run of spaces as one space.
_ICONS = {"\uf360": "A", "\uf361": "D"}
_RE_MARKUP = re.compile(r"<([A-Za-z])>")
_RE_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]+")


def normalise_text(text: str) -> str:
    """The words of a rules text (see :data:`_ICONS`); case is kept."""
    text = _RE_MARKUP.sub(lambda m: m[1].upper(), text)
    text = "".join(_ICONS.get(ch, ch) for ch in text)
    return _RE_SPACES.sub(" ", text).strip()


ACTION, ARTIFACT, CREATURE, UPGRADE = "行动", "神器", "生物", "升级"

TYPES = Vocabulary(
    {
        ACTION: ["行動", "action"],
        ARTIFACT: ["artifact"],
        CREATURE: ["creature"],
        UPGRADE: ["升級", "upgrade"],
    }
)

HOUSES = Vocabulary(
    {
        "布罗布纳": ["brobnar"],
        "冥界": ["dis"],
        "逻格斯": ["logos"],
        "火星": ["mars"],
        "圣所": ["sanctum"],
        "暗影": ["shadows", "shadow"],
        "野性": ["untamed"],
        # houses of later sets (not in the sample data), so their community files import too
        "星际联盟": ["staralliance", "star alliance"],
        "蜥人": ["saurian"],
        "深渊": ["unfathomable"],
        "埃克维顿": ["ekwidon"],
        "灵体": ["geistoid"],
        "天空之子": ["skyborn"],
    }
)


@dataclass(frozen=True)
class OpenRarityLadder(RarityLadder):
    """The ladder plus the rarity words the data brought (``Evil Twin``, ``Token``, ``The Tide``
    …): each is kept as the file writes it and ranks one step above the top of the ladder
    (they are not steps of the random ladder; ``r>Special`` finds them all)."""

    extra: tuple[str, ...] = ()

    def resolve(self, word: str) -> str | None:
        found = super().resolve(word)
        if found is not None:
            return found
        key = fold(word)
        return next((w for w in self.extra if fold(w) == key), None)

    def rank(self, code: str) -> int:
        return self.codes.index(code) if code in self.codes else len(self.codes)


# Common < Uncommon < Rare < Special. The community data also writes "FIXED" (cards every
# deck of a set gets) and "Variant" (alternative versions): both are outside the random
# rarity ladder, so we file them under Special, the top step, and say so here.
RARITY = OpenRarityLadder(
    ("Common", "Uncommon", "Rare", "Special"),
    synonyms={
        "普通": "Common",
        "罕见": "Uncommon",
        "非普通": "Uncommon",
        "稀有": "Rare",
        "特殊": "Special",
        "FIXED": "Special",
        "Variant": "Special",
    },
    labels={"Common": "普通", "Uncommon": "罕见", "Rare": "稀有", "Special": "特殊"},
    labels_en={"Common": "Common", "Uncommon": "Uncommon", "Rare": "Rare", "Special": "Special"},
)

KEYWORDS: tuple[Keyword, ...] = (
    Keyword("elusive", "闪避", "Elusive", "每回合第一次被攻击时，双方都不造成伤害。"),
    Keyword("skirmish", "冲锋", "Skirmish", "以它发起战斗时，它不受被攻击生物的伤害。"),
    Keyword("taunt", "嘲讽", "Taunt", "相邻的友方生物不能被攻击，除非先攻击它。"),
    Keyword("poison", "剧毒", "Poison", "它在战斗中造成的任何伤害都会摧毁受伤的生物。"),
    Keyword("assault", "突击", "Assault", "发起战斗时，先对被攻击的生物造成 X 点伤害。", has_value=True),
    Keyword("hazardous", "危险", "Hazardous", "被攻击时，先对攻击者造成 X 点伤害。", has_value=True),
    Keyword("deploy", "部署", "Deploy", "可以放在战线的任意位置，而不只是两端。"),
    Keyword("alpha", "先手", "Alpha", "只能在本回合还没有打出、使用或弃掉其他卡牌时打出。"),
    Keyword("omega", "终结", "Omega", "打出或使用后，本回合第三步结束。"),
)
_KEYWORD_LOOKUP = {fold(w): k for k in KEYWORDS for w in k.words()}  # the words kw: accepts too
_RE_KEYWORD = re.compile(r"^(?P<word>[^():：\d]+?)\s*(?:[(:：]\s*(?P<value>\d+)\s*\)?)?\s*(?P<bare>\d+)?$")
# KeyForge's lists are open: every set brings houses, keywords, card types and rarities
# no earlier set had, and later sets must import without a code change. A word we have not seen
# is accepted when it is a word: letters or digits (any script), single spaces, hyphens or
# underscores between them, at most 40 characters. Anything else (markup, punctuation, a
# spreadsheet error value) is refused.
_RE_WORD = re.compile(r"^[^\W_](?:[^\W_]|[ _-](?=[^\W_]))*$")
# What a spreadsheet writes in a cell whose formula failed; never a name (WC 339's zhhans name).
SPREADSHEET_ERRORS = frozenset(
    {"#N/A", "#REF!", "#VALUE!", "#NAME?", "#DIV/0!", "#NULL!", "#NUM!", "#SPILL!", "#CALC!", "#GETTING_DATA"}
)
# The file's card types that are not deck cards: token creatures come into play from a card's
# ability, prophecies and archon powers sit beside the deck, The Tide is a shared marker card.
NON_DECK_TYPES = frozenset({"token creature", "prophecy", "archon power", "the tide"})
# The file's "house" of those cards is no house a deck picks (their own cards say so: prophecy,
# archonpower, thetide); a deck never counts them among its three houses.
NON_DECK_HOUSES = frozenset({"prophecy", "archonpower", "thetide"})


def well_formed(word: str) -> bool:
    """Whether ``word`` can be a new vocabulary word (see :data:`_RE_WORD`)."""
    return 0 < len(word) <= 40 and _RE_WORD.match(word) is not None


def is_spreadsheet_error(value: str) -> bool:
    """``#N/A``, ``#REF!`` … (any case, surrounding spaces ignored)."""
    return value.strip().upper() in SPREADSHEET_ERRORS


def new_keyword(word: str) -> Keyword:
    """A keyword no glossary of ours names yet, known by the file's own word."""
    return Keyword(word, word, word, "", has_value=False)


def parse_keyword(raw: str, column: str = "keywords", lookup: Mapping[str, Keyword] | None = None) -> dict[str, Any]:
    """``突击(2)``, ``assault:2``, ``elusive`` → ``{kind, value, subject, label, new}``.

    A well-formed word no glossary names (``treachery``, ``splash-attack:3``) is a new keyword:
    accepted, with or without its value, ``new`` true."""
    text = normalize_width(raw).strip()
    match = _RE_KEYWORD.match(text)
    info = (lookup or _KEYWORD_LOOKUP).get(fold(match["word"])) if match else None
    value_text = (match["value"] or match["bare"]) if match else None
    if info is None and match is not None and well_formed(match["word"].strip().lower()):
        word = match["word"].strip().lower()
        value = int(value_text) if value_text else None
        label = f"{word}({value})" if value is not None else word
        return {"kind": word, "value": value, "subject": None, "label": label, "new": True}
    if info is None or match is None:
        known = "、".join(k.zh + ("(X)" if k.has_value else "") for k in KEYWORDS)
        raise bad(column, f"无法识别的关键字「{raw}」，可用：{known}", f"unknown keyword '{raw}'")
    value = int(value_text) if value_text else None
    if info.explanation == "":  # a keyword an earlier import brought: its value is optional
        label = f"{info.kind}({value})" if value is not None else info.kind
        return {"kind": info.kind, "value": value, "subject": None, "label": label}
    if info.has_value and value is None:
        raise bad(column, f"关键字「{raw}」需要数值，如 {info.zh}(2)", f"keyword '{raw}' needs a value")
    if not info.has_value and value is not None:
        raise bad(column, f"关键字「{raw}」不带数值", f"keyword '{raw}' takes no value")
    label = f"{info.zh}({value})" if info.has_value else info.zh
    return {"kind": info.kind, "value": value, "subject": None, "label": label}


class KeyForge(GameModule):
    slug = "keyforge"
    name = "熔钥秘境"
    name_en = "KeyForge"
    types = TYPES
    attributes = AttributeSet({})
    houses = HOUSES  # searched with f:/house: and a:/c: (KeyForge has houses, not colours)
    # "每套牌组包含3个不同的派系" names no house: a catalogue may add its publisher's (manifest
    # [vocabulary] houses = { "蛮族" = ["manzu"] })
    open_lists: ClassVar[Mapping[str, str]] = {"houses": "派系", "types": "类型"}
    # decklist markers and bonus icons (catalog.games.keyforge.decks)
    line_markers = MARKERS
    icon_words = ICON_WORDS
    card_slug = staticmethod(slugify)
    # the file's words for our fields, in messages
    file_columns: ClassVar[Mapping[str, str]] = {"faction": "house", "attack": "power", "defense": "armor"}
    # reprints may change a card's words: the newest set wins, older wordings stay on their
    # printings
    errata = True
    rarity = RARITY
    keywords = KEYWORDS
    game_columns = ("house", "amber", "power", "armor", "traits", "keywords", "name_en", "name_zhhant", "slug")
    # KeyForge says power and armour (searched as atk/def); the seed's own word is 力量值.
    field_labels: ClassVar[Mapping[str, str]] = {"faction": N_("派系"), "attack": N_("战斗力"), "defense": N_("护甲")}
    # "每套牌组包含3个不同的派系" — and the published decks hold 36 cards, 12 per house.
    rule_kinds: ClassVar[Mapping[str, Mapping[str, Any]]] = {"archon": {"main_min": 36, "main_max": 36, "houses": 3}}

    kind_names: ClassVar[Mapping[str, tuple[str, str]]] = {"archon": ("执政官", "Archon")}
    format_names_en: ClassVar[Mapping[str, str]] = {"执政官": "Archon", "執政官": "Archon"}

    def aliases(self) -> set[str]:
        return super().aliases() | {"keyforge", "kf", "熔鑰秘境"}

    def export_game_fields(self, card: Mapping[str, Any]) -> dict[str, str]:
        amber = (card["extra"] or {}).get("amber") or 0
        return {
            "house": card["faction"] or "",
            "amber": str(amber) if amber else "",
            "power": written(card["attack"]),
            "armor": written(card["defense"]),
            "traits": "|".join(card["traits"] or ()),
            "keywords": "|".join(k["label"] for k in card["keywords"] or ()),
            "name_en": card["name_en"] or "",
            "name_zhhant": str((card["extra"] or {}).get("zhhant") or ""),
            "slug": " ".join((card["extra"] or {}).get("ids") or ()),
        }

    def with_vocabulary(self, vocabulary: Mapping[str, Any] | None) -> GameModule:
        """Besides the open ``houses`` and ``types``: the keywords and rarities earlier imports
        brought (``keywords``: their words; ``new_rarities``: theirs)."""
        found = super().with_vocabulary(vocabulary)
        if not vocabulary or found is self:
            return found
        assert isinstance(found, KeyForge)
        words = [str(w) for w in vocabulary.get("keywords") or () if fold(str(w)) not in _KEYWORD_LOOKUP]
        if words and not getattr(found, "_extended_keywords", False):
            found.keywords = (*self.keywords, *(new_keyword(w) for w in words))
            found._keyword_lookup = {**_KEYWORD_LOOKUP, **{fold(w): new_keyword(w) for w in words}}
            found._extended_keywords = True
        rarities = tuple(str(r) for r in vocabulary.get("new_rarities") or ())
        if rarities and isinstance(found.rarity, OpenRarityLadder) and not found.rarity.extra:
            found.rarity = replace(found.rarity, extra=rarities)
        return found

    _keyword_lookup: Mapping[str, Keyword] = _KEYWORD_LOOKUP
    _extended_keywords = False

    def new_word(self, vocabulary: str, word: str) -> str | None:
        """KeyForge's lists are open: a well-formed word is a new word. Houses,
        types and keywords are stored in lower case as the community data writes them;
        rarities as written (``Evil Twin``)."""
        word = " ".join(word.split())
        if vocabulary == "rarities":
            return word if well_formed(word) and not is_spreadsheet_error(word) else None
        word = word.lower()
        return word if well_formed(word) else None

    def plays_as_creature(self, card_type: str | None) -> bool:
        """Creatures and the token creatures (anything the file calls a creature)."""
        return card_type is not None and (card_type == CREATURE or "creature" in card_type)

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        new_words: list[tuple[str, str]] = []
        houses: list[str] = []
        house_cell = cell(row, "house")
        for house_word in [w.strip() for w in re.split(r"[|｜]", house_cell) if w.strip()] or [""]:
            house = self.houses.resolve(house_word) if house_word else None
            if house is None and house_word and (house := self.new_word("houses", house_word)) is not None:
                new_words.append(("house", house))
            if house is None:
                errors.append(
                    bad(
                        "house",
                        f"无法识别的派系「{house_word}」：派系应是一个词（字母或数字，可含单个空格或连字符）"
                        f"，已知：{self.houses.describe()}",
                        f"unreadable house '{house_word}': a house is a word (letters or digits, single spaces"
                        " or hyphens between them)",
                    )
                )
            elif house not in houses:
                houses.append(house)
        power = collect(errors, parse_int, row, "power", low=0)
        armor = collect(errors, parse_int, row, "armor", low=0)
        if card_type is not None and not self.plays_as_creature(card_type):
            # The community data writes power 0 for every non-creature: read that as "none".
            for column, value in (("power", power), ("armor", armor)):
                if value:
                    errors.append(bad(column, "只有生物有力量/护甲", "only creatures have power/armor"))
            power = armor = None
        elif card_type is not None:
            # one printing writes armor null, its reprint 0: a creature without armor has 0
            power, armor = power or 0, armor or 0
        keywords = []
        for raw in parse_list(row, "keywords"):
            parsed = collect(errors, parse_keyword, raw, "keywords", self._keyword_lookup)
            if parsed is not None:
                if parsed.pop("new", False):
                    new_words.append(("keywords", parsed["kind"]))
                keywords.append(parsed)
        amber = collect(errors, parse_int, row, "amber", low=0) or 0
        # traits are a set: reprints list them in another order, or with a stray space ("elf ")
        traits = sorted({" ".join(t.split()) for t in parse_list(row, "traits")}, key=fold)
        text = normalise_text(cell(row, "text"))
        extra: dict[str, Any] = {"amber": amber}
        zhhant = cell(row, "name_zhhant")
        if zhhant:
            extra["zhhant"] = zhhant
        ids = sorted(set(cell(row, "slug").split()))
        if ids:
            extra["ids"] = ids  # keyteki's card ids: its decks name cards by them
        houses.sort(key=fold)  # one order whatever order the sets came in
        if len("|".join(houses)) > 64:
            errors.append(bad("house", "派系太多：合计不能超过 64 个字符", "too many houses: 64 characters at most"))
        fields: dict[str, Any] = {
            "faction": "|".join(houses),
            # KeyForge power/armor are searched as atk/def (DESIGN §6 keys).
            "attack": power,
            "defense": armor,
            "traits": traits,
            "keywords": keywords,
            "text": text,
            "printed_text": text,
            "name_en": cell(row, "name_en"),
            "extra": extra,
            "new_words": new_words,
        }
        refused = cell(row, "name_refused")
        if refused:
            fields["notes"] = [("name", refused)]
        return fields

    def errata_key(self, card: Mapping[str, Any]) -> tuple[Any, ...]:
        """What a reprint may change as an erratum (the newest set's wording wins): the card's
        words and numbers, not its identity (name, type)."""
        return (
            card["text"],
            tuple(k["label"] for k in card["keywords"]),
            tuple(card["traits"]),
            card["attack"],
            card["defense"],
            (card.get("extra") or {}).get("amber"),
        )

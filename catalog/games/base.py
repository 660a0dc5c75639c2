"""Shared machinery every game module composes (no game knowledge here): :class:`GameModule`,
keywords, the JSON card-data format hook. Its parts are re-exported here, where the games
import them: vocabularies (:mod:`catalog.games.vocabularies`) and cells (:mod:`catalog.games.cells`)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from catalog.errors import Message
from catalog.games.cells import FieldError as FieldError
from catalog.games.cells import RowErrors as RowErrors
from catalog.games.cells import bad as bad
from catalog.games.cells import cell as cell
from catalog.games.cells import collect as collect
from catalog.games.cells import parse_int as parse_int
from catalog.games.cells import parse_list as parse_list
from catalog.games.cells import written as written
from catalog.games.vocabularies import AttributeSet as AttributeSet
from catalog.games.vocabularies import RarityLadder as RarityLadder
from catalog.games.vocabularies import Vocabulary as Vocabulary
from catalog.rules import DrawModel, PoolCard, Rule, Rulebook
from catalog.text import fold, to_traditional

RGB = tuple[int, int, int]


def N_(text: str) -> str:  # the gettext marker Babel extracts: the site translates these words
    return text


# Words for card fields (msgids of the site, which translates them); a game whose players use
# other words overrides some in ``field_labels``. One set of words for pages and card faces.
FIELD_LABELS: Mapping[str, str] = {
    "attributes": N_("属性"),
    "faction": N_("阵营"),
    "cost": N_("费用"),
    "level": N_("等级"),
    "attack": N_("攻击力"),
    "defense": N_("防御力"),
    "life": N_("生命"),
    "amber": N_("琥珀"),
    "traits": N_("特征"),
}
# The same words shortened where a card face has no room for them.
SHORT_LABELS: Mapping[str, str] = {"攻击力": "攻", "防御力": "防"}


@dataclass
class ParsedCard:
    """What one CSV row says about the rules object (Card) and about its printing.

    ``card`` holds exactly the rules fields; two rows naming the same card must agree on it.
    """

    card: dict[str, Any]
    printing: dict[str, Any]


# How glossary explanations write "the keyword's number" (永恒之轮: 护盾 "括号中的数值";
# KeyForge: 突击 "X 点伤害"); :meth:`Keyword.explain` puts the card's number there.
VALUE_PLACEHOLDERS = ("括号中的数值", "括号中数值", "X")


@dataclass(frozen=True)
class Keyword:
    """One entry of a game's keyword glossary: how it is written and what it means."""

    kind: str
    zh: str
    en: str
    explanation: str
    has_value: bool = False
    has_subject: bool = False
    aliases: tuple[str, ...] = ()  # other spellings (魔抗 for 魔法抗性)

    def explain(self, *, value: int | None = None, subject: str | None = None) -> str:
        """The explanation for one card's keyword: its own trait or name in place of the
        glossary's 『A』 (『悟空』限定 → 特征『悟空』以外), its own number in place of "括号中的数值"
        or X. A keyword without that parameter (or a card without it) keeps the glossary's words."""
        text = self.explanation
        if self.has_subject and subject:
            text = text.replace("『A』", f"『{subject}』")
        if self.has_value and value is not None:
            for placeholder in VALUE_PLACEHOLDERS:
                text = text.replace(placeholder, str(value))
        return text

    def words(self) -> tuple[str, ...]:
        """Every spelling of the keyword that the importer and ``kw:`` accept alike:
        the Chinese word, the English word, the code and the aliases (folded when compared)."""
        return tuple(dict.fromkeys((self.zh, self.en, self.kind, *self.aliases)))


# The columns every game's CSV has (DESIGN §3).
COMMON_REQUIRED = ("set", "number", "name", "rarity", "type", "text")
COMMON_OPTIONAL = ("subtype", "flavor", "illustrator", "image")


@dataclass(frozen=True)
class JsonFormat:
    """A JSON card-data file a game reads besides the CSV folders (e.g. KeyForge community data)."""

    name: Message  # what the format is, for "not …" messages: "the … format (needs …)"
    recognises: Callable[[Any], bool]  # parsed JSON → is it this format?
    set_header: Callable[[Mapping[str, Any]], dict[str, Any]]  # → a manifest ``[[sets]]`` entry
    rows: Callable[[Mapping[str, Any]], list[tuple[int, dict[str, str]]]]  # → (card index, CSV row)
    # several files of the format in one import: the rows of all of them (newest set first) and
    # the database's names by English name → the rows with one name per card across sets
    unify: Callable[[list[dict[str, str]], Mapping[str, Any]], None] | None = None
    # a set's order among the format's sets (newer sets higher), from its header
    position: Callable[[Mapping[str, Any]], int] | None = None


class UnknownRuleKind(LookupError):
    """A game was asked for the rules of a kind it does not have: a programming error, never a
    silent "no rules" (which would pass every deck as legal)."""


class GameModule:
    """Everything particular to one game. Subclasses set the vocabulary and parse their columns;
    the game's package (``catalog/games/<game>/__init__.py``) assembles the instance with its
    rule sets, rulebook and draw model.

    ``parse_row`` turns one CSV row into a :class:`ParsedCard` or raises :class:`RowErrors`
    listing every bad cell, so the importer can report all problems at once.
    """

    slug: str = ""
    name: str = ""
    name_en: str = ""
    script: str = "hans"  # how the game's card data is written: "hans" or "hant"
    types: Vocabulary = Vocabulary({})
    attributes: AttributeSet = AttributeSet({})
    rarity: RarityLadder = RarityLadder(())
    game_columns: tuple[str, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    # rule kind → default parameters; the first kind is the game's default (DESIGN §5)
    rule_kinds: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    # rule kind → its name for people (Chinese, English), shown where no manifest format names it
    kind_names: ClassVar[Mapping[str, tuple[str, str]]] = {}
    # the English names of the formats the shipped catalogue names (format names are data; an
    # unknown one stays as written)
    format_names_en: ClassVar[Mapping[str, str]] = {}
    # vocabularies a catalogue may extend with its own words in the manifest's [vocabulary]
    # table (attribute name → what it is called in messages); the seeds leave them open
    open_lists: ClassVar[Mapping[str, str]] = {}
    # the series codes a set may have; empty = free text
    series: tuple[str, ...] = ()
    # field → the game's own word for it (over FIELD_LABELS)
    field_labels: ClassVar[Mapping[str, str]] = {}
    # what the game calls its basic cards (Chinese, English), when it has any (see is_basic)
    basic_names: tuple[str, str] = ("", "")
    # card frames: attribute/colour → colour; rarity code → colour (else by step on the ladder)
    attribute_colours: ClassVar[Mapping[str, RGB]] = {}
    rarity_colours: ClassVar[Mapping[str, RGB]] = {}
    # markers a decklist line may end with ([maverick] …) → the marker; bonus-icon words → icon
    line_markers: ClassVar[Mapping[str, str]] = {}
    icon_words: ClassVar[Mapping[str, str]] = {}
    # a card's id in the game's own deck files, from its English name (KeyForge: keyteki's slug)
    card_slug: Callable[[str], str] | None = None
    # decks are objects players own (KeyForge): a resolved deck → its canonical decklist text,
    # and → the figures its page shows
    write_deck: Callable[[Any], str] | None = None
    deck_figures: Callable[[Any], Any] | None = None
    # whether a reprint may change the card's words (an erratum: the newest set wins, see
    # errata_key); otherwise a reprint whose rules fields differ is refused (DESIGN §3)
    errata: bool = False

    def __init__(
        self,
        *,
        rule_sets: Mapping[str, Sequence[Rule]] | None = None,
        rulebook: Rulebook | None = None,
        draw_model: DrawModel | None = None,
        json_format: JsonFormat | None = None,
        basic_card: Callable[[PoolCard], bool] | None = None,
        deck_json: Callable[[Any], list[dict[str, Any]] | None] | None = None,
    ) -> None:
        self.rule_sets: dict[str, tuple[Rule, ...]] = {kind: tuple(rules) for kind, rules in (rule_sets or {}).items()}
        self.rulebook = rulebook  # what the rules page says; None = the game has no rules page
        self.draw_model = draw_model  # None: no odds table (the seed does not say what is seen)
        self.json_format = json_format  # None: the game is read from CSV folders only
        # the deck JSON shapes the game's players exchange besides ours (KeyForge: keyteki's,
        # Master Vault's) → plain deck dicts (catalog.decks.lists reads them); None: ours only
        self.deck_json = deck_json
        # Which cards are "basic" (永恒之轮: basic 法力石), those a player owns plenty of and a
        # proxy sheet may leave out; None: the game has none.
        self.basic_card = basic_card

    def is_basic(self, card: PoolCard) -> bool:
        """Whether ``card`` is one of the game's basic cards (see ``basic_card``)."""
        return self.basic_card is not None and self.basic_card(card)

    def rule_set(self, kind: str) -> tuple[Rule, ...]:
        """The rules of one of the game's rule kinds; :class:`UnknownRuleKind` for any other."""
        try:
            return self.rule_sets[kind]
        except KeyError:
            raise UnknownRuleKind(f"{self.slug} has no rules for the rule kind {kind!r}") from None

    def aliases(self) -> set[str]:
        return {self.name, self.name_en.lower(), fold(self.name)}

    def kind_name(self, kind: str, language: str = "zh") -> str:
        """A rule kind's name for people (``standard`` → 标准), else the kind itself."""
        names = self.kind_names.get(kind)
        return (names[1] if language == "en" else names[0]) if names else kind

    def format_name(self, name: str, language: str = "zh") -> str:
        """A format's name in the reader's language: English when this game knows it."""
        return self.format_names_en.get(name, name) if language == "en" else name

    def with_vocabulary(self, vocabulary: Mapping[str, Any] | None) -> GameModule:
        """This game as one catalogue speaks it: ``rarities`` (lowest → highest) replace the
        ladder, the words of an open list (``houses``) are added to it. The module itself is
        returned when there is nothing to change; equal vocabularies give the same object."""
        if not vocabulary:
            return self
        key = repr(sorted((k, repr(v)) for k, v in vocabulary.items()))
        cache = _VARIANTS.setdefault(id(self), {})
        found = cache.get(key)
        if found is None:
            found = copy.copy(self)
            rarities = vocabulary.get("rarities")
            if rarities:
                found.rarity = RarityLadder(tuple(str(r) for r in rarities))
            for name in self.open_lists:
                words = vocabulary.get(name)
                if words:
                    setattr(found, name, getattr(self, name).extended(words))
            if len(cache) > 64:  # bounded: catalogues rarely change their words
                cache.clear()
            cache[key] = found
        return found

    def labels(self) -> dict[str, str]:
        """Field → its word in this game (Simplified: the site's msgids, translated there)."""
        return {**FIELD_LABELS, **self.field_labels}

    def face_label(self, field: str) -> str:
        """The field's word as printed on a card face: short, in the game's script."""
        label = self.labels().get(field, field)
        label = SHORT_LABELS.get(label, label)
        return to_traditional(label) if self.script == "hant" else label

    @property
    def columns(self) -> tuple[str, ...]:
        return COMMON_REQUIRED + COMMON_OPTIONAL + self.game_columns

    def parse_row(self, row: Mapping[str, str]) -> ParsedCard:
        errors: list[FieldError] = []

        def attempt(fn: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except FieldError as error:
                errors.append(error)
                return None

        name = cell(row, "name")
        if not name:
            errors.append(bad("name", "卡名为空", "the name is empty"))
        new_words: list[tuple[str, str]] = []
        type_word = cell(row, "type")
        card_type = self.types.resolve(type_word) if type_word else None
        if card_type is None and type_word and (card_type := self.new_word("types", type_word)) is not None:
            new_words.append(("type", card_type))
        if card_type is None:
            errors.append(
                bad(
                    "type",
                    f"未知的类型「{type_word}」，可用：{self.types.describe()}",
                    f"unknown type '{type_word}'; known: {', '.join(self.types.canonical)}",
                )
            )
        rarity_word = cell(row, "rarity")
        rarity = self.rarity.resolve(rarity_word) if rarity_word else None
        if rarity is None and rarity_word and (rarity := self.new_word("rarities", rarity_word)) is not None:
            new_words.append(("rarity", rarity))
        if rarity is None:
            errors.append(
                bad(
                    "rarity",
                    f"未知的稀有度「{rarity_word}」，可用：{self.rarity.describe()}",
                    f"unknown rarity '{rarity_word}'; known: {self.rarity.describe()}",
                )
            )
        card: dict[str, Any] = {
            "type": card_type,
            "subtype": cell(row, "subtype"),
            "attributes": [],
            "cost_text": "",
            "cost": None,
            "cost_total": None,
            "attack": None,
            "defense": None,
            "level": None,
            "life": None,
            "faction": "",
            "traits": [],
            "keywords": [],
            "text": cell(row, "text"),
            "name_en": "",
            "extra": {},
        }
        game_fields = attempt(self.parse_game_fields, row, card_type, errors)
        if game_fields:
            card.update(game_fields)
        if errors:
            raise RowErrors(errors)
        new_words += card.pop("new_words", [])
        printing = {
            "rarity": rarity,
            "rarity_rank": self.rarity_rank(rarity) if rarity else 0,
            "flavor": cell(row, "flavor"),
            "illustrator": cell(row, "illustrator"),
            "image": cell(row, "image"),
            "printed_text": card.pop("printed_text", ""),
        }
        if new_words:
            printing["new_words"] = new_words
        notes = card.pop("notes", None)
        if notes:
            printing["notes"] = notes
        return ParsedCard(card=card, printing=printing)

    def new_word(self, vocabulary: str, word: str) -> str | None:
        """A word of an open list (``types``, ``rarities``, ``houses``, ``keywords``) that no
        vocabulary of this game names yet, as it will be stored; ``None``: refused. Games whose
        lists are closed (the seeds name them all) refuse every one."""
        return None

    def rarity_rank(self, rarity: str) -> int:
        """A rarity's step on the ladder; a new word (see :meth:`new_word`) sits above the top."""
        return self.rarity.rank(rarity) if rarity in self.rarity.codes else len(self.rarity.codes)

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        """The game's own columns → card fields; append to ``errors`` rather than stop."""
        return {}

    def export_game_fields(self, card: Mapping[str, Any]) -> dict[str, str]:
        """The inverse of :meth:`parse_game_fields`: a card's fields (``catalog.ingest.export``
        passes the stored Card's columns by name) → the game's own CSV cells, written so that
        parsing them again gives the same fields."""
        return {}

    def errata_key(self, card: Mapping[str, Any]) -> Any:
        """What an erratum may change of a card (games with ``errata``); two printings whose
        keys differ count as an erratum."""
        return None

    def keyword_info(self, kind: str) -> Keyword | None:
        for keyword in self.keywords:
            if keyword.kind == kind:
                return keyword
        return None


_VARIANTS: dict[int, dict[str, GameModule]] = {}

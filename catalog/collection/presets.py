"""The collection file presets: one per tool whose files we read, recognised by the header.

A preset names, for one tool, the columns it writes that we use (header word → field), the
columns it writes that we do not use (ignored, and listed in the report), the headers that
identify it, and the words it writes for a grade that our general vocabularies
(:mod:`catalog.collection.grades`) read otherwise or not at all. Header words are compared
folded, without spaces, underscores or hyphens (``Card Number`` = ``card_number`` =
``cardnumber``).

Fields: ``set`` (a set code), ``set_name``, ``number``, ``name``, ``quantity``, ``for_trade``,
``condition``, ``language``, ``finish``, ``game`` and ``binder`` (a ManaBox binder: one named
"Trade" holds cards for trade). A column a preset does not know is ignored and listed, never
fatal; a header naming none of set / name / number is not recognised (the user maps it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalog.text import fold

FIELDS = (
    "set",
    "set_name",
    "number",
    "name",
    "quantity",
    "for_trade",
    "condition",
    "language",
    "finish",
    "game",
    "binder",
)
IGNORE = "ignore"
_HEADER_NOISE = re.compile(r"[\s_\-]")


def header_key(cell: str) -> str:
    """A header cell as compared: folded, without spaces, underscores and hyphens."""
    return _HEADER_NOISE.sub("", fold(cell.strip()))


# The Cardmarket ladder (ManaBox, Dragon Shield): Mint, Near Mint, Excellent, Good, Light Played,
# Played, Poor. Its "Excellent" is TCGplayer's Lightly Played, its "Good" and "Light Played" are
# Moderately Played, its "Played" is Heavily Played (Cardmarket's own grading guide).
_CARDMARKET_CONDITIONS = {
    "mint": "NM",
    "mt": "NM",
    "nearmint": "NM",
    "excellent": "LP",
    "ex": "LP",
    "good": "MP",
    "gd": "MP",
    "lightplayed": "MP",
    "played": "HP",
    "pl": "HP",
    "poor": "DMG",
}
# Etched is a foil treatment: we keep one finish for all foils.
_ETCHED = {"etched": "闪", "etchedfoil": "闪"}


@dataclass(frozen=True)
class Preset:
    """One tool's file: what identifies it, the columns we read, the words it writes."""

    key: str  # the preset's name in reports and exports ("deckbox")
    label: str  # for people ("Deckbox (classic)")
    columns: dict[str, str]  # header key → field
    signatures: tuple[frozenset[str], ...]  # header keys that identify the tool (any one set, all of it)
    ignored: frozenset[str] = frozenset()  # the tool's other columns (we read nothing from them)
    values: dict[str, dict[str, str]] = field(default_factory=dict)  # field → word key → canonical value

    def score(self, keys: set[str]) -> int:
        """How well a header matches: 0 when no signature is all there; else the size of the
        largest signature matched, then how many columns the preset knows."""
        best = max((len(s) for s in self.signatures if s <= keys), default=0)
        if not best:
            return 0
        return best * 1000 + len(keys & (set(self.columns) | self.ignored))


def _keys(*words: str) -> frozenset[str]:
    return frozenset(header_key(w) for w in words)


def _columns(pairs: dict[str, str]) -> dict[str, str]:
    return {header_key(k): v for k, v in pairs.items()}


# Our own columns, with the Chinese and English words people write for them (also the fallback
# for a header no tool's signature matches).
OURS = _columns(
    {
        "set": "set",
        "set code": "set",
        "系列": "set",
        "系列代码": "set",
        "set name": "set_name",
        "系列名": "set_name",
        "系列名称": "set_name",
        "number": "number",
        "no": "number",
        "card number": "number",
        "collector number": "number",
        "编号": "number",
        "收藏编号": "number",
        "卡号": "number",
        "name": "name",
        "card name": "name",
        "card": "name",
        "卡名": "name",
        "名称": "name",
        "卡牌": "name",
        "quantity": "quantity",
        "qty": "quantity",
        "count": "quantity",
        "数量": "quantity",
        "张数": "quantity",
        "condition": "condition",
        "品相": "condition",
        "language": "language",
        "lang": "language",
        "语言": "language",
        "finish": "finish",
        "foil": "finish",
        "工艺": "finish",
        "for trade": "for_trade",
        "for_trade": "for_trade",
        "trade": "for_trade",
        "trade quantity": "for_trade",
        "tradelist count": "for_trade",
        "printing": "finish",
        "可交换": "for_trade",
        "交换": "for_trade",
        "game": "game",
        "游戏": "game",
    }
)

_DECKBOX_COLUMNS = _columns(
    {
        "Count": "quantity",
        "Tradelist Count": "for_trade",
        "Name": "name",
        "Edition": "set_name",
        "Edition Code": "set",
        "Card Number": "number",
        "Condition": "condition",
        "Language": "language",
        "Foil": "finish",
        "Game": "game",
    }
)
_DECKBOX_CLASSIC = _keys(
    "Signed", "Artist Proof", "Altered Art", "Misprint", "Promo", "Textless", "My Price", "Type", "Cost", "Rarity"
)
_DECKBOX_CURRENT = _DECKBOX_CLASSIC | _keys("Printing Id", "Printing Note", "Tags", "Decks")
_DECKBOX_ALL = _DECKBOX_CURRENT | _keys(
    "Decks Count Built",
    "Decks Count All",
    "Price",
    "Image URL",
    "Last Updated",
    "TcgPlayer ID",
    "Scryfall ID",
    "Cardmarket ID",
    "MKM ID",
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "deckbox",
        "Deckbox (all columns)",
        _DECKBOX_COLUMNS,
        (_keys("Count", "Edition", "Card Number", "Decks Count Built"), _keys("Count", "Name", "Image URL", "Edition")),
        _DECKBOX_ALL,
    ),
    Preset(
        "deckbox",
        "Deckbox",
        _DECKBOX_COLUMNS,
        (_keys("Count", "Edition", "Edition Code", "Card Number"), _keys("Count", "Name", "Printing Id")),
        _DECKBOX_CURRENT,
    ),
    Preset(
        "deckbox",
        "Deckbox (classic)",
        _DECKBOX_COLUMNS,
        # our own Deckbox export (8 columns) and older ones: one of Deckbox's words is enough
        (_keys("Count", "Edition", "Card Number"), _keys("Edition"), _keys("Tradelist Count"), _keys("Card Number")),
        _DECKBOX_CLASSIC,
    ),
    Preset(
        "manabox",
        "ManaBox",
        _columns(
            {
                "Binder Name": "binder",
                "Name": "name",
                "Set code": "set",
                "Set name": "set_name",
                "Collector number": "number",
                "Foil": "finish",
                "Quantity": "quantity",
                "Condition": "condition",
                "Language": "language",
            }
        ),
        (_keys("ManaBox ID"), _keys("Binder Name", "Set code", "Collector number")),
        _keys(
            "Binder Type",
            "Rarity",
            "ManaBox ID",
            "Scryfall ID",
            "Purchase price",
            "Misprint",
            "Altered",
            "Purchase price currency",
        ),
        {"condition": _CARDMARKET_CONDITIONS, "finish": _ETCHED},
    ),
    Preset(
        "moxfield",
        "Moxfield",
        _columns(
            {
                "Count": "quantity",
                "Tradelist Count": "for_trade",
                "Name": "name",
                "Edition": "set",
                "Condition": "condition",
                "Language": "language",
                "Foil": "finish",
                "Collector Number": "number",
            }
        ),
        (_keys("Count", "Edition", "Collector Number"), _keys("Count", "Edition", "Alter", "Proxy")),
        _keys("Tags", "Last Modified", "Alter", "Proxy", "Purchase Price", "Playtest Card"),
        {"finish": _ETCHED},
    ),
    Preset(
        "archidekt",
        "Archidekt",
        _columns(
            {
                "Quantity": "quantity",
                "Name": "name",
                "Finish": "finish",
                "Condition": "condition",
                "Language": "language",
                "Edition Name": "set_name",
                "Edition Code": "set",
                "Collector Number": "number",
            }
        ),
        (_keys("Quantity", "Edition Name", "Edition Code"), _keys("Finish", "Multiverse Id")),
        _keys("Date Added", "Purchase Price", "Tags", "Multiverse Id", "Scryfall ID", "Scryfall Oracle ID", "Types"),
        # Archidekt's language codes: CS / CT are its Simplified / Traditional Chinese
        {"language": {"cs": "简中", "ct": "繁中"}, "finish": _ETCHED},
    ),
    Preset(
        "tcgplayer",
        "TCGplayer",
        _columns(
            {
                "Quantity": "quantity",
                "Name": "name",
                "Set": "set_name",
                "Card Number": "number",
                "Set Code": "set",
                "Printing": "finish",
                "Condition": "condition",
                "Language": "language",
            }
        ),
        (_keys("Simple Name", "Product ID"), _keys("Quantity", "Set Code", "Printing", "SKU"), _keys("TCGplayer Id")),
        _keys("Simple Name", "Rarity", "Product ID", "SKU", "TCGplayer Id", "Price", "Add to Quantity", "Photo URL"),
        # TCGplayer writes "Chinese (S)" / "Chinese (T)"; its condition may carry the finish
        # ("Lightly Played Foil": read by catalog.collection.csvio)
        {"language": {"chineses": "简中", "chineset": "繁中"}},
    ),
    Preset(
        "dragonshield",
        "Dragon Shield",
        _columns(
            {
                "Folder Name": "binder",
                "Quantity": "quantity",
                "Trade Quantity": "for_trade",
                "Card Name": "name",
                "Set Code": "set",
                "Set Name": "set_name",
                "Card Number": "number",
                "Condition": "condition",
                "Printing": "finish",
                "Language": "language",
            }
        ),
        (_keys("Folder Name", "Card Name"), _keys("Trade Quantity", "Card Name"), _keys("Price Bought", "Card Name")),
        _keys("Price Bought", "Date Bought", "LOW", "MID", "MARKET", "Rarity"),
        {"condition": _CARDMARKET_CONDITIONS, "finish": _ETCHED},
    ),
)
LUNZANG = Preset("lunzang", "轮藏 Lunzang", OURS, (), frozenset())
PRESET_KEYS = ("lunzang", *dict.fromkeys(p.key for p in PRESETS))
# Binder or folder names that mean "these cards are for trade" (ManaBox, Dragon Shield).
TRADE_BINDERS = frozenset(fold(w) for w in ("Trade", "Trades", "Trade binder", "Tradelist", "可交换", "交换", "交换册"))


def detect(keys: list[str]) -> Preset:
    """The preset of a header (its cells' :func:`header_key`): the best-matching tool, else ours."""
    present = set(keys)
    best, best_score = LUNZANG, 0
    for preset in PRESETS:
        score = preset.score(present)
        if score > best_score:
            best, best_score = preset, score
    return best


def preset_for(key: str) -> Preset:
    """The preset named ``key`` (the first variant of a tool), for exports and ``--preset``."""
    if key == "lunzang":
        return LUNZANG
    return next(p for p in PRESETS if p.key == key)

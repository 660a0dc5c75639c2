"""永恒之轮 Eternal Samsara (EL): vocabulary, cost and keyword parsing.

Source: ``shared/seeds/000_3f4769f9eb2a054d.txt`` (the simple rules). Quotes from it are
given where a choice depends on its words.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from catalog.games.base import (
    RGB,
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
from catalog.text import fold, normalize_width

SOUL, MAGIC, VEHICLE, FORMATION, MANA_STONE = "战魂", "魔法", "载具", "阵型", "法力石"

TYPES = Vocabulary(
    {
        SOUL: ["戰魂", "soul"],
        MAGIC: ["magic", "spell"],
        VEHICLE: ["載具", "vehicle"],
        FORMATION: ["陣型", "formation"],
        MANA_STONE: ["mana stone", "manastone", "mana", "stone"],
    }
)

# "分为火（红色）、水（蓝色）、风（绿色）、地（黄色）、光（白色）、暗（紫色）六大属性。
#  另外，还有特别的无（黑色）属性。" — the colour names are accepted as synonyms.
ATTRIBUTES = AttributeSet(
    {
        "火": ["红", "紅", "fire", "red"],
        "水": ["蓝", "藍", "water", "blue"],
        "风": ["風", "绿", "綠", "wind", "green"],
        "地": ["黄", "黃", "earth", "yellow"],
        "光": ["白", "light", "white"],
        "暗": ["紫", "dark", "purple"],
        "无": ["無", "黑", "none", "colorless", "colourless", "black", "generic"],
    },
    english={"无": "Colorless"},  # the English pages' word: "None" would read as a missing value
)
GENERIC = "无"

RARITY = RarityLadder(
    ("C", "R", "PR", "UR", "SR"),
    labels={"C": "普通", "R": "稀有", "PR": "闪稀有", "UR": "超稀有", "SR": "特稀有"},
    # our renderings (the publisher gives no English names): 闪 = holo, 超 = ultra, 特 = special
    labels_en={"C": "Common", "R": "Rare", "PR": "Holo rare", "UR": "Ultra rare", "SR": "Special rare"},
)

KEYWORDS: tuple[Keyword, ...] = (
    Keyword(
        "unique", "场上唯一", "Unique", "同名的这张牌在你的场上最多只能有一张；名称须完全相同才受限制，法力石不受影响。"
    ),
    Keyword("instant", "瞬间", "Instant", "可以在任何能使用卡牌的时机使用，包括对手的回合。"),
    Keyword("flash", "闪现", "Flash", "不占用每回合只能使用一张战魂的次数。"),
    Keyword("assault", "突袭", "Assault", "在你的回合中，这张战魂战斗时超出对方防御力的伤害会打到对方玩家身上。"),
    Keyword(
        "first_strike", "先攻", "First strike", "在你的回合中战斗时先造成伤害；若先把对方击破，对方不能对它造成伤害。"
    ),
    Keyword("flying", "飞翔", "Flying", "可以越过对方防守区的卡牌，直接攻击对方玩家。"),
    Keyword("devout", "虔诚", "Devout", "攻击力和防御力不会被任何效果改变。"),
    Keyword("shield", "护盾", "Shield", "每次受到伤害时，伤害减少括号中的数值。", has_value=True),
    Keyword("regenerate", "再生", "Regenerate", "每次受到伤害时回复括号中的数值；被直接消灭时无效。", has_value=True),
    Keyword(
        "magic_resistance",
        "魔法抗性",
        "Magic resistance",
        "不受对方总费用不超过括号中数值的魔法影响。",
        has_value=True,
        aliases=("魔抗",),  # the seed itself says 魔抗 for short: "魔抗战魂免疫对方合计法力费用X…"
    ),
    Keyword("legion", "军团", "Legion", "构筑时同名卡最多可以放入括号中数值张，代替通常的三张上限。", has_value=True),
    Keyword("advance", "进击", "Advance", "即使在防守区也能像攻击区的战魂一样发动攻击。"),
    Keyword("guard", "防守", "Guard", "对方回合中，可以把对方的攻击对象改为自己（对飞翔也有效）。"),
    Keyword(
        "transform",
        "变幻",
        "Transform",
        "可以把手牌中的这张卡与你场上名称含有『A』的卡替换；每回合只能变幻一次。",
        has_subject=True,
    ),
    Keyword(
        "carrier",
        "载具",
        "Carrier",
        "这张载具最多可搭载括号中数值张具有特征『A』的战魂。",
        has_value=True,
        has_subject=True,
    ),
    Keyword(
        "name_unique",
        "唯一",
        "Name-unique",
        "你的场上只能有一张名称含有『A』的战魂；法力石不受影响。",
        has_subject=True,
    ),
    Keyword("restricted", "限定", "Restricted", "放入这张卡的卡组中，不能有特征『A』以外的战魂。", has_subject=True),
    Keyword("extra_build", "额外构筑", "Extra build", "构筑时放入额外卡组，而不是主卡组。"),
    Keyword("ambush", "埋伏", "Ambush", "可以盖放在战区；盖放时免疫卡牌效果、不能攻击或移动，伤害结算时翻开。"),
)

# Every word of a keyword (Chinese, English, code, aliases: Keyword.words) is read alike here
# and by search's kw: (one vocabulary,).
_PLAIN = {fold(w): k for k in KEYWORDS if not k.has_value and not k.has_subject for w in k.words()}
_VALUED = {fold(w): k for k in KEYWORDS if k.has_value and not k.has_subject for w in k.words()}
_SUBJECT_FIRST = {fold(w): k for k in KEYWORDS if k.has_subject and k.kind != "transform" for w in k.words()}
_BY_KIND = {k.kind: k for k in KEYWORDS}
_TRANSFORM_WORDS = {fold(w) for w in _BY_KIND["transform"].words()}

_BRACKETS = str.maketrans({"「": "『", "」": "』", "【": "『", "】": "』", "[": "『", "]": "』"})
_RE_VALUED = re.compile(r"^(?P<word>[^()『』]+)\((?P<value>\d+)\)$")
_RE_TRANSFORM = re.compile(r"^(?P<word>[^『』]+)『(?P<subject>[^』]+)』$")
_RE_SUBJECT_FIRST = re.compile(r"^『(?P<subject>[^』]+)』(?P<word>[^()]+?)(?:\((?P<value>\d+)\))?$")


def keyword_label(kind: str, value: int | None, subject: str | None) -> str:
    """The canonical written form of a parsed keyword (``军团(5)``, ``『童话』限定``)."""
    info = _BY_KIND[kind]
    if kind == "transform":
        return f"{info.zh}『{subject}』"
    if info.has_subject:
        suffix = f"({value})" if info.has_value else ""
        return f"『{subject}』{info.zh}{suffix}"
    if info.has_value:
        return f"{info.zh}({value})"
    return info.zh


KNOWN_KEYWORDS = "、".join(
    keyword_label(k.kind, None, "A" if k.has_subject else None).replace("(None)", "(X)")
    if k.has_value
    else keyword_label(k.kind, None, "A" if k.has_subject else None)
    for k in KEYWORDS
)


def parse_keyword(raw: str, column: str = "keywords") -> dict[str, Any]:
    """One keyword as written on the card → ``{kind, value, subject, label}``."""
    return dict(_parse_keyword(raw, column))


@functools.lru_cache(maxsize=4096)
def _parse_keyword(raw: str, column: str) -> dict[str, Any]:
    text = normalize_width(raw).translate(_BRACKETS).strip()
    text = re.sub(r"\s+", "", text)
    key = fold(text)
    value: int | None = None
    subject: str | None = None
    info: Keyword | None = None
    if key in _PLAIN:
        info = _PLAIN[key]
    elif match := _RE_VALUED.match(text):
        info = _VALUED.get(fold(match["word"]))
        value = int(match["value"])
    elif match := _RE_SUBJECT_FIRST.match(text):
        word = fold(match["word"])
        subject = match["subject"]
        value = int(match["value"]) if match["value"] else None
        info = _SUBJECT_FIRST.get(word)
        if info is not None and info.has_value != (value is not None):
            need = "需要" if info.has_value else "不带"
            raise bad(
                column,
                f"关键字「{raw}」{need}括号中的数值",
                f"keyword '{raw}' {'needs' if info.has_value else 'takes no'} a (number)",
            )
    elif (match := _RE_TRANSFORM.match(text)) and fold(match["word"]) in _TRANSFORM_WORDS:
        info = _BY_KIND["transform"]
        subject = match["subject"]
    if info is None:
        raise bad(column, f"无法识别的关键字「{raw}」，可用：{KNOWN_KEYWORDS}", f"unknown keyword '{raw}'")
    if subject is not None:
        subject = subject.strip()
    return {"kind": info.kind, "value": value, "subject": subject, "label": keyword_label(info.kind, value, subject)}


_COST_TOKEN = re.compile(r"(\d*)(\D)")


def parse_cost(raw: str, column: str = "cost") -> tuple[dict[str, int], int]:
    """``2火2无`` → ``({"火": 2, "无": 2}, 4)`` (see :func:`_parse_cost`)."""
    items, total = _parse_cost(raw, column)
    return dict(items), total


@functools.lru_cache(maxsize=4096)
def _parse_cost(raw: str, column: str) -> tuple[tuple[tuple[str, int], ...], int]:
    """``2火2无`` → ``({"火": 2, "无": 2}, 4)``.

    The seed: "一张卡牌的右上角标示着2红（火属性）2黑（无属性），那么只要你有四张以上的法力石，
    并且其中最少有两张是红色（火属性）就可以使用了". A bare number (``3``) is generic (无)
    cost; an attribute without a number counts one (``火火`` = ``2火``).
    """
    text = normalize_width(raw).replace(" ", "")
    if re.fullmatch(r"\d+", text):
        amount = int(text)
        return (((GENERIC, amount),) if amount else ()), amount
    cost: dict[str, int] = {}
    position = 0
    for match in _COST_TOKEN.finditer(text):
        if match.start() != position:
            break
        attribute = ATTRIBUTES.resolve(match[2])
        if attribute is None:
            raise bad(
                column, f"费用「{raw}」中「{match[2]}」不是属性", f"cost '{raw}': '{match[2]}' is not an attribute"
            )
        cost[attribute] = cost.get(attribute, 0) + (int(match[1]) if match[1] else 1)
        position = match.end()
    if position != len(text) or not text:
        raise bad(column, f"费用「{raw}」格式错误，应写成如 2火2无", f"malformed cost '{raw}'; write it like 2火2无")
    ordered = tuple((a, cost[a]) for a in ATTRIBUTES.canonical if a in cost)
    return ordered, sum(n for _a, n in ordered)


class Samsara(GameModule):
    slug = "samsara"
    name = "永恒之轮"
    name_en = "Eternal Samsara"
    types = TYPES
    attributes = ATTRIBUTES
    rarity = RARITY
    keywords = KEYWORDS
    game_columns = ("attribute", "cost", "attack", "defense", "traits", "keywords")
    series = ("S", "M", "P", "G")
    # what the game calls its basic cards (GameModule.is_basic: rules.is_basic_stone)
    basic_names = ("基本法力石", "basic mana stones")
    # "火（红色）、水（蓝色）、风（绿色）、地（黄色）、光（白色）、暗（紫色）…无（黑色）"
    attribute_colours: ClassVar[Mapping[str, RGB]] = {
        "火": (200, 44, 36),
        "水": (37, 99, 200),
        "风": (30, 150, 70),
        "地": (205, 160, 20),
        "光": (236, 232, 218),
        "暗": (120, 40, 180),
        "无": (38, 38, 42),
    }
    rarity_colours: ClassVar[Mapping[str, RGB]] = {
        "C": (140, 144, 150),
        "R": (50, 110, 220),
        "PR": (150, 80, 220),
        "UR": (230, 150, 20),
        "SR": (215, 40, 50),
    }
    # "卡组下限为50张，上限为60张，名称相同的卡牌最多只能放入三张。"
    rule_kinds: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "standard": {"main_min": 50, "main_max": 60, "copy_limit": 3, "extra_max": None}
    }

    kind_names: ClassVar[Mapping[str, tuple[str, str]]] = {"standard": ("标准", "Standard")}
    format_names_en: ClassVar[Mapping[str, str]] = {"标准": "Standard", "M8 新环境": "M8 new environment"}

    def aliases(self) -> set[str]:
        return super().aliases() | {"el", "eternal samsara", "永恆之輪"}

    def export_game_fields(self, card: Mapping[str, Any]) -> dict[str, str]:
        return {
            "attribute": card["attributes"] or "",
            "cost": card["cost_text"] or "",
            "attack": written(card["attack"]),
            "defense": written(card["defense"]),
            "traits": "|".join(card["traits"] or ()),
            "keywords": "|".join(k["label"] for k in card["keywords"] or ()),
        }

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        attributes = collect(errors, ATTRIBUTES.parse_many, cell(row, "attribute"), "attribute")
        fields["attributes"] = attributes or []
        raw_cost = cell(row, "cost")
        if raw_cost:
            if card_type == MANA_STONE:
                errors.append(bad("cost", "法力石没有费用", "a mana stone has no cost"))
            else:
                parsed = collect(errors, parse_cost, raw_cost)
                if parsed is not None:
                    fields["cost"], fields["cost_total"] = parsed
                    fields["cost_text"] = "".join(f"{n}{a}" for a, n in parsed[0].items()) or "0"
        for column in ("attack", "defense"):
            value = collect(errors, parse_int, row, column, low=0)
            if value is not None and card_type not in (SOUL, VEHICLE, None):
                errors.append(
                    bad(
                        column,
                        f"{card_type}没有攻击力/防御力",
                        f"a {TYPES.english.get(card_type or '', card_type)} has no attack/defense",
                    )
                )
            fields[column] = value
        fields["traits"] = parse_list(row, "traits")
        keywords = []
        for raw in parse_list(row, "keywords"):
            parsed_keyword = collect(errors, parse_keyword, raw)
            if parsed_keyword is not None:
                keywords.append(parsed_keyword)
        fields["keywords"] = keywords
        return fields

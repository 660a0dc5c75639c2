"""熔钥秘境 KeyForge: vocabulary, CSV columns and the community card-data JSON format.

Source: ``shared/seeds/004_1f8fe3ec01abfa21.txt`` ("每套牌组包含3个不同的派系").
House names: the seed names no house. Our Chinese renderings (used for sample data and for
the community JSON, whose houses are English slugs) are listed in ``HOUSES``; the English
names are accepted everywhere as synonyms.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
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
from catalog.text import fold, normalize_width

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

# Common < Uncommon < Rare < Special. The community data also writes "FIXED" (cards every
# deck of a set gets) and "Variant" (alternative versions): both are outside the random
# rarity ladder, so we file them under Special, the top step, and say so here.
RARITY = RarityLadder(
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


def parse_keyword(raw: str, column: str = "keywords") -> dict[str, Any]:
    """``突击(2)``, ``assault:2``, ``elusive`` → ``{kind, value, subject, label}``."""
    text = normalize_width(raw).strip()
    match = _RE_KEYWORD.match(text)
    info = _KEYWORD_LOOKUP.get(fold(match["word"])) if match else None
    if info is None or match is None:
        known = "、".join(k.zh + ("(X)" if k.has_value else "") for k in KEYWORDS)
        raise bad(column, f"无法识别的关键字「{raw}」，可用：{known}", f"unknown keyword '{raw}'")
    value_text = match["value"] or match["bare"]
    value = int(value_text) if value_text else None
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
    open_lists: ClassVar[Mapping[str, str]] = {"houses": "派系"}
    rarity = RARITY
    keywords = KEYWORDS
    game_columns = ("house", "amber", "power", "armor", "traits", "keywords", "name_en")
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
        }

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        house_word = cell(row, "house")
        house = self.houses.resolve(house_word) if house_word else None
        if house is None:
            errors.append(
                bad(
                    "house",
                    f"未知的派系「{house_word}」，可用：{self.houses.describe()}"
                    "（其他派系可在 manifest 的 [vocabulary] 中声明）",
                    f"unknown house '{house_word}' (declare other houses in the manifest's [vocabulary])",
                )
            )
        power = collect(errors, parse_int, row, "power", low=0)
        armor = collect(errors, parse_int, row, "armor", low=0)
        if card_type not in (CREATURE, None):
            # The community data writes power 0 for every non-creature: read that as "none".
            for column, value in (("power", power), ("armor", armor)):
                if value:
                    errors.append(bad(column, "只有生物有战斗力/护甲", "only creatures have power/armor"))
            power = armor = None
        keywords = []
        for raw in parse_list(row, "keywords"):
            parsed = collect(errors, parse_keyword, raw)
            if parsed is not None:
                keywords.append(parsed)
        amber = collect(errors, parse_int, row, "amber", low=0) or 0
        return {
            "faction": house or "",
            # KeyForge power/armor are searched as atk/def (DESIGN §6 keys).
            "attack": power,
            "defense": armor,
            "traits": parse_list(row, "traits"),
            "keywords": keywords,
            "name_en": cell(row, "name_en"),
            "extra": {"amber": amber},
        }

"""誅天: vocabulary and CSV columns. Source: ``shared/seeds/002_5760857c48ea0168.txt``.

Rarity: the seed says only "每張卡牌都有“稀有度”，越稀有的卡牌拿到的幾率越小" and names no
levels. Our choice, for sample data and user files alike: C < U < R < SR (the most common
four-step ladder of the genre), with Chinese synonyms 普通/罕見/稀有/超稀有.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from catalog.games.base import (
    N_,
    AttributeSet,
    FieldError,
    GameModule,
    RarityLadder,
    Vocabulary,
    bad,
    cell,
    collect,
    parse_int,
    written,
)

ROLE, THEME, FATE, CREATURE, SPELL, EQUIPMENT, SKILL = "角色", "主題", "命", "活物", "術法", "裝備", "技能"

TYPES = Vocabulary(
    {
        ROLE: ["role", "profession", "職業"],
        THEME: ["主题", "theme"],
        FATE: ["fate"],
        CREATURE: ["creature"],
        SPELL: ["术法", "spell"],
        EQUIPMENT: ["装备", "equipment"],
        SKILL: ["skill"],
    }
)

# "限制級為“限制”的卡牌在一個卡組中只能放入一張，限制級為“準限制”的卡牌可以放入兩張，
#  限制級為“無”的卡牌可最多放入四張。"
RESTRICTIONS = Vocabulary(
    {"限制": ["limited"], "準限制": ["准限制", "semi-limited", "semilimited"], "無": ["无", "unlimited", "none"]}
)
COPY_LIMITS = {"限制": 1, "準限制": 2, "無": 4}

RARITY = RarityLadder(
    ("C", "U", "R", "SR"),
    synonyms={"普通": "C", "罕見": "U", "罕见": "U", "稀有": "R", "超稀有": "SR"},
    labels={"C": "普通", "U": "罕見", "R": "稀有", "SR": "超稀有"},
    labels_en={"C": "Common", "U": "Uncommon", "R": "Rare", "SR": "Super rare"},
)


class Zhutian(GameModule):
    slug = "zhutian"
    name = "誅天"
    name_en = "Zhutian"
    script = "hant"
    types = TYPES
    attributes = AttributeSet({})
    rarity = RARITY
    game_columns = ("faction", "level", "restriction", "attack", "defense")
    field_labels: ClassVar[Mapping[str, str]] = {"faction": N_("职业")}
    # "娛樂規則使用公共卡組，最少108張卡牌，最多無上限" / "競技規則使用個人卡組，最少36 張，最多72 張"
    rule_kinds: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "casual": {"main_min": 108, "main_max": None},
        "competitive": {"main_min": 36, "main_max": 72},
    }

    kind_names: ClassVar[Mapping[str, tuple[str, str]]] = {
        "casual": ("娱乐规则", "Casual"),
        "competitive": ("竞技规则", "Competitive"),
    }
    format_names_en: ClassVar[Mapping[str, str]] = {"娛樂規則": "Casual", "競技規則": "Competitive"}

    def aliases(self) -> set[str]:
        return super().aliases() | {"诛天"}

    def export_game_fields(self, card: Mapping[str, Any]) -> dict[str, str]:
        restriction = (card["extra"] or {}).get("restriction") or "無"
        return {
            "faction": card["faction"] or "",
            "level": written(card["level"]),
            "restriction": "" if restriction == "無" else restriction,
            "attack": written(card["attack"]),
            "defense": written(card["defense"]),
        }

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        restriction_word = cell(row, "restriction") or "無"
        restriction = RESTRICTIONS.resolve(restriction_word)
        if restriction is None:
            errors.append(
                bad(
                    "restriction",
                    f"未知的限制級「{restriction_word}」，可用：限制、準限制、無",
                    f"unknown restriction '{restriction_word}'; known: 限制, 準限制, 無",
                )
            )
        fields: dict[str, Any] = {
            "faction": cell(row, "faction"),
            "level": collect(errors, parse_int, row, "level", low=1, high=9),
            "extra": {"restriction": restriction, "copy_limit": COPY_LIMITS.get(restriction or "無", 4)},
        }
        for column in ("attack", "defense"):
            value = collect(errors, parse_int, row, column, low=0)
            if value is not None and card_type not in (CREATURE, None):
                errors.append(bad(column, "只有活物有攻擊力/防禦力", "only creatures have attack/defense"))
            fields[column] = value
        return fields

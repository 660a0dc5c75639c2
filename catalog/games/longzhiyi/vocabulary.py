"""龍之弈: vocabulary and CSV columns. Source: ``shared/seeds/001_8b66ae0f33d52d89.txt``.

Card data is written in Traditional Chinese and stored as written; matching folds scripts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from catalog.games.base import (
    N_,
    RGB,
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

PERSON, TREASURE, SPELL, WEAPON = "人物", "寶物", "法術", "武器"

TYPES = Vocabulary(
    {
        PERSON: ["character", "person"],
        TREASURE: ["宝物", "treasure"],
        SPELL: ["法术", "spell"],
        WEAPON: ["weapon"],
    }
)

# "所有卡牌劃分為五種顏色，分別是白，藍，黑，紅，綠。"
COLORS = AttributeSet(
    {
        "白": ["white", "w"],
        "藍": ["蓝", "blue", "u"],
        "黑": ["black", "b"],
        "紅": ["红", "red", "r"],
        "綠": ["绿", "green", "g"],
    }
)

# "星數越多表示此張牌越稀有。卡牌的稀有度最高為五星級。"
RARITY = RarityLadder(
    ("1", "2", "3", "4", "5"),
    synonyms={
        **{"★" * n: str(n) for n in range(1, 6)},
        **{f"{n}星": str(n) for n in range(1, 6)},
        **{f"{zh}星": str(n) for n, zh in enumerate("一二三四五", start=1)},
    },
    labels={str(n): "★" * n for n in range(1, 6)},
)


class Longzhiyi(GameModule):
    slug = "longzhiyi"
    name = "龍之弈"
    name_en = "Longzhiyi"
    script = "hant"
    types = TYPES
    attributes = COLORS
    rarity = RARITY
    game_columns = ("color", "level", "cost", "attack", "life", "defense")
    field_labels: ClassVar[Mapping[str, str]] = {"attributes": N_("颜色")}
    # 白、藍、黑、紅、綠: the frame colours of EL's matching attributes
    attribute_colours: ClassVar[Mapping[str, RGB]] = {
        "紅": (200, 44, 36),
        "藍": (37, 99, 200),
        "綠": (30, 150, 70),
        "白": (236, 232, 218),
        "黑": (38, 38, 42),
    }
    # "至少40張卡牌的套牌（在正式比賽中卡牌不能低於60張）和一張武器牌，其中相同的卡牌不能超過3張
    #  （正式比賽中不能超過4張）"
    rule_kinds: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "casual": {"main_min": 40, "main_max": None, "copy_limit": 3},
        "tournament": {"main_min": 60, "main_max": None, "copy_limit": 4},
    }

    kind_names: ClassVar[Mapping[str, tuple[str, str]]] = {
        "casual": ("休闲", "Casual"),
        "tournament": ("正式比赛", "Tournament"),
    }
    format_names_en: ClassVar[Mapping[str, str]] = {"休閒賽": "Casual", "正式比賽": "Tournament"}

    def aliases(self) -> set[str]:
        return super().aliases() | {"龙之弈", "lzy"}

    def export_game_fields(self, card: Mapping[str, Any]) -> dict[str, str]:
        return {
            "color": card["attributes"] or "",
            "level": written(card["level"]),
            "cost": written(card["cost_total"]),
            "attack": written(card["attack"]),
            "life": written(card["life"]),
            "defense": written(card["defense"]),
        }

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        colors = collect(errors, COLORS.parse_many, cell(row, "color"), "color") or []
        if card_type == WEAPON and not colors and not errors:
            errors.append(bad("color", "武器必須有顏色", "a weapon needs at least one colour"))
        cost = collect(errors, parse_int, row, "cost", low=0)
        fields: dict[str, Any] = {
            "attributes": colors,
            "level": collect(errors, parse_int, row, "level", low=0),
            "cost_total": cost,
            "cost_text": "" if cost is None else str(cost),
        }
        for column in ("attack", "life", "defense"):
            value = collect(errors, parse_int, row, column, low=0)
            if value is not None and card_type not in (PERSON, None):
                errors.append(bad(column, f"只有人物牌有{column}數值", f"only characters have {column}"))
            fields[column] = value
        return fields

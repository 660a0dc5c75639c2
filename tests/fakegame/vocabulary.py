"""水墨: two card types, three rarities, one game column (ink, a cost)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from catalog.games.base import FieldError, GameModule, RarityLadder, Vocabulary, collect, parse_int

BRUSH, SCROLL = "笔", "卷"
TYPES = Vocabulary({BRUSH: ["brush"], SCROLL: ["scroll"]})
RARITY = RarityLadder(("白", "灰", "墨"), labels={"白": "白", "灰": "灰", "墨": "墨"})


class Shuimo(GameModule):
    slug = "shuimo"
    name = "水墨"
    name_en = "Shuimo"
    types = TYPES
    rarity = RARITY
    game_columns = ("ink",)
    field_labels: ClassVar[Mapping[str, str]] = {"cost": "墨量"}
    rule_kinds: ClassVar[Mapping[str, Mapping[str, Any]]] = {"duel": {"main_min": 6, "main_max": 6, "copy_limit": 2}}

    def parse_game_fields(
        self, row: Mapping[str, str], card_type: str | None, errors: list[FieldError]
    ) -> dict[str, Any]:
        ink = collect(errors, parse_int, row, "ink", low=0)
        return {"cost_total": ink, "cost_text": "" if ink is None else str(ink)}

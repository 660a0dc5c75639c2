"""Owned KeyForge decks: the time they are registered at and two decklists (one with an enhanced
card, one without)."""

from __future__ import annotations

from datetime import UTC, datetime

NOW = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)


DECK = """name: 山岳速攻
houses: 布罗布纳, 冥界, 圣所
布罗布纳:
12 山岳拳王
冥界:
12 哀嚎门卫 [enhanced: draw]
圣所:
11 光辉圣骑
1 锅盖哥布林 [maverick]
"""


OTHER = DECK.replace("山岳速攻", "另一副").replace("12 哀嚎门卫 [enhanced: draw]", "12 哀嚎门卫")

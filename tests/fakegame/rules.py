"""水墨 construction rules: exactly 6 cards, at most 2 of a name (and the shared rules)."""

from __future__ import annotations

from catalog.errors import Message
from catalog.rules import CopyLimit, DrawModel, FormatSpec, PoolCard, Rule, Rulebook, SectionSize, standard_rules


def _copy_limit(card: PoolCard, fmt: FormatSpec) -> int | None:
    return fmt.param("copy_limit")


DUEL: tuple[Rule, ...] = (
    SectionSize("deck_size", ("main",), "deck_too_small", "deck_too_large", label="卡组", label_en="deck"),
    CopyLimit("copy_limit", _copy_limit),
    *standard_rules(),
)
RULE_SETS: dict[str, tuple[Rule, ...]] = {"duel": DUEL}
DRAW_MODEL = DrawModel(3, note="起手 3 张", note_en="3-card opening hand")
RULEBOOK = Rulebook(
    seed="(none: a made-up test game)",
    rules=(Message("卡组恰好 6 张，同名卡最多 2 张。", "Exactly 6 cards, at most 2 of a name."),),
)

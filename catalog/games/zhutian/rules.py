"""誅天 construction rules (DESIGN §5).

Source: "娛樂規則使用公共卡組，最少108張卡牌" / "競技規則使用個人卡組，最少36 張，最多72 張" /
"限制級為“限制”的卡牌…只能放入一張，…“準限制”…兩張，…“無”…最多放入四張" / "不同的職業組建
卡組時，不允許放入非本陣營的卡片，但可放入無陣營的卡片" / "卡組包括活物卡，術法卡和裝備卡".
Our choices where the seed is silent:
- the game has no extra deck ("卡組包括活物卡，術法卡和裝備卡"), so a list with an 额外卡组
  section is an error (``extra_deck_not_used``); its cards still count towards the size, as
  the player meant them. The side board: a card that can be swapped in must be legal, so the
  copy limits, the ban list, the card types and the faction check count it (one principle for
  every game); the size does not. 角色/主題/命/技能 cards are refused in any section;
- the 职业 is a metadata line (``职业: 仙道士``); it must name a faction some card of the
  catalogue has (folded match), otherwise it counts as missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from catalog.errors import Message
from catalog.games.zhutian.vocabulary import COPY_LIMITS, CREATURE, EQUIPMENT, SPELL, Zhutian
from catalog.rules import (
    CopyLimit,
    Deck,
    DrawModel,
    FormatSpec,
    NoExtraDeck,
    PoolCard,
    Rule,
    Rulebook,
    SectionSize,
    Violation,
    names,
    standard_rules,
)
from catalog.text import fold

DECK_TYPES = (CREATURE, SPELL, EQUIPMENT)
PROFESSION_KEYS = ("职业", "職業", "profession", "faction")


def profession_of(deck: Deck) -> str:
    """The deck's 职业 from its metadata (any of the accepted keys), stripped."""
    for key in PROFESSION_KEYS:
        value = deck.metadata.get(key) or deck.metadata.get(fold(key))
        if value:
            return value.strip()
    return ""


def _copy_limit(card: PoolCard, fmt: FormatSpec) -> int | None:
    return int(card.extra.get("copy_limit") or COPY_LIMITS.get(str(card.extra.get("restriction") or "無"), 4))


def _copy_reason(card: PoolCard, fmt: FormatSpec) -> tuple[str, str]:
    restriction = str(card.extra.get("restriction") or "無")
    return f"（限制级：{restriction}）", f" (restriction level {restriction})"


@dataclass(frozen=True)
class DeckTypes:
    """Only 活物/術法/裝備 go in a deck."""

    name: str = "deck_types"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        wrong = [c for c, _n in deck.copies().values() if c.type not in DECK_TYPES]
        if wrong:
            yield Violation(
                "card_type_not_allowed",
                f"卡组只能放入活物、術法和裝備卡，不能放入：{'、'.join(f'{c.name}（{c.type}）' for c in wrong)}",
                f"a deck holds only creature, spell and equipment cards, not: {', '.join(names(wrong))}",
                cards=names(wrong),
                counts={"cards": len(wrong)},
                lines=deck.lines_of([c.id for c in wrong]),
            )


@dataclass(frozen=True)
class OneFaction:
    """Competitive: the deck names its 职业, and holds only that faction's cards and neutral ones."""

    name: str = "one_faction"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        profession = profession_of(deck)
        factions = fmt.catalogue.get("factions")  # folded faction names, when known
        if not profession or (factions is not None and fold(profession) not in factions):
            unknown = bool(profession)
            yield Violation(
                "profession_missing",
                f"职业「{profession}」不是已知的阵营" if unknown else "竞技卡组需要注明职业（如「职业: 仙道士」）",
                f"'{profession}' is not a known faction"
                if unknown
                else "a competitive deck names its profession (e.g. '职业: 仙道士')",
                counts={"profession": profession},
            )
            return
        key = fold(profession)
        others = [c for c, _n in deck.copies().values() if c.faction and fold(c.faction) != key]
        if others:
            listed = "、".join(f"{c.name}（{c.faction}）" for c in others)
            yield Violation(
                "faction_mismatch",
                f"职业为「{profession}」，不能放入其他阵营的卡：{listed}",
                f"the profession is '{profession}': cards of other factions are not allowed: "
                f"{', '.join(names(others))}",
                cards=names(others),
                counts={"cards": len(others)},
                lines=deck.lines_of([c.id for c in others]),
            )


def _rules(kind: str) -> tuple[Rule, ...]:
    size = SectionSize(
        "deck_size", ("main", "extra"), "deck_too_small", "deck_too_large", label="卡组", label_en="deck"
    )
    common: tuple[Rule, ...] = (
        size,
        NoExtraDeck(Zhutian.name),
        DeckTypes(),
        CopyLimit("copy_limit", _copy_limit, _copy_reason),
    )
    if kind == "competitive":
        common += (OneFaction(),)
    return common + standard_rules()


RULE_SETS: dict[str, tuple[Rule, ...]] = {kind: _rules(kind) for kind in Zhutian.rule_kinds}

# "所有玩家按順序從各自卡組最上方抓6張卡牌" and, each start phase, "玩家從卡組最上方抓取兩張卡牌".
# Meaningful for the competitive personal deck; with the casual shared deck others draw too.
DRAW_MODEL = DrawModel(
    6,
    2,
    True,
    "起手 6 张，每回合开始阶段抓 2 张（适用于竞技规则的个人卡组）",
    "6-card opening hand, 2 draws per turn (personal competitive deck)",
)
# 熔钥秘境 registers no draw model: the seed says only that the hand is refilled to 6 at the end
# of each turn, so how many cards a player has seen depends on how many were played.

RULEBOOK = Rulebook(
    seed="002_5760857c48ea0168.txt",
    rules=(
        Message(
            "娱乐规则（casual）：公共卡组至少 108 张，没有上限。",
            "Casual: a shared deck of at least 108 cards, no maximum.",
        ),
        Message(
            "竞技规则（competitive）：个人卡组 36 到 72 张；用元数据行写明职业（如 职业: 仙道士），只能放入本阵营和"
            "无阵营的卡。",
            "Competitive: a personal deck of 36 to 72 cards; name the profession in a metadata line (职业: 仙道士) a"
            "nd use only that faction's cards and neutral ones.",
        ),
        Message(
            "限制级：限制 1 张、准限制 2 张、无 4 张（两种规则相同）；禁限卡表可再降低。",
            "Restriction levels: 限制 1 copy, 準限制 2, 無 4 (both rules); a ban list can lower them.",
        ),
        Message(
            "卡组只能放入活物、术法和装备卡；角色、主题、命和技能卡不放入卡组。",
            "Only creature, spell and equipment cards go in a deck; role, theme, fate and skill cards do not.",
        ),
    ),
    choices=(
        Message(
            "誅天没有额外卡组：写了「额外卡组:」的卡组是错误（extra_deck_not_used），这些卡仍计入卡组张数。备牌：能"
            "换入卡组的卡必须合法，所以同名卡张数、禁限卡表、卡的种类和阵营都计入备牌，卡组张数不计。角色/主题/命/技"
            "能卡在任何分区都不接受。",
            "誅天 has no extra deck: a list with an 'Extra:' section is an error (extra_deck_not_used); its cards st"
            "ill count towards the deck size. Side board: a card that can be swapped in must be legal, so copies, th"
            "e ban list, card types and the faction count it; the deck size does not. Role, theme, fate and skill ca"
            "rds are refused in any section.",
        ),
        Message(
            "职业必须是目录中某张卡的阵营，否则视为没有写职业。",
            "The profession must be a faction some card of the catalogue has; otherwise it counts as missing.",
        ),
        Message(
            "概率表：起手 6 张，每回合开始阶段抓 2 张；只对竞技规则的个人卡组有意义。",
            "Odds table: 6-card opening hand, two draws per turn; meaningful for the personal competitive deck only.",
        ),
    ),
)

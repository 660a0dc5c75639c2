"""龍之弈 construction rules (DESIGN §5).

Source: "一組數量至少為40張卡牌的套牌（在正式比賽中卡牌不能低於60張）和一張武器牌，其中相同的
卡牌不能超過3張（正式比賽中不能超過4張）" and "玩家在對戰時選擇與所持有套牌相符的的武器才能產生
法力". Our choices where the seed is silent:
- the game has no extra deck (the seed names only "套牌" and "一張武器牌"), so a list with an
  额外卡组 section is an error (``extra_deck_not_used``), not silently counted; the weapon is
  written in the main deck. The size still counts the cards of such a section, as the player
  meant them ("besides the weapon"), so the first check shows the whole truth;
- the side board: every rule about which cards may be played (copies, bans, legal sets, the
  colour warning) counts it, since a side card can be swapped in ("在遊戲過程中玩家可以根據
  自己的需要對手中的套牌做出調整，增加或刪減一些卡牌"); the weapon count and the size do not;
- a card "fits" the weapon when each of its colours is one of the weapon's colours; with no
  weapon or several weapons the colour warning is not given (the weapon error says enough).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from catalog.errors import Message
from catalog.games.longzhiyi.vocabulary import WEAPON, Longzhiyi
from catalog.rules import (
    WARNING,
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

DECK_SECTIONS = ("main", "extra")


def is_weapon(card: PoolCard) -> bool:
    return card.type == WEAPON


@dataclass(frozen=True)
class OneWeapon:
    """Exactly one 武器 card beside the deck."""

    name: str = "one_weapon"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        weapons = [e for e in deck.entries if e.section in DECK_SECTIONS and is_weapon(e.card)]
        count = sum(e.count for e in weapons)
        cards = names(dict.fromkeys(e.card for e in weapons))
        if count == 0:
            yield Violation(
                "weapon_missing",
                "没有武器牌：套牌需要一张武器",
                "no weapon: a deck needs exactly one",
                counts={"weapons": 0},
            )
        elif count > 1:
            yield Violation(
                "too_many_weapons",
                f"有 {count} 张武器牌（{'、'.join(cards)}），只能有一张",
                f"{count} weapon cards ({', '.join(cards)}); a deck has exactly one",
                cards=cards,
                counts={"weapons": count},
                lines=sorted({ln for e in weapons for ln in e.lines}),
            )


@dataclass(frozen=True)
class WeaponColours:
    """Warn about cards whose colour the (single) weapon does not provide."""

    name: str = "weapon_colours"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        weapons = {e.card.id: e.card for e in deck.entries if e.section in DECK_SECTIONS and is_weapon(e.card)}
        if len(weapons) != 1 or sum(e.count for e in deck.entries if e.card.id in weapons) != 1:
            return
        weapon = next(iter(weapons.values()))
        provided = set(weapon.attributes)
        off = [
            card
            for card, _n in deck.copies().values()  # the side board too: it can be swapped in
            if not is_weapon(card) and card.attributes and not set(card.attributes) <= provided
        ]
        if off:
            yield Violation(
                "color_not_supported",
                f"武器「{weapon.name}」（{weapon.attributes}）不提供这些牌的颜色：{'、'.join(names(off))}",
                f"the weapon '{weapon.name}' ({weapon.attributes}) does not provide the colour of: "
                f"{', '.join(names(off))}",
                severity=WARNING,
                cards=names(off),
                counts={"cards": len(off)},
                lines=deck.lines_of([c.id for c in off]),
            )


def _copy_limit(card: PoolCard, fmt: FormatSpec) -> int | None:
    return int(fmt.param("copy_limit", 3))


def _rules() -> tuple[Rule, ...]:
    return (
        SectionSize(
            "deck_size",
            DECK_SECTIONS,
            "deck_too_small",
            "deck_too_large",
            label="套牌（武器以外）",
            label_en="deck (besides the weapon)",
            exclude=is_weapon,
        ),
        NoExtraDeck(Longzhiyi.name),
        OneWeapon(),
        CopyLimit("copy_limit", _copy_limit),
        *standard_rules(),
        WeaponColours(),
    )


RULE_SETS: dict[str, tuple[Rule, ...]] = {kind: _rules() for kind in Longzhiyi.rule_kinds}

# "雙方各抓7張牌" and "牌手可以從自身的套牌中摸一張手牌（先手第一回合除外）": we count as the
# player going first (no draw on turn 1), the cautious figure; the one mulligan is ignored.
DRAW_MODEL = DrawModel(
    7,
    1,
    False,
    "起手 7 张，每回合摸 1 张；按先手计算（先手第一回合不摸牌）；武器不在牌库中",
    "7-card opening hand, 1 draw per turn, counted as going first; the weapon is not in the library",
    set_aside=(WEAPON,),
)

RULEBOOK = Rulebook(
    seed="001_8b66ae0f33d52d89.txt",
    rules=(
        Message(
            "休闲（casual）：武器以外至少 40 张，同名卡最多 3 张；正式比赛（tournament）：至少 60 张，最多 4 张。",
            "Casual: at least 40 cards besides the weapon, at most 3 copies of a card; tournament: at least 60 cards"
            " and at most 4 copies.",
        ),
        Message(
            "恰好一张武器牌。",
            "Exactly one weapon card.",
        ),
        Message(
            "同名卡张数按所有印刷、主卡组、额外卡组和备牌合计；禁限卡表可再降低。",
            "Copies count every printing and section together; a ban list can lower the limit.",
        ),
        Message(
            "警告：牌的颜色不在武器提供的颜色之中（“選擇與所持有套牌相符的的武器才能產生法力”）。",
            "Warning: a card's colour is not one the weapon provides.",
        ),
    ),
    choices=(
        Message(
            "龍之弈没有额外卡组：写了「额外卡组:」的卡组是错误（extra_deck_not_used），武器写在主卡组。为了一次指出"
            "所有问题，套牌张数仍把这些卡算在内（武器以外）。",
            "龍之弈 has no extra deck: a list with an 'Extra:' section is an error (extra_deck_not_used); write the "
            "weapon in the main deck. So that one check shows every problem, the deck size still counts those cards "
            "(besides the weapon).",
        ),
        Message(
            "备牌：能换入卡组的卡必须合法，所以同名卡张数、禁限卡表、合法系列和颜色警告都计入备牌；武器张数和套牌张"
            "数不计备牌。",
            "Side board: a card that can be swapped in must be legal, so copies, the ban list, legal sets and the co"
            "lour warning count the side board; the weapon count and the deck size do not.",
        ),
        Message(
            "多色牌的每种颜色都要由武器提供；没有武器或有多张武器时不给颜色警告。",
            "Each colour of a multi-colour card must be the weapon's; with no weapon or several weapons the colour w"
            "arning is not given.",
        ),
        Message(
            "概率表：起手 7 张，每回合摸 1 张，按先手计算（先手第一回合不摸），不计一次重抽。",
            "Odds table: 7-card opening hand, one draw per turn, counted as going first; the mulligan is ignored.",
        ),
    ),
)

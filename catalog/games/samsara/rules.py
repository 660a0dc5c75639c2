"""永恒之轮 construction rules (DESIGN §5, rule kind ``standard``).

Source: ``shared/seeds/000_3f4769f9eb2a054d.txt``. Where the seed leaves a question open we
say what we chose and why, next to the rule that makes the choice (the rules page repeats it):

1. Basic 法力石 are exempt from the three-copy limit. The seed's "名称相同的卡牌最多只能放入
   三张" sits in the sentence about the main deck ("卡组下限为50张，上限为60张，…"); the extra
   deck is described separately ("法力石，及额外构筑卡牌组成卡组"), a 法力石 "会失去名称" once
   in play, and one stone is played per turn from the extra deck, so a mono-colour deck needs
   more than three of the same stone (our own DESIGN §4 example lists ``4 火之法力石``). A
   format that wants a cap sets ``extra_max``. 额外构筑 cards that are not stones DO count.
   The seed never says which stones are "basic"; it names stones that do more than give mana
   ("新加入土属性法力之印", "新加入水属性法力之印"). We recognise a basic stone by data, as
   DESIGN §5 does: a 法力石 **without rules text** (``is_basic_stone``). A stone with rules
   text (土属性法力之印 …) is an ordinary card of the extra deck and keeps the limit of 3.
2. 『A』限定 constrains only 战魂, as written: "A特征以外的战魂都不能放入卡组". 魔法/载具/阵型
   and 法力石 without trait A are fine. The seed says nothing about a side board (no 备牌 in it);
   our one principle for every game and every rule is that a card of the side board can be
   swapped into the deck, so it must be legal there: 『A』限定 looks at main + extra + side,
   as the copy limit, the ban list and the legal sets do. Only the size and placement rules
   look at the sections they measure.
3. 军团(X) replaces the limit with X whether X is above or below 3 ("军团战魂能在卡组中最多放入
   X张"); a ban-list limit still lowers it. The sentence speaks of 战魂 ("通常的战魂在一个卡组
   中最多只能放入三张，军团战魂则不受这个限制"), so 军团(X) on a card of another type changes
   nothing: that card keeps the limit of 3.
4. The mana warning follows the casting rule "只要你有四张以上的法力石，并且其中最少有两张是
   红色…（无属性可以用任意属性代表）": a card is castable when the extra deck holds at least
   its total cost in stones and the coloured part can be paid by distinct stones of those
   colours (checked exactly, Hall's condition over the colours, so a 光暗 stone counts once).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from catalog.errors import Message
from catalog.games.samsara.vocabulary import ATTRIBUTES, GENERIC, MANA_STONE, SOUL
from catalog.rules import (
    ERROR,
    WARNING,
    CopyLimit,
    Deck,
    DrawModel,
    FormatSpec,
    PoolCard,
    Rule,
    Rulebook,
    SectionSize,
    Violation,
    names,
    standard_rules,
)
from catalog.text import fold

# choice 2 above: every card the deck could be played with, the side board included
PLAYED = ("main", "extra", "side")


def is_extra_card(card: PoolCard) -> bool:
    """法力石 and 额外构筑 cards belong in the extra deck ("法力石，及额外构筑卡牌组成卡组")."""
    return card.type == MANA_STONE or card.keyword("extra_build") is not None


def home_section(card: PoolCard) -> str:
    """Where a card belongs: ``extra`` for 法力石 and 额外构筑 cards, else ``main``."""
    return "extra" if is_extra_card(card) else "main"


def is_basic_stone(card: PoolCard) -> bool:
    """A basic 法力石: a stone without rules text (choice 1 above; DESIGN §5)."""
    return card.type == MANA_STONE and not card.text.strip()


def _legion(card: PoolCard) -> int | None:
    """X of 军团(X) on a 战魂 ("军团战魂能在卡组中最多放入X张"); other types ignore it (choice 3)."""
    legion = card.keyword("legion")
    if card.type != SOUL or legion is None or legion.get("value") is None:
        return None
    return int(legion["value"])


def copy_limit(card: PoolCard, fmt: FormatSpec) -> int | None:
    if is_basic_stone(card):
        return None  # choice 1 above
    legion = _legion(card)
    if legion is not None:
        return legion  # choice 3 above
    return int(fmt.param("copy_limit", 3))


def copy_reason(card: PoolCard, fmt: FormatSpec) -> tuple[str, str]:
    legion = card.keyword("legion")
    if _legion(card) is not None and legion is not None:
        return f"（{legion.get('label') or '军团'}）", f" (legion {legion['value']})"
    if card.type == MANA_STONE:
        return "（有规则文字的法力石不是基本法力石）", " (a mana stone with rules text is not a basic one)"
    return "", ""


@dataclass(frozen=True)
class Placement:
    """法力石 / 额外构筑 only in the extra deck; every other card only in main or side."""

    name: str = "placement"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        misplaced = [e for e in deck.section("main") if is_extra_card(e.card)]
        if misplaced:
            cards = list(dict.fromkeys(e.card for e in misplaced))
            yield Violation(
                "extra_card_in_main",
                f"法力石和额外构筑的卡只能放入额外卡组，不能放在主卡组：{'、'.join(names(cards))}",
                f"mana stones and extra-build cards go in the extra deck, not the main deck: {', '.join(names(cards))}",
                cards=names(cards),
                counts={"copies": sum(e.count for e in misplaced)},
                lines=sorted({ln for e in misplaced for ln in e.lines}),
            )
        strays = [e for e in deck.section("extra") if not is_extra_card(e.card)]
        if strays:
            cards = list(dict.fromkeys(e.card for e in strays))
            yield Violation(
                "main_card_in_extra",
                f"额外卡组只能放法力石和额外构筑的卡：{'、'.join(names(cards))} 应放入主卡组",
                f"only mana stones and extra-build cards go in the extra deck: {', '.join(names(cards))} "
                f"belong in the main deck",
                cards=names(cards),
                counts={"copies": sum(e.count for e in strays)},
                lines=sorted({ln for e in strays for ln in e.lines}),
            )


@dataclass(frozen=True)
class ExtraMax:
    """The format's optional ``extra_max`` caps the extra deck."""

    name: str = "extra_max"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        limit = fmt.param("extra_max")
        # counted as meant, like the main deck: the stones and 额外构筑 cards wherever written,
        # plus unknown lines written in the extra deck (a misplacement is reported on its own)
        size = sum(e.count for e in deck.entries if e.section != "side" and home_section(e.card) == "extra")
        size += deck.unresolved.get("extra", 0)
        if limit is not None and size > limit:
            yield Violation(
                "extra_too_large",
                f"额外卡组 {size} 张，多于赛制上限 {limit} 张",
                f"the extra deck has {size} cards, more than the format's maximum {limit}",
                counts={"size": size, "max": limit},
            )


@dataclass(frozen=True)
class TraitRestriction:
    """『A』限定: "A特征以外的战魂都不能放入卡组" — every 战魂 of the played deck has trait A."""

    name: str = "trait_restriction"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        played = deck.copies(*PLAYED)
        required: dict[str, list[PoolCard]] = {}
        for card, _count in played.values():
            for keyword in card.keywords_of("restricted"):
                subject = str(keyword.get("subject") or "")
                if subject:
                    required.setdefault(subject, []).append(card)
        for subject, sources in required.items():
            key = fold(subject)
            offenders = [c for c, _n in played.values() if c.type == SOUL and key not in c.trait_keys]
            if not offenders:
                continue
            yield Violation(
                "trait_restriction",
                f"卡组中有『{subject}』限定的卡（{'、'.join(names(sources))}），"
                f"没有「{subject}」特征的战魂不能放入卡组：{'、'.join(names(offenders))}",
                f"the deck holds '{subject}'-restricted cards ({', '.join(names(sources))}); souls without the "
                f"trait '{subject}' may not be in it: {', '.join(names(offenders))}",
                cards=list(dict.fromkeys(names(sources) + names(offenders))),
                counts={"souls_without_trait": sum(played[c.id][1] for c in offenders)},
                lines=deck.lines_of([c.id for c in sources + offenders], *PLAYED),
            )


def _stone_colours(card: PoolCard) -> frozenset[str]:
    return frozenset(card.attributes) or frozenset(GENERIC)


@lru_cache(maxsize=4096)
def _castable(cost: tuple[tuple[str, int], ...], stones: tuple[tuple[frozenset[str], int], ...]) -> tuple[bool, int]:
    """Whether the stones pay ``cost`` (Hall's condition over its colours) and the total stones."""
    total = sum(n for _c, n in stones)
    need_total = sum(n for _a, n in cost)
    if total < need_total:
        return False, total
    coloured = [(a, n) for a, n in cost if a != GENERIC]
    for size in range(1, len(coloured) + 1):
        for subset in combinations(coloured, size):
            wanted = {a for a, _n in subset}
            supply = sum(n for colours, n in stones if colours & wanted)
            if supply < sum(n for _a, n in subset):
                return False, total
    return True, total


@dataclass(frozen=True)
class AttributeWithoutMana:
    """Warn when cards need attribute X and no X 法力石 is in the extra deck, or too few stones."""

    name: str = "attribute_without_mana"

    def check(self, deck: Deck, fmt: FormatSpec) -> Iterator[Violation]:
        stones: dict[frozenset[str], int] = {}
        for entry in deck.section("extra"):
            if entry.card.type == MANA_STONE:
                colours = _stone_colours(entry.card)
                stones[colours] = stones.get(colours, 0) + entry.count
        provided = {a for colours in stones for a in colours}
        users = [c for c, _n in deck.copies(*PLAYED).values() if c.type != MANA_STONE and c.cost]
        needing_of: dict[str, list[PoolCard]] = {}
        for card in users:
            for attribute in card.cost:
                if attribute != GENERIC and attribute not in provided:
                    needing_of.setdefault(attribute, []).append(card)
        flagged: set[int] = set()
        for attribute in ATTRIBUTES.canonical:
            needing = needing_of.get(attribute)
            if not needing:
                continue
            flagged.update(c.id for c in needing)
            yield Violation(
                "attribute_without_mana",
                f"{len(needing)} 种卡需要「{attribute}」属性法力，额外卡组中没有{attribute}属性的法力石："
                f"{'、'.join(names(needing))}",
                f"{len(needing)} card(s) need {ATTRIBUTES.english_name(attribute).lower()} mana and the extra deck "
                f"has no {ATTRIBUTES.english_name(attribute).lower()} mana stone: "
                f"{', '.join(names(needing))}",
                severity=WARNING,
                cards=names(needing),
                counts={"attribute": attribute, "stones": 0, "cards": len(needing)},
                lines=deck.lines_of([c.id for c in needing], *PLAYED),
            )
        stone_key = tuple(sorted(stones.items(), key=lambda item: sorted(item[0])))
        total = sum(stones.values())
        short = [
            card for card in users if card.id not in flagged and not _castable(tuple(card.cost.items()), stone_key)[0]
        ]
        if short:
            yield Violation(
                "attribute_without_mana",
                f"额外卡组的 {total} 张法力石不够使用这些卡（总数或某属性的张数不足）：{'、'.join(names(short))}",
                f"the {total} mana stones of the extra deck cannot pay for these cards (too few in total or of "
                f"one attribute): {', '.join(names(short))}",
                severity=WARNING,
                cards=names(short),
                counts={"stones": total, "cards": len(short)},
                lines=deck.lines_of([c.id for c in short], *PLAYED),
            )


STANDARD: tuple[Rule, ...] = (
    SectionSize("main_size", ("main",), "main_too_small", "main_too_large", home=home_section),
    CopyLimit("copy_limit", copy_limit, copy_reason),
    *standard_rules(),
    Placement(),
    ExtraMax(),
    TraitRestriction(),
    AttributeWithoutMana(),
)
# rule kind → its rules (the game assembles them in its package __init__)
RULE_SETS: dict[str, tuple[Rule, ...]] = {"standard": STANDARD}

__all__ = ["ERROR", "STANDARD", "WARNING", "copy_limit", "home_section", "is_basic_stone", "is_extra_card"]

# "游戏开始时，每位玩家从各自的卡组上抽取5张牌作为手牌" and, each turn, "回合开始后的第一个阶段，
# 本回合的玩家从其卡组顶抽一张牌" (the seed makes no exception for the first turn).
DRAW_MODEL = DrawModel(
    5, 1, True, "起手 5 张，每回合抽牌阶段抽 1 张（规则未写先手首回合不抽）", "5-card opening hand, 1 draw per turn"
)

RULEBOOK = Rulebook(
    seed="000_3f4769f9eb2a054d.txt",
    rules=(
        Message(
            "主卡组 50 到 60 张（赛制可改上下限）。",
            "The main deck holds 50 to 60 cards (a format may change the bounds).",
        ),
        Message(
            "同名卡最多 3 张：所有印刷、主卡组、额外卡组和备牌合计；带军团(X) 的战魂改为最多 X 张；基本法力石（没有"
            "规则文字的法力石）不受限制。",
            "At most 3 copies of a name, counting every printing and the main, extra and side decks together; a soul"
            " with Legion(X) allows X instead; basic mana stones (stones without rules text) have no limit.",
        ),
        Message(
            "卡组里（含备牌）有『A』限定的卡时，主卡组、额外卡组和备牌中的每张战魂都必须具有特征 A。",
            "When a card with 'A'-restricted is in the deck or the side board, every soul of the main, extra and sid"
            "e decks must have trait A.",
        ),
        Message(
            "法力石和额外构筑的卡放在额外卡组；其他卡只能放在主卡组或备牌。",
            "Mana stones and extra-build cards go in the extra deck; every other card in the main deck or the side b"
            "oard.",
        ),
        Message(
            "赛制可以限定合法系列（如 M8 起的新环境）、设置禁限卡表（禁止 0 / 限制 1 / 准限制 2 张）和额外卡组上限。",
            "A format may restrict the legal sets (e.g. the M8 environment), ban or limit cards (0 / 1 / 2 copies) a"
            "nd cap the extra deck.",
        ),
        Message(
            "警告：有卡需要某属性的法力，而额外卡组没有该属性的法力石，或法力石总数、某属性张数不够支付费用。",
            "Warning: cards need an attribute no stone of the extra deck provides, or the stones cannot pay their co"
            "st in total or per attribute.",
        ),
    ),
    choices=(
        Message(
            "基本法力石不受 3 张限制：规则中“名称相同的卡牌最多只能放入三张”与主卡组张数写在同一句；额外卡组另有说明"
            "，法力石在场上失去名称，每回合要从额外卡组放一张法力石，单色卡组需要同一种法力石超过 3 张。需要上限的赛"
            "制可设 extra_max。不是法力石的额外构筑卡仍受 3 张限制。",
            "Basic mana stones are exempt from the 3-copy limit: the seed's 3-copy sentence is the one about the mai"
            "n deck, the extra deck is described apart, stones lose their name in play, and a mono-colour deck needs"
            " more than three of one stone. A format can cap the extra deck with extra_max. Extra-build cards that a"
            "re not stones still count.",
        ),
        Message(
            "哪些法力石是“基本”的，规则没有写（它提到“土属性法力之印”“水属性法力之印”这类有额外效果的法力石）：我们"
            "按数据判断，没有规则文字的法力石是基本法力石；有规则文字的法力石（如各种法力之印）仍受 3 张限制。",
            "The seed does not say which stones are basic (it names stones with extra effects such as 土属性法力之印"
            "): a mana stone without rules text is basic; a stone with rules text (the 法力之印 seals) keeps the lim"
            "it of 3.",
        ),
        Message(
            "备牌（规则没有提到）：能换入卡组的卡必须合法。所以所有关于“哪些卡可以放入”的规则——同名卡张数、禁限卡表"
            "、合法系列、『A』限定、法力警告——都计入备牌；只有张数和分区规则只看各自的分区。",
            "Side board (the seed has none): a card that can be swapped in must be legal. So every rule about which "
            "cards may be in the deck — copies, the ban list, legal sets, 'A'-restricted, the mana warning — counts "
            "the side board; only the size and placement rules look at their own sections.",
        ),
        Message(
            "『A』限定只约束战魂（规则原文：“A特征以外的战魂都不能放入卡组”），魔法、载具、阵型和法力石不受影响。",
            "'A'-restricted constrains souls only (\"no soul without trait A may be put in the deck\"); magic, vehic"
            "les, formations and stones are unaffected.",
        ),
        Message(
            "军团(X) 以 X 代替 3，即使 X 小于 3；禁限卡表仍可再降低上限。只对战魂有效（“军团战魂能在卡组中最多放入X"
            "张”）：其他种类的卡写了军团(X) 仍最多 3 张。",
            "Legion(X) replaces 3 by X, even when X is below 3; a ban list can still lower it. It applies to "
            'souls only ("a legion soul may be put in the deck up to X times"): another card with Legion(X) '
            "keeps the limit of 3.",
        ),
        Message(
            "一次指出所有问题：主卡组张数按玩家的本意计算——写错分区的卡算在它应在的分区（写在主卡组的法力石不计入主"
            "卡组），查不到的卡按所写张数计入所在分区。",
            "Every problem at once: the main deck is counted as the player meant it — a misplaced card counts where "
            "it belongs (a stone written in the main deck does not count towards it), and a line naming no card coun"
            "ts with its copies in its section.",
        ),
        Message(
            "法力检查按规则的使用条件：法力石总数不少于总费用，且有色费用能由不同的对应属性法力石支付（无属性可由任"
            "意法力石代表）。",
            "The mana check follows the casting rule: at least as many stones as the total cost, and the coloured pa"
            "rt payable by distinct stones of those attributes (generic by any stone).",
        ),
        Message(
            "概率表：起手 5 张，每回合抽 1 张（规则没有写先手第一回合不抽）。",
            "Odds table: 5-card opening hand, one draw per turn (the seed makes no first-turn exception).",
        ),
    ),
)

"""The search keys: one registry, one handler per key (``t:``, ``a:``, ``cost<=`` …).

Every handler gets the :class:`Term` and the :class:`Context` and returns a SQL boolean
over ``card_search`` (alias ``ctx.cs``) — printing-level conditions go through
``ctx.printing(...)``, which becomes a semi-join in card mode (a card matches when any of
its printings does, Scryfall's default) and a plain condition in ``unique:prints`` mode.
Handlers never return NULL-able expressions, so ``-`` (NOT) means "everything else".
The registry and the context: :mod:`catalog.search.registry` (its names re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, false, func, not_, or_, select, true

from catalog.games import GAMES, GameModule
from catalog.models import CardKeyword, CardSet, CardTrait, Printing, table_of
from catalog.search.parser import Term
from catalog.search.registry import DIRECTIVES as DIRECTIVES
from catalog.search.registry import INTEGER_LIMIT as INTEGER_LIMIT
from catalog.search.registry import KEYS as KEYS
from catalog.search.registry import N_ as N_
from catalog.search.registry import NUMERIC_OPS, Context, Handler, check_op, integer, key, numeric
from catalog.search.registry import Clause as Clause
from catalog.search.registry import error as error
from catalog.search.registry import known_keys as known_keys
from catalog.search.registry import lookup as lookup
from catalog.search.sql import contains, starts_with
from catalog.text import KEY_SEPARATOR, fold


@key("name", "n", "名", "名称", "名稱", "卡名", help_zh=N_("卡名包含（繁简、全半角不敏感；ASCII 也匹配拼音和首字母）"))
def name_term(term: Term, ctx: Context) -> Clause:
    needle = fold(term.value)
    if not needle:
        return true()
    keys = ctx.cs.c["keys"]
    if term.op == "=":
        return starts_with(keys, needle + KEY_SEPARATOR)
    check_op(term, (":", "="))
    return contains(keys, needle, character_index=True)


@key("o", "text", "oracle", "文本", "效果", "规则", "規則", help_zh=N_("规则文字包含（1、2 个汉字也可以）"))
def text_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":",))
    from catalog.models import CardText

    texts = table_of(CardText)
    return ctx.cs.c.card_id.in_(select(texts.c.card_id).where(contains(texts.c.text_key, fold(term.value))))


@key("t", "type", "类型", "類型", "种类", help_zh=N_("类型或子类型（战魂、魔法、soul…）"))
def type_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    parts: list[Clause] = []
    for module, gid in ctx.games:
        canonical = module.types.resolve(term.value)
        if canonical is not None:
            parts.append(and_(ctx.cs.c.game_id == gid, ctx.cs.c.type == canonical))
    if term.op == ":":
        parts.append(contains(ctx.cs.c.subtype_key, fold(term.value)))
    return or_(*parts) if parts else false()


_ATTRIBUTE_OPS: dict[str, Callable[[Any, int], Clause]] = {
    ":": lambda m, v: m.op("&")(v) == v,
    ">=": lambda m, v: m.op("&")(v) == v,
    "=": lambda m, v: m == v,
    "!=": lambda m, v: m != v,
    "<=": lambda m, v: and_(m != 0, m.op("|")(v) == v),
    "<": lambda m, v: and_(m != 0, m.op("|")(v) == v, m != v),
    ">": lambda m, v: and_(m.op("&")(v) == v, m != v),
}


@key(
    "a",
    "attr",
    "c",
    "color",
    "colour",
    "属性",
    "屬性",
    "颜色",
    "顏色",
    help_zh=N_("属性/颜色：a:火水 同时具有，a=光 恰好是，a<=火水 不超出"),
    ops=tuple(_ATTRIBUTE_OPS),
)
def attribute_term(term: Term, ctx: Context) -> Clause:
    check_op(term, tuple(_ATTRIBUTE_OPS))
    parts: list[Clause] = []
    for module, gid in ctx.games:
        if not module.attributes.canonical:
            continue
        try:
            attributes = module.attributes.parse_many(term.value, "a")
        except Exception:
            continue
        mask = module.attributes.mask(attributes)
        if mask:
            parts.append(and_(ctx.cs.c.game_id == gid, _ATTRIBUTE_OPS[term.op](ctx.cs.c.attr_mask, mask)))
    if term.op in (":", "="):
        # KeyForge has houses instead of colours: a:/c: accept a house name there.
        for module, gid in ctx.games:
            houses = getattr(module, "houses", None)
            resolved = houses.resolve(term.value) if houses is not None else None
            if resolved:
                parts.append(and_(ctx.cs.c.game_id == gid, _any_house(ctx.cs.c.faction_key, fold(resolved))))
    if not parts:
        raise error(
            term,
            f"「{term.text}」：{term.value} 不是已知的属性或颜色（如 火 水 风 地 光 暗 无，白 藍 黑 紅 綠）",
            f"'{term.text}': {term.value} is not a known attribute or colour",
        )
    return or_(*parts)


def _faction(term: Term, ctx: Context) -> Clause | None:
    """A KeyForge house (through its vocabulary) or a 誅天 faction; None if nothing matches."""
    value = fold(term.value)
    for module, _gid in ctx.games:
        houses = getattr(module, "houses", None)
        if houses is not None:
            resolved = houses.resolve(term.value)
            if resolved:
                value = fold(resolved)
    return _any_house(ctx.cs.c.faction_key, value) if value else None


def _any_house(column: Any, value: str) -> Clause:
    """``faction_key`` is ``value``, or a multi-house card's houses (``a|b|c``) include it."""
    if "|" in value or "%" in value or "_" in value:
        return column == value
    return or_(column == value, column.like(f"{value}|%"), column.like(f"%|{value}"), column.like(f"%|{value}|%"))


@key("f", "faction", "house", "派系", "阵营", "陣營", "职业", "職業", help_zh=N_("派系/阵营（熔钥秘境派系、誅天职业）"))
def faction_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    clause = _faction(term, ctx)
    return clause if clause is not None else false()


key("cost", "费用", "費用", "mv", help_zh=N_("费用合计，可比较：cost<=3"), ops=tuple(NUMERIC_OPS))(
    numeric("cost_total")
)
key(
    "atk",
    "attack",
    "pow",
    "power",
    "攻击",
    "攻擊",
    "攻击力",
    "攻擊力",
    "战斗力",
    help_zh=N_("攻击力（熔钥秘境：战斗力）"),
    ops=tuple(NUMERIC_OPS),
)(numeric("attack"))
key(
    "def",
    "defense",
    "defence",
    "armor",
    "防御",
    "防禦",
    "防御力",
    "防禦力",
    help_zh=N_("防御力（熔钥秘境：护甲）"),
    ops=tuple(NUMERIC_OPS),
)(numeric("defense"))
key("lv", "level", "等级", "等級", help_zh=N_("等级"), ops=tuple(NUMERIC_OPS))(numeric("level"))


def _card_numeric(build: Callable[[Any], Any]) -> Handler:
    """A number kept on ``card`` rather than on the narrow ``card_search`` row (龍之弈 life,
    KeyForge æmber in the card's JSON extras): a semi-join, so ``-`` still means "the rest"."""

    def handler(term: Term, ctx: Context) -> Clause:
        from catalog.models import Card

        check_op(term, tuple(NUMERIC_OPS))
        cards = table_of(Card)
        value = build(cards)
        wanted = NUMERIC_OPS[term.op](value, integer(term))
        return ctx.cs.c.card_id.in_(select(cards.c.id).where(value.is_not(None), wanted))

    return handler


key("life", "hp", "生命", "生命值", help_zh=N_("生命（龍之弈）：life>=5"), ops=tuple(NUMERIC_OPS))(
    _card_numeric(lambda cards: cards.c.life)
)
key("amber", "aember", "æmber", "琥珀", help_zh=N_("琥珀（熔钥秘境）：amber>=1"), ops=tuple(NUMERIC_OPS))(
    _card_numeric(lambda cards: cards.c.extra["amber"].as_integer())
)


@key("r", "rarity", "稀有度", "罕贵度", help_zh=N_("稀有度，按各游戏的等级比较：r>=UR"), ops=tuple(NUMERIC_OPS))
def rarity_term(term: Term, ctx: Context) -> Clause:
    check_op(term, tuple(NUMERIC_OPS))
    parts: list[Clause] = []
    for module, gid in ctx.games:
        code = module.rarity.resolve(term.value)
        if code is None:
            continue
        rank = module.rarity.rank(code)
        if ctx.mode == "prints":
            parts.append(and_(ctx.cs.c.game_id == gid, NUMERIC_OPS[term.op](ctx.p.c.rarity_rank, rank)))
        else:
            parts.append(and_(ctx.cs.c.game_id == gid, ctx.cs.c.rarity_mask.op("&")(_rank_bits(term.op, rank)) != 0))
    # The representative printing shown for a card should be one with the asked rarity.
    ctx.uses_printings = True
    if not parts:
        ladders = "；".join(f"{m.name} {m.rarity.describe()}" for m, _g in ctx.games)
        raise error(
            term,
            f"「{term.text}」：未知的稀有度 {term.value}（{ladders}）",
            f"'{term.text}': unknown rarity {term.value}",
        )
    return or_(*parts)


RANK_BITS = 31  # ladders have a handful of steps; the mask is a 32-bit integer on PostgreSQL


def _rank_bits(op: str, rank: int) -> int:
    """The ranks satisfying ``op rank`` as a bit mask: a card has a printing of such a rarity
    exactly when its ``rarity_mask`` (bit r = some printing of rank r) shares a bit with it."""
    return sum(1 << r for r in range(RANK_BITS) if NUMERIC_OPS[op](r, rank))


@key("set", "s", "e", "edition", "系列", help_zh=N_("系列代码：set:M4"))
def set_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    scope = set(ctx.game_ids())
    ids = [set_id for set_id, gid in ctx.sets.get(fold(term.value), []) if gid in scope]
    if not ids:
        raise error(
            term, f"「{term.text}」：没有代码为 {term.value} 的系列", f"'{term.text}': no set with code {term.value}"
        )
    return ctx.printing(lambda p: p.c.set_id.in_(ids))


@key("series", "系列类别", "产品线", "系", help_zh=N_("系列类别（永恒之轮 S/M/P/G）"))
def series_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    sets = table_of(CardSet)
    chosen = select(sets.c.id).where(func.lower(sets.c.series) == fold(term.value))
    return ctx.printing(lambda p: p.c.set_id.in_(chosen))


@key("number", "no", "num", "编号", "編號", help_zh=N_("收藏编号：number:M4-001"))
def number_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    needle = fold(term.value)
    if term.op == "=":
        return ctx.printing(lambda p: p.c.number_key == needle)
    return ctx.printing(lambda p: contains(p.c.number_key, needle))


def _like_pattern(needle: str) -> str:
    """``*`` → any characters; LIKE's own ``%`` ``_`` and the escape character are literal."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


@key("trait", "tr", "特征", "特徵", help_zh=N_("特征，整个特征相同：tr:圣骸（不含超圣骸）；* 匹配任意部分：tr:*圣骸*"))
def trait_term(term: Term, ctx: Context) -> Clause:
    """Whole traits, as 『A』限定 reads them ("A特征以外的战魂都不能放入卡组": 超圣骸 is not 圣骸);
    ``*`` is the explicit way to match a part of a trait (``tr:*圣骸*``, ``tr:超*``)."""
    check_op(term, (":", "="))
    traits = table_of(CardTrait)
    needle = fold(term.value)
    condition: Clause
    if "*" in needle:
        condition = traits.c.trait_key.like(_like_pattern(needle), escape="\\")
    else:
        condition = traits.c.trait_key == needle
    return ctx.cs.c.card_id.in_(select(traits.c.card_id).where(condition))


_KEYWORD_FORM = re.compile(
    r"^(?:『(?P<subject>[^』]+)』)?(?P<word>[^()『』]+)(?:\((?P<value>\d+)\))?(?:『(?P<tail>[^』]+)』)?$"
)


def resolve_keyword(value: str, games: list[tuple[GameModule, int]]) -> tuple[str, int | None, str | None] | None:
    """``军团`` / ``legion`` / ``军团(5)`` / ``『童话』限定`` → (kind, value, subject)."""
    text = value.replace("「", "『").replace("」", "』").replace("（", "(").replace("）", ")")
    match = _KEYWORD_FORM.match(text)
    if match is None:
        return None
    word = fold(match["word"])
    for module, _gid in games:
        for keyword in module.keywords:
            if word in {fold(w) for w in keyword.words()}:  # the importer's words too
                subject = match["subject"] or match["tail"]
                return keyword.kind, int(match["value"]) if match["value"] else None, subject
    return None


@key("kw", "keyword", "关键字", "關鍵字", "能力", help_zh=N_("关键字：kw:军团 kw:军团(5) kw:『童话』限定"))
def keyword_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    resolved = resolve_keyword(term.value, ctx.games)
    if resolved is None:
        known = "、".join(dict.fromkeys(k.zh for m, _g in ctx.games for k in m.keywords))
        raise error(
            term,
            f"「{term.text}」：未知的关键字 {term.value}，可用：{known}",
            f"'{term.text}': unknown keyword {term.value}",
        )
    kind, value, subject = resolved
    keywords = table_of(CardKeyword)
    conditions = [keywords.c.kind == kind]
    if value is not None:
        conditions.append(keywords.c.value == value)
    if subject is not None:
        conditions.append(keywords.c.subject == subject)
    return ctx.cs.c.card_id.in_(select(keywords.c.card_id).where(*conditions))


@key("game", "g", "游戏", "遊戲", help_zh=N_("游戏：g:samsara g:龍之弈"))
def game_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":", "="))
    from catalog.games import get_game

    module = get_game(term.value) or get_game(term.value.lower())
    if module is None or module.slug not in ctx.all_games:
        names = "、".join(f"{m.slug}（{m.name}）" for m in GAMES.values() if m.slug in ctx.all_games)
        raise error(
            term,
            f"「{term.text}」：未知的游戏 {term.value}，可用：{names}",
            f"'{term.text}': unknown game {term.value}",
        )
    return ctx.cs.c.game_id == ctx.all_games[module.slug]


def _flag_reprint(ctx: Context) -> Clause:
    """Printed in two sets or more: the importer keeps each card's set count (grouping every
    printing per query measured 40 ms on 100,000 printings)."""
    return ctx.cs.c.set_count > 1


def _flag_keyword(kind: str) -> Callable[[Context], Clause]:
    def build(ctx: Context) -> Clause:
        keywords = table_of(CardKeyword)
        return ctx.cs.c.card_id.in_(select(keywords.c.card_id).where(keywords.c.kind == kind))

    return build


def _flag_extra(ctx: Context) -> Clause:
    parts = [_flag_keyword("extra_build")(ctx)]
    for module, gid in ctx.games:
        stone = module.types.resolve("mana stone")
        if stone:
            parts.append(and_(ctx.cs.c.game_id == gid, ctx.cs.c.type == stone))
    return or_(*parts)


def _flag_multi(ctx: Context) -> Clause:
    mask = ctx.cs.c.attr_mask
    return and_(mask != 0, mask.op("&")(mask - 1) != 0)


def _flag_sample(ctx: Context) -> Clause:
    sets = table_of(CardSet)
    return ctx.printing(lambda p: p.c.set_id.in_(select(sets.c.id).where(sets.c.sample == true())))


FLAGS: dict[str, tuple[tuple[str, ...], Callable[[Context], Clause], str]] = {
    "legion": (("军团", "軍團"), _flag_keyword("legion"), N_("军团战魂")),
    "extra": (("额外", "額外"), _flag_extra, N_("放入额外卡组的卡（法力石、额外构筑）")),
    "reprint": (("重印",), _flag_reprint, N_("在两个以上系列中印刷过")),
    "unique": (("场上唯一",), _flag_keyword("unique"), N_("场上唯一")),
    "multicolor": (("multi", "多色", "多属性"), _flag_multi, N_("两种以上属性/颜色")),
    "sample": (("样例",), _flag_sample, N_("样例数据")),
}


@key("is", "是", help_zh=N_("标记：is:legion is:extra is:reprint is:multicolor is:unique is:sample"))
def is_term(term: Term, ctx: Context) -> Clause:
    check_op(term, (":",))
    word = fold(term.value)
    for flag, (aliases, build, _help) in FLAGS.items():
        if word == flag or word in {fold(a) for a in aliases}:
            return build(ctx)
    raise error(
        term,
        f"「{term.text}」：未知的标记 {term.value}，可用：{'、'.join(FLAGS)}",
        f"'{term.text}': unknown flag {term.value}; known: {', '.join(FLAGS)}",
    )


def _collection_counts(ctx: Context, what: str) -> Any:
    """(id, count) per card — or per printing in ``unique:prints`` — of the signed-in user's
    owned copies (``own``), copies for trade (``trade``) or wanted copies (``want``)."""
    from catalog.models import CollectionItem, WantItem

    printing = table_of(Printing)
    per_print = ctx.mode == "prints"
    if what == "want":
        wants = table_of(WantItem)
        # A want for "any printing" counts towards every printing of the card.
        if per_print:
            return (
                select(printing.c.id.label("id"), func.sum(wants.c.quantity).label("n"))
                .select_from(wants.join(printing, printing.c.card_id == wants.c.card_id))
                .where(wants.c.user_id == ctx.user_id)
                .where(or_(wants.c.printing_id.is_(None), wants.c.printing_id == printing.c.id))
                .group_by(printing.c.id)
            )
        return (
            select(wants.c.card_id.label("id"), func.sum(wants.c.quantity).label("n"))
            .where(wants.c.user_id == ctx.user_id)
            .group_by(wants.c.card_id)
        )
    items = table_of(CollectionItem)
    amount = items.c.quantity if what == "own" else items.c.for_trade
    group = printing.c.id if per_print else printing.c.card_id
    return (
        select(group.label("id"), func.sum(amount).label("n"))
        .select_from(items.join(printing, printing.c.id == items.c.printing_id))
        .where(items.c.user_id == ctx.user_id)
        .group_by(group)
    )


def _collection_key(what: str) -> Handler:
    def handler(term: Term, ctx: Context) -> Clause:
        ctx.personal = True
        if ctx.user_id is None:
            raise error(
                term,
                f"「{term.text}」：own/want/trade 需要登录：只对登录的用户有效",
                f"'{term.text}': own/want/trade need a signed-in user; sign in first",
            )
        check_op(term, tuple(NUMERIC_OPS))
        wanted = integer(term)
        compare = NUMERIC_OPS[term.op]
        counts = _collection_counts(ctx, what).subquery()
        row_id = ctx.p.c.id if ctx.mode == "prints" else ctx.cs.c.card_id
        if ctx.mode == "prints":
            ctx.uses_printings = True
        # Rows the user has none of count as 0. Only the user's few rows are grouped: when 0
        # itself satisfies the comparison (own=0, own<2), a row matches unless its count fails.
        if compare(0, wanted):
            failing = select(counts.c.id).where(not_(compare(counts.c.n, wanted)))
            return row_id.not_in(failing)
        return row_id.in_(select(counts.c.id).where(compare(counts.c.n, wanted)))

    return handler


for _name, _aliases, _help in (
    ("own", ("拥有",), N_("登录后：我拥有的张数（own>0 我有的卡，own=0 我没有的卡）")),
    ("want", ("想要",), N_("登录后：我的需求列表中的张数（want>0）")),
    ("trade", ("交换",), N_("登录后：我标为可交换的张数（trade>0）")),
):
    key(_name, *_aliases, help_zh=_help, ops=tuple(NUMERIC_OPS))(_collection_key(_name))

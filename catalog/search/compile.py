"""From a parsed query to SQL: walk the tree, hand each term to its key (:mod:`.keys`), and
recognise the directives (``order:``, ``unique:``, ``direction:``) that set up the whole query
instead of filtering it."""

from __future__ import annotations

from sqlalchemy import and_, not_, or_

from catalog.search.keys import Clause, Context, error, known_keys, lookup, name_term
from catalog.search.parser import And, Node, Not, Or, Term
from catalog.text import fold

# ---- directives --------------------------------------------------------------

ORDERS = {
    "name": ("name", "名称", "名稱"),
    "cost": ("cost", "费用", "費用"),
    "atk": ("atk", "attack", "攻击", "攻擊"),
    "def": ("def", "defense", "防御", "防禦"),
    "rarity": ("rarity", "稀有度"),
    "set": ("set", "系列"),
    "number": ("number", "编号", "編號"),
}
DIRECTIVE_ALIASES = {
    "order": ("order", "sort", "排序"),
    "unique": ("unique", "唯一"),
    "direction": ("direction", "dir", "顺序", "順序"),
}


def directive_of(term: Term) -> str | None:
    word = fold(term.key)
    for name, aliases in DIRECTIVE_ALIASES.items():
        if word in {fold(a) for a in aliases}:
            return name
    return None


def compile_node(node: Node, ctx: Context) -> Clause:
    if isinstance(node, And):
        return and_(*(compile_node(item, ctx) for item in node.items))
    if isinstance(node, Or):
        return or_(*(compile_node(item, ctx) for item in node.items))
    if isinstance(node, Not):
        return not_(compile_node(node.item, ctx))
    return compile_term(node, ctx)


def compile_term(term: Term, ctx: Context) -> Clause:
    if not term.key:
        return name_term(term, ctx)
    if directive_of(term):
        raise error(
            term,
            f"「{term.text}」：{term.key} 只能作为整个查询的设置，不能放在 or、括号或 - 里",
            f"'{term.text}': {term.key} applies to the whole query, not inside or/parentheses/-",
        )
    entry = lookup(term.key)
    if entry is None:
        raise error(
            term,
            f"第 {term.position + 1} 个字符处：未知的搜索键「{term.key}」。可用的键：{known_keys()} order: unique:",
            f"unknown key '{term.key}' at position {term.position + 1}; known keys: {known_keys()} order: unique:",
        )
    return entry.handler(term, ctx)

"""Builders for deck tests: in-memory card pools (no database), decklists from lines, and a legal
Samsara list drawn from the sample catalogue."""

from __future__ import annotations

import itertools
import re
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import check_parsed, load_pool
from catalog.decks.lists import CardPool, parse_decklist
from catalog.games import GAMES
from catalog.games.samsara.rules import copy_limit, is_extra_card
from catalog.rules import FormatSpec, PoolCard, Verdict
from catalog.text import fold

_ids = itertools.count(1)


def card(
    name: str,
    type: str,
    *,
    sets: tuple[str, ...] = ("T1",),
    attributes: str = "",
    cost: dict[str, int] | None = None,
    traits: tuple[str, ...] = (),
    keywords: tuple[dict[str, Any], ...] = (),
    faction: str = "",
    extra: dict[str, Any] | None = None,
    text: str = "",
    name_en: str = "",
) -> PoolCard:
    cost = dict(cost or {})
    return PoolCard(
        id=next(_ids),
        name=name,
        name_key=fold(name),
        type=type,
        attributes=attributes,
        faction=faction,
        cost=cost,
        cost_total=sum(cost.values()) if cost else None,
        traits=traits,
        trait_keys=frozenset(fold(t) for t in traits),
        keywords=keywords,
        extra=dict(extra or {}),
        set_codes=frozenset(sets),
        text=text,
        name_en=name_en,
    )


def kw(kind: str, value: int | None = None, subject: str | None = None) -> dict[str, Any]:
    return {"kind": kind, "value": value, "subject": subject, "label": kind}


def pool(game: str, cards: list[PoolCard], numbers: dict[str, list[tuple[str, str]]] | None = None) -> CardPool:
    """A pool of ``cards``; ``numbers`` maps a collector number to [(card name, set code)]."""
    by_name = {c.name: c for c in cards}
    index: dict[str, list[tuple[int, str, str]]] = {}
    for number, hits in (numbers or {}).items():
        for name, code in hits:
            index.setdefault(fold(number), []).append((by_name[name].id, code, number))
    codes = {code for c in cards for code in c.set_codes}
    return CardPool(game, {c.id: c for c in cards}, index, {fold(c): c for c in codes})


def fmt(
    game: str,
    kind: str | None = None,
    *,
    code: str | None = None,
    legal_sets: tuple[str, ...] = ("*",),
    bans: dict[int, int] | None = None,
    factions: frozenset[str] | None = None,
    **params: Any,
) -> FormatSpec:
    module = GAMES[game]
    kind = kind or next(iter(module.rule_kinds))
    merged = dict(module.rule_kinds[kind]) | params
    catalogue = {"factions": factions} if factions is not None else {}
    return FormatSpec(game, code or kind, kind, code or kind, merged, legal_sets, bans or {}, catalogue)


def check(text: str, card_pool: CardPool, format_spec: FormatSpec) -> Verdict:
    _deck, verdict = check_parsed(parse_decklist(text), card_pool, format_spec)
    return verdict


def lines(*entries: tuple[int, str], header: str | None = None) -> str:
    body = [f"{n} {name}" for n, name in entries]
    return "\n".join(([header] if header else []) + body) + "\n"


BANNED = ("虚华·空暝之主", "绝闪·龙皇降临", "亚瑟王·圣剑之誓")


def legal_samsara_list(engine: Engine) -> str:
    """17 × 3 main-deck cards of S8 (legal everywhere) and two stones of every attribute they need."""
    with Session(engine) as session:
        pool = load_pool(session, "samsara")
    picks = sorted(
        (
            c
            for c in pool.cards.values()
            if "S8" in c.set_codes
            and not is_extra_card(c)
            and not c.keywords_of("restricted")
            and (copy_limit(c, fmt("samsara")) or 0) >= 3
            and c.name not in BANNED
        ),
        key=lambda c: c.name,
    )[:17]
    needed = sorted({a for c in picks for a in c.cost if a != "无"})
    main = "".join(f"3 {c.name}\n" for c in picks)
    extra = "".join(f"2 {a}之法力石\n" for a in needed)
    return f"名称: 样例\n主卡组:\n{main}额外卡组:\n{extra}"


def pdf_pages(data: bytes) -> tuple[int, list[tuple[float, float]]]:
    """(the page tree's /Count, every page's MediaBox size in points), read from the bytes."""
    assert data.startswith(b"%PDF-")
    count = max(int(n) for n in re.findall(rb"/Count (\d+)", data))
    boxes = [(float(w), float(h)) for w, h in re.findall(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)]
    return count, boxes

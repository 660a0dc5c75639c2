"""Deck-check throughput (``make bench``): 1,000 different 60-card decks against the sample catalogue.

In-process, once the catalogue is loaded: each deck is parsed from text, resolved and judged
by every rule of the ``m8`` format (ban list, legal sets, extra_max, mana check). "Cold" is the
first pass, including loading the card pool and format from the database with empty caches;
"warm" is the best of three more passes over the same decks. Target: ≥ 2,000 decks/s warm. Prints figures,
asserts only that every deck got a verdict (timings depend on the machine).
"""

from __future__ import annotations

import random
import time

from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import check_parsed, load_format, load_pool
from catalog.decks.lists import parse_decklist
from catalog.games.samsara.rules import _castable, is_extra_card
from catalog.text import fold

DECKS = 1000


def _decks(engine: Engine) -> list[str]:
    with Session(engine) as session:
        pool = load_pool(session, "samsara")
    main = sorted(c.name for c in pool.cards.values() if not is_extra_card(c))
    stones = sorted(c.name for c in pool.cards.values() if c.type == "法力石")
    rng = random.Random(42)
    texts = set()
    while len(texts) < DECKS:
        picks = rng.sample(main, 20)
        extra = rng.sample(stones, 3)
        body = "".join(f"3 {name}\n" for name in picks)
        texts.add(f"名称: 压测\n主卡组:\n{body}额外卡组:\n" + "".join(f"4 {s}\n" for s in extra))
    return sorted(texts)


def _judge_all(pool, fmt, texts: list[str]) -> tuple[float, list]:
    started = time.perf_counter()
    verdicts = [check_parsed(parse_decklist(text), pool, fmt)[1] for text in texts]
    return time.perf_counter() - started, verdicts


def test_deck_check_throughput(sample_catalogue: Engine) -> None:
    texts = _decks(sample_catalogue)
    assert len(set(texts)) == DECKS and all(t.count("\n3 ") == 20 for t in texts)
    report = [f"\n{DECKS} different decks of 60 cards (+ 12 mana stones), sample catalogue:"]
    for code in ("standard", "m8"):
        fold.cache_clear()
        _castable.cache_clear()
        started = time.perf_counter()
        with Session(sample_catalogue) as session:
            pool = load_pool(session, "samsara")
            fmt = load_format(session, "samsara", code, pool)
        load = time.perf_counter() - started
        cold, verdicts = _judge_all(pool, fmt, texts)
        passes = [_judge_all(pool, fmt, texts) for _ in range(3)]
        warm, again = min(passes, key=lambda p: p[0])
        assert [v.to_json() for v in verdicts] == [v.to_json() for v in again]
        assert all(v.counts["main"] == 60 for v in verdicts)
        illegal = sum(not v.legal for v in verdicts)
        problems = sum(len(v.violations) for v in verdicts)
        report.append(
            f"  format {code}: {illegal} illegal, {problems} violations in all; "
            f"load pool ({len(pool.cards)} cards) + format {load * 1000:.0f} ms\n"
            f"    cold: {DECKS / (cold + load):,.0f} decks/s including the load, {DECKS / cold:,.0f} without\n"
            f"    warm: {DECKS / warm:,.0f} decks/s, best of 3 (target ≥ 2,000)"
        )
    print("\n".join(report))

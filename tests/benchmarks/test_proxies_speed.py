"""Proxy PDF of a 75-card deck (``make bench BENCH_ARGS="-k proxies"``).

Before: 6.6 MB, 0.5 s warm, 1.8 s cold. Target: ≤ 2 MB and ≤ 250 ms warm. Through the Flask
test client, as a visitor asks for it: cold = an empty face cache (every distinct face drawn
and JPEG-encoded), warm = the same request again (faces read from the cache). Figures, no
asserts on time.
"""

from __future__ import annotations

import re
import statistics
import time

from tests.kits.deck import legal_samsara_list


def _deck_of_75(engine) -> str:
    """The legal sample deck (17 × 3 main) with 4 of each basic stone it needs: 75 cards."""
    return re.sub(r"(?m)^2 (\S+之法力石)$", r"4 \1", legal_samsara_list(engine))


def test_proxies_of_a_75_card_deck_cold_and_warm(sample_app, sample_catalogue) -> None:
    client = sample_app.test_client()
    query = {"game": "samsara", "list": _deck_of_75(sample_catalogue)}
    client.get("/decks", query_string=query)  # the app, fonts and the pool loaded once
    started = time.perf_counter()
    cold = client.get("/decks/proxies.pdf", query_string=query)
    cold_seconds = time.perf_counter() - started
    assert cold.status_code == 200
    warm = []
    for _round in range(10):
        started = time.perf_counter()
        response = client.get("/decks/proxies.pdf", query_string=query)
        warm.append(time.perf_counter() - started)
        assert response.data == cold.data
    lean = client.get("/decks/proxies.pdf", query_string=query | {"no_basics": "1"})
    pages = int(re.findall(rb"/Count (\d+)", cold.data)[-1])
    print(
        f"\nproxy PDF of 75 cards ({pages} pages): {len(cold.data) / 1e6:.2f} MB;"
        f" cold {cold_seconds * 1000:.0f} ms; warm median {statistics.median(warm) * 1000:.0f} ms,"
        f" best {min(warm) * 1000:.0f} ms, worst {max(warm) * 1000:.0f} ms;"
        f" without basic stones {len(lean.data) / 1e6:.2f} MB"
    )

"""The exact assignment of one partner's copies of a card to one user's wants for it.

Greedy was wrong: a lax printing want took the NM copy a strict card want needed (1 counted, 2
possible). This is a maximum flow, source → want (its need) → each copy it accepts → sink (the
copies left), small enough per card to solve by augmenting paths. Pure: no database.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.collection.grades import ItemGrade


@dataclass(frozen=True)
class Want:
    """What one want still misses of a card, and which copies it accepts."""

    card_id: int
    printing_id: int | None
    need: int
    worst: int  # condition rank
    language: str | None = None  # None: any
    finish: str | None = None  # None: any
    in_addition: bool = False  # a printing want on top of the card want (else it may refine it)


@dataclass
class Copy:
    """Copies of one item (printing + grade) a user can trade."""

    printing_id: int
    card_id: int
    grade: ItemGrade
    left: int
    rank: int  # of the condition (lower is better)


def accepts(want: Want, copy: Copy) -> bool:
    """Whether ``copy`` meets ``want``: its printing (if it names one), condition, language, finish."""
    return (
        (want.printing_id is None or copy.printing_id == want.printing_id)
        and copy.rank <= want.worst
        and (want.language is None or want.language == copy.grade.language)
        and (want.finish is None or want.finish == copy.grade.finish)
    )


def assign(wants: list[Want], copies: list[Copy]) -> list[tuple[Copy, int]]:
    """(copy, how many of it) giving the most copies to the wants of one card.

    A maximum flow, source → want (its need) → each copy it accepts → sink (the copies left).
    Greedy was wrong: a lax printing want took the NM copy a strict card want needed. One want,
    or wants accepting the same copies, have no such choice: walking the copies best first is
    then exact, and it is the common case a thousand partners go through. Otherwise the graph
    has a few wants and a few copies, so augmenting paths (:func:`_max_flow`) solve it in
    microseconds, where building a networkx graph per card and partner tripled the matching time.
    """
    if len(wants) == 1:
        return _walk(wants[0], wants[0].need, copies)
    edges = [[i for i, copy in enumerate(copies) if accepts(want, copy)] for want in wants]
    if all(e == edges[0] for e in edges):
        return _walk(wants[0], sum(want.need for want in wants), copies)
    taken = _max_flow([want.need for want in wants], [copy.left for copy in copies], edges)
    return [(copies[i], n) for i, n in enumerate(taken) if n > 0]


def _walk(want: Want, need: int, copies: list[Copy]) -> list[tuple[Copy, int]]:
    """``need`` copies ``want`` accepts, best condition first (copies are indexed that way)."""
    out = []
    for copy in copies:
        if accepts(want, copy):
            n = min(need, copy.left)
            out.append((copy, n))
            need -= n
            if need == 0:
                break
    return out


def _max_flow(needs: list[int], lefts: list[int], edges: list[list[int]]) -> list[int]:
    """How many of each copy a maximum flow takes: want ``w`` (capacity ``needs[w]``) may take
    any copy in ``edges[w]`` (capacity ``lefts[c]``).

    First the most constrained wants take the best copies they accept (usually the answer
    already), then augmenting paths (breadth first: want → a copy it accepts → a want already
    holding that copy → … → a copy with some left) until none is left: Ford–Fulkerson, exact.
    """
    room, left = list(needs), list(lefts)
    flow = [dict.fromkeys(accepted, 0) for accepted in edges]  # want → copy → taken
    for w in sorted(range(len(needs)), key=lambda w: len(edges[w])):
        for c in edges[w]:
            n = min(room[w], left[c])
            if n > 0:
                flow[w][c] += n
                room[w] -= n
                left[c] -= n
    holders = [[w for w in range(len(needs)) if c in flow[w]] for c in range(len(lefts))]
    while True:
        came: dict[tuple[str, int], tuple[str, int] | None] = {("w", w): None for w in range(len(needs)) if room[w]}
        queue, end = list(came), None
        while queue and end is None:
            kind, node = queue.pop(0)
            if kind == "w":
                for c in edges[node]:
                    if ("c", c) not in came:
                        came[("c", c)] = (kind, node)
                        if left[c] > 0:
                            end = c
                            break
                        queue.append(("c", c))
            else:  # a copy already taken: a want holding some of it may give it up
                for w in holders[node]:
                    if flow[w][node] > 0 and ("w", w) not in came:
                        came[("w", w)] = (kind, node)
                        queue.append(("w", w))
        if end is None:
            return [lefts[c] - left[c] for c in range(len(lefts))]
        path, step = [], ("c", end)
        while (back := came[step]) is not None:
            path.append((back, step))
            step = back
        start = step[1]
        push = min(room[start], left[end], *(flow[b[1]][a[1]] for a, b in path if a[0] == "c"))
        room[start] -= push
        left[end] -= push
        for (kind, node), (_, to) in path:
            if kind == "w":
                flow[node][to] += push
            else:
                flow[to][node] -= push

"""How many Swiss rounds for a number of players: MTR Appendix E, made Swiss-only.

Appendix E ("Recommended Number of Rounds in Swiss Tournaments"):

| players | Swiss rounds | playoff |
| --- | --- | --- |
| 5–8 | 3 single-elimination rounds (no Swiss) | none |
| 9–16 | 5 (constructed) | top 4 |
| 17–32 | 5 | top 8 |
| 33–64 | 6 | top 8 |
| 65–128 | 7 | top 8 |
| 129–226 | 8 | top 8 |
| 227–409 | 9 | top 8 |
| 410+ | 10 | top 8 |

Choice: the seed requires Swiss for every monthly event ("每次比赛都必须采用瑞士轮积分赛"), so
where Appendix E runs single elimination (5–8 players) we run the same number of rounds as
Swiss: 3 rounds for 5–8 players, 2 for 3–4, 1 for 2. The playoff column is only a suggestion
shown to the organiser; a top cut is opted into per event.
"""

from __future__ import annotations

# (most players, rounds, suggested top cut)
APPENDIX_E: tuple[tuple[int, int, int], ...] = (
    (2, 1, 0),
    (4, 2, 0),
    (8, 3, 0),
    (16, 5, 4),
    (32, 5, 8),
    (64, 6, 8),
    (128, 7, 8),
    (226, 8, 8),
    (409, 9, 8),
)
MOST_ROUNDS = 10


def recommended_rounds(players: int) -> int:
    """Swiss rounds for ``players`` entrants (0 for fewer than 2)."""
    if players < 2:
        return 0
    return next((rounds for most, rounds, _cut in APPENDIX_E if players <= most), MOST_ROUNDS)


def recommended_top_cut(players: int) -> int:
    """The playoff Appendix E suggests (0, 4 or 8)."""
    if players < 2:
        return 0
    return next((cut for most, _rounds, cut in APPENDIX_E if players <= most), 8)

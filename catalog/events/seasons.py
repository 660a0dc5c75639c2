"""Seasons: events counted together for national-championship (国冠) qualification.

The seed describes two groups of regions: "总共8场月赛，年霸王赛会替代3月份的月赛来进行，积分计算方式
和月赛一样。最终积分最高的玩家便能获得参加国冠的资格" and "总共7场月赛 … 按分数从高到低依次获得拥有
参加国冠资格的玩家名字。2016年7月月中则进行一场预选，决出另一批获得参加国冠资格的玩家". So a season
sums each player's points over its monthly events and its 霸王赛 (the same way), qualifies its
top N (``cut_top``: 1 for the first group, more for the second), plus the qualifier event's top
K (``qualifier_top``).

Choices where the seed is silent: an event's points are the player's Swiss match points
("积分" — the scoring the Swiss software keeps; ``points_rule`` "chests" sums the chests won
instead); the qualifier's points do not enter the leaderboard (it is a separate selection) and
its "another batch" skips players already qualified by points.

Ties on points are broken by a documented chain (:func:`season_order`), never by name:

1. best single finish (the lowest place in any counted event);
2. events won (more is better);
3. top-eight finishes (more is better);
4. events played (fewer is better: the same points in fewer events).

Players equal on all of these share a rank (listed by name only for reading), and at the cut
line they all qualify: a tie the chain cannot break is not decided by the alphabet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.errors import Message
from catalog.events.prizes import Placing, holder_key, placings
from catalog.events.registration import EventError, EventNotFound
from catalog.games import DEFAULT_GAME
from catalog.models import Event, Season
from catalog.models.event_columns import EVENT, SEASON

PointsRule = Callable[[Placing], int]
POINTS_RULES: dict[str, PointsRule] = {
    "match_points": lambda p: p.points,
    "chests": lambda p: p.chests,
}


def create_season(
    *,
    session: Session,
    code: str,
    name: str,
    now: datetime,
    game: str = DEFAULT_GAME,
    region: str = "",
    points_rule: str = "match_points",
    cut_top: int = 1,
    qualifier_top: int = 0,
) -> Season:
    code = code.strip()
    if not code or len(code) > 32 or not all(c.isalnum() or c in "-_" for c in code):
        raise EventError(
            Message("赛季代码只能用字母、数字、- 和 _（最多 32 个）", "a season code is letters, digits, - and _")
        )
    if session.scalars(select(Season).where(SEASON.code == code)).first() is not None:
        raise EventError(Message(f"赛季「{code}」已经存在", f"season '{code}' exists"))
    if points_rule not in POINTS_RULES:
        raise EventError(Message(f"未知的积分方式：{points_rule}", f"unknown points rule: {points_rule}"))
    if not 0 <= cut_top <= 1000 or not 0 <= qualifier_top <= 1000:
        raise EventError(Message("晋级人数不合理", "the qualification numbers are out of range"))
    season = Season(
        code=code, name=name.strip()[:100] or code, game=game, region=region.strip()[:100], points_rule=points_rule,
        cut_top=cut_top, qualifier_top=qualifier_top, created_at=now,
    )  # fmt: skip
    session.add(season)
    session.flush()
    return season


def get_season(*, session: Session, code: str) -> Season:
    season = session.scalars(select(Season).where(SEASON.code == code)).first()
    if season is None:
        raise EventNotFound(Message(f"没有赛季「{code}」", f"no season '{code}'"))
    return season


def season_events(*, session: Session, season: Season) -> list[Event]:
    return list(session.scalars(select(Event).where(EVENT.season_id == season.id).order_by(EVENT.date, EVENT.id)))


@dataclass
class SeasonRow:
    rank: int
    player: str
    key: str
    points: int = 0
    events: list[tuple[Event, int, int]] = field(default_factory=list)  # (event, place, points)
    qualified: str = ""  # "" | "points" | "qualifier"


@dataclass
class Leaderboard:
    season: Season
    events: list[Event]
    rows: list[SeasonRow]
    qualifier: Event | None


def tie_key(row: SeasonRow) -> tuple[int, ...]:
    """The season's tie chain for one row (smaller is better): points, best finish, wins, top 8s,
    events played."""
    places = [place for _, place, _ in row.events]
    return (
        -row.points,
        min(places, default=1_000_000),
        -sum(1 for p in places if p == 1),
        -sum(1 for p in places if p <= 8),
        len(places),
    )


def season_order(rows: list[SeasonRow]) -> list[SeasonRow]:
    """The rows ranked by :func:`tie_key`; rows equal on the whole chain share a rank."""
    ordered = sorted(rows, key=lambda r: (tie_key(r), r.player))
    previous: tuple[int, ...] | None = None
    for i, row in enumerate(ordered):
        key = tie_key(row)
        if key != previous:
            row.rank, previous = i + 1, key
        else:
            row.rank = ordered[i - 1].rank
    return ordered


def leaderboard(*, session: Session, season: Season) -> Leaderboard:
    """Summed points of the season's finished events, with the qualification cut marked."""
    rule = POINTS_RULES[season.points_rule]
    events = season_events(session=session, season=season)
    by_key: dict[str, SeasonRow] = {}
    qualifier = next((e for e in events if e.kind == "qualifier"), None)
    for event in events:
        if event.kind == "qualifier" or event.state != "finished":
            continue
        for placing in placings(session=session, event=event):
            key = holder_key(placing.registration)
            row = by_key.setdefault(key, SeasonRow(0, placing.registration.player_name, key))
            points = rule(placing)
            row.points += points
            row.events.append((event, placing.place, points))
    rows = season_order(list(by_key.values()))
    for row in rows:
        if row.rank <= season.cut_top and row.points > 0:
            row.qualified = "points"
    if qualifier is not None and qualifier.state == "finished" and season.qualifier_top:
        done = {r.key for r in rows if r.qualified}
        taken = 0
        for placing in placings(session=session, event=qualifier):
            key = holder_key(placing.registration)
            if key in done or taken >= season.qualifier_top:
                continue
            if key not in by_key:
                by_key[key] = SeasonRow(len(rows) + 1, placing.registration.player_name, key)
                rows.append(by_key[key])
            row = by_key[key]
            row.qualified = "qualifier"
            row.events.append((qualifier, placing.place, 0))
            taken += 1
    return Leaderboard(season, events, rows, qualifier)

"""Events and their players: create an event, register (with a saved deck or a pasted list),
change the list until the deadline, then it is locked; walk-ins, late entries, drops and
disqualifications; the deck check at the table.

A registration keeps its list as a snapshot (the text as given) plus the SHA-256 of its
canonical form (Cockatrice's idea: the same cards hash the same however they are written —
``3x M4-017`` and ``3 亚瑟王`` alike), and the verdict in the event's format (DESIGN §5).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from catalog.decks.check import check_parsed, game_slug, load_format, load_pool
from catalog.decks.lists import CardPool, DeckList, parse_decklist, resolve
from catalog.errors import LunzangError, Message
from catalog.events.pairing import PAIRING_SYSTEMS
from catalog.events.rounds import recommended_rounds
from catalog.events.standings import TIEBREAKERS
from catalog.events.stores import check_prizes, staffs_event_store
from catalog.models import Event, Game, PrizeTable, Registration, Season, User
from catalog.models.event_columns import PRIZE, REG, ROUND, SEASON
from catalog.text import fold

MAX_DECK_TEXT = 20_000
MAX_PLAYERS = 4096
DEFAULT_PRIZES = {1: 9, 2: 7, 3: 5, 0: 4}  # the seed: 冠军 9, 亚军 7, 季军 5, every player 4


class EventError(LunzangError):
    code = "bad_request"


class EventNotFound(LunzangError):
    code = "not_found"
    status = 404


class Forbidden(LunzangError):
    code = "forbidden"
    status = 403


class DeckLocked(LunzangError):
    code = "deck_locked"
    status = 409


def checked_text(value: str, limit: int, what_zh: str, what_en: str, *, required: bool = True) -> str:
    value = (value or "").strip()
    if required and not value:
        raise EventError(Message(f"请填写{what_zh}", f"{what_en} is required"))
    if len(value) > limit:
        raise EventError(Message(f"{what_zh}太长（最多 {limit} 个字）", f"{what_en} is too long (at most {limit})"))
    return value


def create_event(
    *,
    session: Session,
    name: str,
    game: str,
    format_code: str = "",
    date: Date,
    now: datetime,
    organizer_id: int | None = None,
    store: str = "",
    city: str = "",
    region: str = "",
    entry_fee: str = "",
    rounds: int | None = None,
    top_cut: int = 0,
    third_place: str = "swiss",
    season_code: str | None = None,
    kind: str = "monthly",
    round_minutes: int = 50,
    deadline: datetime | None = None,
    prizes: dict[int, int] | None = None,
    tiebreakers: str = "mtr",
    pairing_system: str = "swiss",
    deck_policy: str = "required",
) -> Event:
    """A new event, open for registration, with the seed's prize table unless one is given."""
    if tiebreakers not in TIEBREAKERS or pairing_system not in PAIRING_SYSTEMS:
        raise EventError(
            Message(
                f"未知的破同分方式或配对方式：{tiebreakers} / {pairing_system}",
                f"unknown tiebreakers or pairing system: {tiebreakers} / {pairing_system}",
            )
        )
    slug = game_slug(game)
    fmt = load_format(session, slug, format_code or None)
    if rounds is not None and not 1 <= rounds <= 20:
        raise EventError(Message("轮数应在 1 到 20 之间", "rounds must be 1 to 20"))
    if top_cut not in (0, 4, 8):
        raise EventError(Message("决赛圈只能是 0、4 或 8 人", "the top cut is 0, 4 or 8"))
    if third_place not in ("swiss", "playoff"):
        raise EventError(Message("季军决定方式应为 swiss 或 playoff", "third place is 'swiss' or 'playoff'"))
    if kind not in ("monthly", "bawang", "qualifier"):
        raise EventError(Message("赛事类型应为月赛、霸王赛或预选赛", "kind is monthly, bawang or qualifier"))
    if not 10 <= round_minutes <= 180:
        raise EventError(Message("每轮时长应在 10 到 180 分钟之间", "a round lasts 10 to 180 minutes"))
    check_deck_policy(deck_policy)
    season_id = None
    if season_code:
        season = session.scalars(select(Season).where(SEASON.code == season_code.strip())).first()
        if season is None:
            raise EventError(Message(f"没有赛季「{season_code}」", f"no season '{season_code}'"))
        season_id = season.id
    store = checked_text(store, 100, "店铺名称", "the store", required=False)
    event = Event(
        name=checked_text(name, 100, "赛事名称", "the event name"),
        organizer_id=organizer_id,
        store=store,
        store_key=fold(store),
        city=checked_text(city, 50, "城市", "the city", required=False),
        region=checked_text(region, 50, "地区", "the region", required=False),
        game=slug,
        format_code=fmt.code,
        date=date,
        entry_fee=checked_text(entry_fee, 100, "报名费说明", "the entry fee note", required=False),
        rounds=rounds,
        top_cut=top_cut,
        third_place=third_place,
        season_id=season_id,
        kind=kind,
        round_minutes=round_minutes,
        deadline=deadline,
        tiebreakers=tiebreakers,
        pairing_system=pairing_system,
        deck_policy=deck_policy,
        created_at=now,
    )
    session.add(event)
    session.flush()
    set_prize_table(session=session, event=event, prizes=prizes or DEFAULT_PRIZES)
    return event


DECK_POLICIES = ("required", "flag")


def check_deck_policy(policy: str) -> None:
    if policy not in DECK_POLICIES:
        raise EventError(Message("卡组政策应为 required 或 flag", "the deck policy is 'required' or 'flag'"))


def list_problem(registration: Registration) -> str:
    """``"missing"`` (no list), ``"illegal"`` or ``""`` (a legal list): the deck gate's flag."""
    if registration.legal is None:
        return "missing"
    return "" if registration.legal else "illegal"


def list_problems(players: list[Registration]) -> tuple[list[Registration], list[Registration]]:
    """The players with an illegal list, and those with none."""
    illegal = [r for r in players if list_problem(r) == "illegal"]
    missing = [r for r in players if list_problem(r) == "missing"]
    return illegal, missing


def set_prize_table(*, session: Session, event: Event, prizes: dict[int, int]) -> None:
    """Replace the event's prize table: chests per place, place 0 = every other player."""
    if event.chests_awarded:
        raise EventError(Message("宝箱已经发放，奖励表不能再改", "the chests were awarded; the prize table is fixed"))
    if 0 not in prizes:
        raise EventError(Message("奖励表需要“其余选手”一项", "the prize table needs an entry for every other player"))
    for place, chests in prizes.items():
        if not 0 <= place <= 64 or not 0 <= chests <= 1000:
            raise EventError(Message("奖励表的名次或宝箱数不合理", "a place or chest count is out of range"))
    check_prizes(session=session, store_key=event.store_key, prizes=prizes)
    for row in session.scalars(select(PrizeTable).where(PRIZE.event_id == event.id)):
        session.delete(row)
    session.flush()
    for place, chests in sorted(prizes.items()):
        session.add(PrizeTable(event_id=event.id, place=place, chests=chests))  # type: ignore[arg-type]  # the row was flushed, so its id is set
    session.flush()


def prize_table(*, session: Session, event: Event) -> dict[int, int]:
    rows = session.scalars(select(PrizeTable).where(PRIZE.event_id == event.id))
    return {r.place: r.chests for r in rows} or dict(DEFAULT_PRIZES)


def get_event(*, session: Session, event_id: int, lock: bool = False) -> Event:
    """The event; ``lock`` takes its row lock on PostgreSQL (pairing, results and prizes of one
    event then wait for each other; SQLite writers already hold the database lock)."""
    postgres = session.get_bind().dialect.name == "postgresql"
    event = session.get(Event, event_id, with_for_update=lock and postgres)
    if event is None:
        raise EventNotFound(Message(f"没有编号为 {event_id} 的赛事", f"no event {event_id}"))
    return event


def can_manage(event: Event, user: User | None) -> bool:
    """An admin, or an organiser on the staff of the event's store (stores are
    accounts); an event without a store is managed by the organiser who created it."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.role == "admin":
        return True
    if user.role != "organizer":
        return False
    if event.store_key:
        return staffs_event_store(user, event.store_key, event)
    return event.organizer_id == user.id


def require_manager(event: Event, user: User | None) -> None:
    if not can_manage(event, user):
        raise Forbidden(Message("只有这场赛事的主办者或管理员可以管理它", "only the event's organiser or an admin"))


def planned_rounds(*, session: Session, event: Event) -> int:
    """The fixed number of rounds, else MTR Appendix E for the players not dropped before round 1."""
    if event.rounds:
        return event.rounds
    count = session.scalar(
        select(func.count()).select_from(Registration).where(REG.event_id == event.id, REG.disqualified.is_(False))
    )
    return max(recommended_rounds(int(count or 0)), 1)


def last_round(*, session: Session, event: Event) -> int:
    return int(session.scalar(select(func.max(ROUND.number)).where(ROUND.event_id == event.id)) or 0)


def decks_locked(event: Event, now: datetime) -> bool:
    """Lists lock at the deadline, or when the organiser closes registration, whichever first."""
    return event.state != "open" or (event.deadline is not None and now >= event.deadline)


# ---------------------------------------------------------------------------- decks


@dataclass(frozen=True)
class DeckSnapshot:
    text: str
    canonical: list[tuple[str, str, int]]  # (section, card name, copies), sorted
    hash: str
    verdict: dict[str, Any]
    legal: bool


def _canonical(text: str, pool: CardPool) -> list[tuple[str, str, int]]:
    """(section, card name, copies) per card; a line naming no card (or several) counts as written."""
    counts: dict[tuple[str, str], int] = {}
    for line in parse_decklist(text).lines:
        single, _problems = resolve(DeckList(lines=[line]), pool)
        if single.entries:
            key = (single.entries[0].section, single.entries[0].card.name)
        else:
            key = (line.section, "?" + fold(line.name or f"{line.set_code} {line.number}"))
        counts[key] = counts.get(key, 0) + line.count
    return sorted((s, n, c) for (s, n), c in counts.items())


def canonical_hash(canonical: list[tuple[str, str, int]]) -> str:
    """SHA-256 of the sorted ``section count name`` lines (printings and spelling do not matter)."""
    body = "\n".join(f"{section}\t{count}\t{name}" for section, name, count in canonical)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def snapshot(*, session: Session, event: Event, text: str) -> DeckSnapshot:
    """Judge ``text`` in the event's game and format and hash its canonical form."""
    if len(text) > MAX_DECK_TEXT:
        raise EventError(Message("卡组文本太长", "the decklist text is too long"))
    if not text.strip():
        raise EventError(Message("卡组是空的", "the decklist is empty"))
    decklist = parse_decklist(text)  # DecklistError lists every unreadable line
    pool = load_pool(session, event.game)
    fmt = load_format(session, event.game, event.format_code or None, pool)
    _deck, verdict = check_parsed(decklist, pool, fmt)
    canonical = _canonical(text, pool)
    return DeckSnapshot(text, canonical, canonical_hash(canonical), verdict.to_json(), verdict.legal)


def apply_snapshot(registration: Registration, snap: DeckSnapshot | None, now: datetime) -> None:
    if snap is None:
        registration.deck_text, registration.deck_hash, registration.legal, registration.verdict = "", "", None, {}
    else:
        registration.deck_text, registration.deck_hash = snap.text, snap.hash
        registration.legal, registration.verdict = snap.legal, snap.verdict
    registration.updated_at = now


# ---------------------------------------------------------------------------- players


def register_player(
    *,
    session: Session,
    event: Event,
    player_name: str,
    now: datetime,
    user_id: int | None = None,
    deck_text: str | None = None,
    owned_deck_id: int | None = None,
) -> Registration:
    """Enter a player (a signed-in user, or a walk-in by name) with an optional list.

    ``owned_deck_id``: one of the user's own decks (a KeyForge deck is an object,): its
    fixed list is the registration's, and its identity is locked while the event is not over
    (it cannot be traded away, its list not replaced).

    While registration is open anyone enters; once the event runs, a late entry joins from the
    next round and the rounds missed count as losses. A finished event takes nobody.
    """
    name = checked_text(player_name, 64, "选手名字", "the player's name")
    if event.state == "finished":
        raise EventError(Message("赛事已经结束，不能再报名", "the event is over"))
    key = fold(name)
    taken = session.scalars(select(Registration).where(REG.event_id == event.id, REG.player_key == key)).first()
    if taken is not None:
        raise EventError(Message(f"「{name}」已经报名了这场赛事", f"'{name}' is already registered"))
    if user_id is not None:
        mine = session.scalars(select(Registration).where(REG.event_id == event.id, REG.user_id == user_id)).first()
        if mine is not None:
            raise EventError(Message("你已经报名了这场赛事", "you are already registered"))
    count = session.scalar(select(func.count()).select_from(Registration).where(REG.event_id == event.id))
    if int(count or 0) >= MAX_PLAYERS:
        raise EventError(Message(f"一场赛事最多 {MAX_PLAYERS} 名选手", f"at most {MAX_PLAYERS} players"))
    if owned_deck_id is not None:
        from catalog.collection.owned_decks import deck_for_registration

        if user_id is None:
            raise EventError(
                Message("只有登录的玩家能用自己的卡组报名", "only a signed-in player registers with their deck")
            )
        _owned, record = deck_for_registration(session=session, user_id=user_id, owned_id=owned_deck_id, now=now)
        game = session.get(Game, record.game_id)
        if game is None or game.slug != event.game:
            raise EventError(Message("这副卡组不是这场赛事的游戏", "this deck is not of the event's game"))
        deck_text = record.text
    snap = snapshot(session=session, event=event, text=deck_text) if deck_text else None
    registration = Registration(
        event_id=event.id,  # type: ignore[arg-type]  # the row was flushed, so its id is set
        user_id=user_id,
        player_name=name,
        player_key=key,
        first_round=last_round(session=session, event=event) + 1,
        registered_at=now,
        updated_at=now,
        owned_deck_id=owned_deck_id,
    )
    apply_snapshot(registration, snap, now)
    session.add(registration)
    session.flush()
    return registration


def set_deck(*, session: Session, event: Event, registration: Registration, text: str, now: datetime) -> Registration:
    """Change a player's list: refused once the lists are locked (the deadline passed).

    A late entrant without a list yet may hand one in once (after that it is locked too).
    """
    late_first_list = registration.first_round > 1 and not registration.deck_text
    if registration.owned_deck_id is not None:
        raise DeckLocked(
            Message(
                "这位选手用自己的一副卡组报名：卡组的身份已锁定，不能换成别的列表",
                "this player registered with one of their decks: its identity is locked, the list cannot change",
            )
        )
    if decks_locked(event, now) and not late_first_list:
        raise DeckLocked(
            Message("报名截止后卡组已锁定，不能再修改", "decklists are locked after the deadline; no changes")
        )
    apply_snapshot(registration, snapshot(session=session, event=event, text=text), now)
    session.flush()
    return registration


def get_registration(*, session: Session, event: Event, registration_id: int) -> Registration:
    registration = session.get(Registration, registration_id)
    if registration is None or registration.event_id != event.id:
        raise EventNotFound(Message("这场赛事没有这位选手", "no such player in this event"))
    return registration


def find_player(*, session: Session, event: Event, name: str) -> Registration:
    """A registration by player name (folded) or by its number."""
    key = fold(name.strip())
    found = session.scalars(select(Registration).where(REG.event_id == event.id, REG.player_key == key)).first()
    if found is None and name.strip().isdigit():
        found = session.get(Registration, int(name))
        if found is not None and found.event_id != event.id:
            found = None
    if found is None:
        raise EventNotFound(Message(f"这场赛事没有选手「{name}」", f"no player '{name}' in this event"))
    return found


def registrations(*, session: Session, event: Event) -> list[Registration]:
    return list(session.scalars(select(Registration).where(REG.event_id == event.id).order_by(REG.player_key)))


def close_registration(*, session: Session, event: Event) -> Event:
    """Close registration: the lists are locked from now on."""
    if event.state != "open":
        raise EventError(Message("报名已经截止", "registration is already closed"))
    event.state = "closed"
    session.flush()
    return event


def drop_player(*, session: Session, event: Event, registration: Registration) -> Registration:
    """The player leaves: not paired from the next round on (their results stay)."""
    if registration.dropped_from is not None:
        raise EventError(Message(f"{registration.player_name} 已经退赛", f"{registration.player_name} already dropped"))
    if event.state == "finished":
        raise EventError(Message("赛事已经结束", "the event is over"))
    registration.dropped_from = last_round(session=session, event=event) + 1
    session.flush()
    return registration


def disqualify(*, session: Session, event: Event, registration: Registration, reason: str) -> Registration:
    """Disqualify: not paired again, left out of the standings and the prizes (results stay)."""
    if event.chests_awarded:
        raise EventError(Message("宝箱已经发放，不能再取消资格", "the chests were awarded already"))
    registration.disqualified = True
    registration.dq_reason = checked_text(reason, 200, "取消资格的理由", "the reason")
    if registration.dropped_from is None:
        registration.dropped_from = last_round(session=session, event=event) + 1
    session.flush()
    return registration


# ---------------------------------------------------------------------------- deck check


@dataclass(frozen=True)
class DeckDifference:
    section: str
    card: str
    locked: int
    shown: int


def deck_difference(*, session: Session, event: Event, registration: Registration, text: str) -> list[DeckDifference]:
    """The deck check at the table: what the list shown differs from the locked one, per card."""
    if len(text) > MAX_DECK_TEXT:
        raise EventError(Message("卡组文本太长", "the decklist text is too long"))
    parse_decklist(text)  # DecklistError lists every unreadable line
    pool = load_pool(session, event.game)
    locked = {(s, n): c for s, n, c in _canonical(registration.deck_text, pool)} if registration.deck_text else {}
    shown = {(s, n): c for s, n, c in _canonical(text, pool)}
    out = []
    for key in sorted(locked.keys() | shown.keys()):
        if locked.get(key, 0) != shown.get(key, 0):
            out.append(DeckDifference(key[0], key[1].lstrip("?"), locked.get(key, 0), shown.get(key, 0)))
    return out

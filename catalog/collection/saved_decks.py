"""Saved decks (decklist text, DESIGN §4) and what a user's collection covers of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.wants import NotFound, list_wants, owned_by_card, set_want
from catalog.decks.check import DeckCheckError, check_parsed, game_slug, load_format, load_pool
from catalog.decks.lists import CardPool, parse_decklist, resolve
from catalog.errors import LunzangError, Message
from catalog.models import SavedDeck
from catalog.models.columns import DECK, GAME
from catalog.rules import FormatSpec, Verdict

MAX_DECK_TEXT = 20_000


class DeckError(LunzangError):
    code = "bad_request"


def save_deck(
    *,
    session: Session,
    user_id: int,
    game: str,
    name: str,
    text: str,
    format_code: str = "",
    deck_id: int | None = None,
    now: datetime,
) -> SavedDeck:
    """Create a saved deck, or update the user's deck ``deck_id``. The text must parse."""
    name = name.strip()[:100]
    if not name:
        raise DeckError(Message("请给卡组起个名字", "give the deck a name"))
    if len(text) > MAX_DECK_TEXT:
        raise DeckError(Message("卡组文本太长", "the decklist text is too long"))
    parse_decklist(text)  # DecklistError (every bad line) if unreadable
    slug = game_slug(game)
    game_id = session.scalar(select(GAME.id).where(GAME.slug == slug))
    if game_id is None:
        raise DeckError(Message("这个游戏还没有导入卡牌", "no cards of this game imported yet"))
    deck = get_deck(session=session, user_id=user_id, deck_id=deck_id) if deck_id is not None else None
    if deck is None:
        deck = SavedDeck(user_id=user_id, game_id=game_id, name=name, created_at=now, updated_at=now)
    deck.game_id, deck.name, deck.text, deck.format_code, deck.updated_at = game_id, name, text, format_code[:32], now
    session.add(deck)
    session.flush()
    return deck


def list_decks(*, session: Session, user_id: int) -> list[SavedDeck]:
    return list(
        session.scalars(select(SavedDeck).where(DECK.user_id == user_id).order_by(DECK.updated_at.desc(), DECK.id))
    )


def get_deck(*, session: Session, user_id: int, deck_id: int) -> SavedDeck:
    """The user's deck; another user's (or no) deck → :class:`NotFound`."""
    deck = session.get(SavedDeck, deck_id)
    if deck is None or deck.user_id != user_id:
        raise NotFound(Message("没有这个卡组", "no such deck"))
    return deck


def delete_deck(*, session: Session, user_id: int, deck_id: int) -> None:
    session.delete(get_deck(session=session, user_id=user_id, deck_id=deck_id))
    session.flush()


@dataclass(frozen=True)
class OwnershipLine:
    card_id: int | None  # None: the line names no card (or several)
    name: str
    needed: int
    owned: int
    lines: tuple[int, ...] = ()

    @property
    def missing(self) -> int:
        return max(0, self.needed - self.owned)


@dataclass
class DeckOwnership:
    lines: list[OwnershipLine] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # messages of lines naming no card

    @property
    def buildable(self) -> bool:
        return not self.unresolved and all(line.missing == 0 for line in self.lines)

    @property
    def missing(self) -> int:
        return sum(line.missing for line in self.lines)


def deck_ownership(*, session: Session, user_id: int, deck: SavedDeck, pool: CardPool | None = None) -> DeckOwnership:
    """Per card of the deck (main + extra + side merged, copies counted by Card over every
    printing and grade): needed, owned, missing; ``buildable`` when nothing is missing.

    ``pool``: the game's cards if already loaded (:func:`catalog.decks.check.load_pool`).
    """
    slug = session.scalar(select(GAME.slug).where(GAME.id == deck.game_id)) or ""
    pool = pool if pool is not None and pool.game == slug else load_pool(session, slug)
    resolved, problems = resolve(parse_decklist(deck.text), pool, game=slug)
    needed: dict[int, int] = {}
    lines: dict[int, list[int]] = {}
    for entry in resolved.entries:
        needed[entry.card.id] = needed.get(entry.card.id, 0) + entry.count
        lines.setdefault(entry.card.id, []).extend(entry.lines)
    owned = owned_by_card(session, user_id, list(needed))
    result = DeckOwnership(unresolved=[p.message for p in problems])
    for card_id, count in needed.items():
        result.lines.append(
            OwnershipLine(
                card_id, pool.cards[card_id].name, count, owned.get(card_id, 0), tuple(sorted(set(lines[card_id])))
            )
        )
    return result


def decks_overview(*, session: Session, user_id: int) -> list[tuple[SavedDeck, DeckOwnership]]:
    """Every saved deck of the user with what the collection covers of it (each game's cards
    loaded once): the deck list page's "buildable from my collection" flags."""
    pools: dict[int, CardPool] = {}
    out = []
    for deck in list_decks(session=session, user_id=user_id):
        if deck.game_id not in pools:
            slug = session.scalar(select(GAME.slug).where(GAME.id == deck.game_id)) or ""
            pools[deck.game_id] = load_pool(session, slug)
        out.append((deck, deck_ownership(session=session, user_id=user_id, deck=deck, pool=pools[deck.game_id])))
    return out


@dataclass
class DeckSummary:
    """A saved deck with its game, what the collection covers of it and its legality."""

    deck: SavedDeck
    game: str
    ownership: DeckOwnership
    verdict: Verdict | None  # None when the deck's format is unknown (``problem`` says why)
    problem: Message | None = None


def deck_summaries(*, session: Session, user_id: int, deck_id: int | None = None) -> list[DeckSummary]:
    """The user's saved decks (or only ``deck_id``, another user's → :class:`NotFound`), each
    checked against its format and its game's cards; every pool and format is loaded once."""
    decks = (
        [get_deck(session=session, user_id=user_id, deck_id=deck_id)]
        if deck_id is not None
        else list_decks(session=session, user_id=user_id)
    )
    slugs: dict[int, str] = {game_id: slug for game_id, slug in session.execute(select(GAME.id, GAME.slug))}
    pools: dict[str, CardPool] = {}
    formats: dict[tuple[str, str], FormatSpec | Message] = {}
    out = []
    for deck in decks:
        slug = slugs.get(deck.game_id, "")
        if slug not in pools:
            pools[slug] = load_pool(session, slug)
        pool = pools[slug]
        decklist = parse_decklist(deck.text)
        key = (slug, deck.format_code or decklist.format or "")
        if key not in formats:
            try:
                formats[key] = load_format(session, slug, key[1] or None, pool)
            except DeckCheckError as error:
                formats[key] = error.message
        ownership = deck_ownership(session=session, user_id=user_id, deck=deck, pool=pool)
        spec = formats[key]
        if isinstance(spec, Message):
            out.append(DeckSummary(deck, slug, ownership, None, spec))
        else:
            out.append(DeckSummary(deck, slug, ownership, check_parsed(decklist, pool, spec)[1]))
    return out


def add_missing_to_wants(
    *, session: Session, user_id: int, deck: SavedDeck, min_condition: str = "MP", now: datetime
) -> int:
    """Want every missing copy of the deck (any printing): a card already wanted gets its want raised
    to at least what is missing. Returns the number of cards whose want changed."""
    ownership = deck_ownership(session=session, user_id=user_id, deck=deck)
    wanted = {w.card_id: w for w in list_wants(session=session, user_id=user_id) if w.printing_id is None}
    changed = 0
    for line in ownership.lines:
        if line.missing == 0 or line.card_id is None:
            continue
        current = wanted.get(line.card_id)
        if current is not None and current.quantity >= line.missing:
            continue
        set_want(
            session=session,
            user_id=user_id,
            card_id=line.card_id,
            quantity=line.missing,
            min_condition=current.min_condition if current else min_condition,
            language=current.language if current else None,  # raising a want keeps what it insists on
            finish=current.finish if current else None,
            now=now,
        )
        changed += 1
    return changed

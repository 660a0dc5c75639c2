"""Wants pasted as a list: the decklist format of DESIGN §4, all or nothing.

Every line is read and looked up first (catalog.decks.lists: the same parser, name folding and
"did you mean" as the deck checker); any bad line — unreadable, naming no card or several, a
set the card is not printed in, too many copies — is reported with its line number and nothing
is written. Only then is each want set, in the caller's one transaction.

Choices (the issue says only "added in bulk by pasting a list"):

- The number on a line is how many copies are wanted in all, as on the card page's form: a
  card already wanted gets that number (its language and finish kept), not the two added up.
  Lines naming the same card (and printing) are added up, as a decklist counts them.
- ``3 卡名`` wants the card in any printing; ``3 卡名 (M4)`` or ``3 (M4) M4-001`` that printing.
- Sections (主卡组/额外卡组/备牌) and other metadata lines are allowed and ignored, so a deck
  list pastes as it is; ``游戏:`` names the game when the form does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from catalog.collection.wants import WantError, list_wants, set_want
from catalog.decks.check import game_slug, load_pool
from catalog.decks.lists import DecklistError, LineProblem, parse_decklist, resolve
from catalog.errors import Message
from catalog.models import CardSet, Printing
from catalog.rules import Violation
from catalog.text import fold

MAX_WANTED = 1000  # set_want's bound on one want's quantity


@dataclass(frozen=True)
class BulkWants:
    """What a pasted list did: the game, the wants set (cards), the copies they ask for."""

    game: str
    cards: int
    copies: int


def _printing_id(session: Session, card_id: int, set_code: str | None, number: str | None) -> int | str | None:
    """The printing a resolved line names (``None``: any printing), or ``"several"`` when a set
    alone names more than one printing of the card."""
    if not set_code:
        return None
    query = (
        select(Printing.id, Printing.number_key)
        .join(CardSet, col(CardSet.id) == col(Printing.set_id))
        .where(Printing.card_id == card_id, CardSet.code_key == fold(set_code))
    )
    rows = list(session.execute(query))
    if number:
        rows = [r for r in rows if r[1] == fold(number)] or rows
    if len(rows) != 1:
        return "several" if rows else None
    return int(rows[0][0])


def _line_problem(violation: Violation) -> LineProblem:
    """A lookup violation of ``resolve`` as a line problem (its message without the "第 n 行：")."""
    line = violation.lines[0] if violation.lines else 0
    zh = violation.message.removeprefix(f"第 {line} 行：")
    return LineProblem(line, Message(zh, violation.message_en.removeprefix(f"line {line}: ")))


def add_wants_from_list(
    *, session: Session, user_id: int, text: str, game: str | None, min_condition: str = "MP", now: datetime
) -> BulkWants:
    """Set a want for every card line of ``text`` (decklist format), or change nothing.

    Raises :class:`~catalog.decks.lists.DecklistError` naming every bad line (with its number),
    :class:`~catalog.decks.check.DeckCheckError` for an unknown game, :class:`WantError` for a
    bad condition or an empty list."""
    decklist = parse_decklist(text)  # bounded: MAX_TEXT_CHARS characters, MAX_LINES card lines
    slug = game_slug(game or decklist.game)
    if not decklist.lines:
        raise WantError(Message("列表里没有卡牌行（每行如“3 卡名”）", "the list has no card lines (like '3 name')"))
    pool = load_pool(session, slug)
    deck, violations = resolve(decklist, pool)
    problems = [_line_problem(v) for v in violations]
    totals: dict[tuple[int, int | None], int] = {}
    for entry in deck.entries:
        line = entry.lines[0] if entry.lines else 0
        printing = _printing_id(session, entry.card.id, entry.set_code, entry.number)
        if printing == "several":
            problems.append(
                LineProblem(
                    line,
                    Message(
                        f"「{entry.card.name}」在 {entry.set_code} 有几个印刷：请加上编号",
                        f"'{entry.card.name}' has several printings in {entry.set_code}: add the number",
                    ),
                )
            )
            continue
        key = (entry.card.id, printing if isinstance(printing, int) else None)
        totals[key] = totals.get(key, 0) + entry.count
        if totals[key] > MAX_WANTED:
            problems.append(
                LineProblem(
                    line,
                    Message(
                        f"「{entry.card.name}」一共想要 {totals[key]} 张：最多 {MAX_WANTED} 张",
                        f"'{entry.card.name}' is wanted {totals[key]} times in all: at most {MAX_WANTED}",
                    ),
                )
            )
    if problems:
        raise DecklistError(sorted(problems, key=lambda p: p.line))
    current = {(w.card_id, w.printing_id): w for w in list_wants(session=session, user_id=user_id)}
    for (card_id, printing_id), quantity in totals.items():
        existing = current.get((card_id, printing_id))
        set_want(
            session=session,
            user_id=user_id,
            card_id=card_id,
            printing_id=printing_id,
            quantity=quantity,
            min_condition=min_condition,
            language=existing.language if existing else None,  # what a want insists on is kept
            finish=existing.finish if existing else None,
            now=now,
        )
    return BulkWants(slug, len(totals), sum(totals.values()))

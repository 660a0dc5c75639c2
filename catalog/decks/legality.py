"""A card's standing in each format of its game (the card page's legality table, as Scryfall's).

No second source of truth: the status comes from the same :class:`~catalog.rules.FormatSpec`
(legal sets, ban list) the :class:`~catalog.rules.Banned` and :class:`~catalog.rules.LegalSets`
rules read, and the number of copies from the game's own :class:`~catalog.rules.CopyLimit` rule
(军团(X), 誅天's 限制级, a ban-list 1 or 2), so the table says what a deck check would.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session, col, select

from catalog.decks.check import every_format, pool_card
from catalog.games import GAMES
from catalog.models import Card, CardSet, Game, Printing
from catalog.rules import CopyLimit, FormatSpec, PoolCard

LEGAL, BANNED, LIMITED, NOT_LEGAL = "legal", "banned", "limited", "not_legal"


@dataclass(frozen=True)
class FormatStatus:
    """One row of the table: a format and what the card may do in it.

    ``status``: ``legal`` / ``banned`` (ban list 0) / ``limited`` (the ban list allows ``limit``
    copies, fewer than the game would) / ``not_legal`` (no printing in the format's legal sets).
    ``limit``: copies a deck may hold (``None`` = no limit, e.g. a basic 法力石); ``None`` too
    when the card may not be played at all.
    """

    code: str
    name: str  # the format's name as the catalogue writes it (the game module translates it)
    status: str
    limit: int | None


def format_status(card: PoolCard, fmt: FormatSpec) -> FormatStatus:
    """The card's standing in one loaded format, by the rules of the format's kind."""
    copy_rule = next((r for r in GAMES[fmt.game].rule_set(fmt.kind) if isinstance(r, CopyLimit)), None)
    limit, by_ban_list = copy_rule.allowed(card, fmt) if copy_rule is not None else (None, False)
    name = fmt.name or fmt.code
    if fmt.bans.get(card.id) == 0:
        return FormatStatus(fmt.code, name, BANNED, None)
    if not fmt.card_is_legal(card):
        return FormatStatus(fmt.code, name, NOT_LEGAL, None)
    return FormatStatus(fmt.code, name, LIMITED if by_ban_list else LEGAL, limit)


def card_legality(
    *, session: Session, game: Game, card: Card, set_codes: Iterable[str] | None = None
) -> list[FormatStatus]:
    """The card's standing in every format of its game (manifest formats, then bare rule kinds).
    ``set_codes``: the sets of the card's printings when the caller has them (a statement less)."""
    if set_codes is None:
        set_codes = session.scalars(
            select(CardSet.code)
            .join(Printing, col(Printing.set_id) == col(CardSet.id))
            .where(Printing.card_id == card.id)
        )
    snapshot = pool_card(card, set_codes)
    return [format_status(snapshot, fmt) for fmt in every_format(session, game)]

"""The trades' shapes (DESIGN §11): an offer and the actions' bodies, a trade with both sides and
its timeline, trade partners."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints, WithJsonSchema

from catalog.numbers import INT32
from catalog.trading.matching import Match
from catalog.trading.reads import STATUS_FILTERS, EventView, LineView, TradeView
from catalog.trading.reservation import aware
from webapp.shapes import Shape, WholeNumber, component

# ---------------------------------------------------------------------------- requests

_TEXT = Annotated[str | None, WithJsonSchema({"type": "string"})]  # may be left out, never null


class TradeLineIn(Shape):
    """A line of an offer; the server reads the lines itself (catalog.trading.lines.resolve_lines),
    naming the line (``give[2]``) in its messages."""

    set: str = Field(description="系列代号，如 M4")
    number: str = Field(description="收藏编号，如 M4-001")
    condition: _TEXT = Field(None, description="品相，默认 NM")
    language: _TEXT = Field(None, description="语言，默认 简中")
    finish: _TEXT = Field(None, description="工艺，默认 普通")
    game: _TEXT = None
    quantity: int = Field(ge=1, le=999)


# null is read as "not given" (an empty side, local, no message), as the server does
_LINES = Annotated[Any, WithJsonSchema({"type": ["array", "null"], "items": component("TradeLineIn")})]
_MESSAGE = Annotated[str | None, WithJsonSchema({"type": ["string", "null"], "maxLength": 1000})]
_DECK_ID = {"type": "integer", "minimum": 1, "maximum": INT32}
# owned deck ids; null or left out: none
_DECKS = Annotated[
    list[Annotated[int, Field(strict=True, ge=1, le=INT32)]] | None,
    WithJsonSchema({"type": "array", "items": _DECK_ID}),
]


class TradeOffer(Shape):
    to: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)] = Field(description="对方用户名")
    give: _LINES = None
    get: _LINES = None
    mode: Annotated[
        str | None, WithJsonSchema({"type": ["string", "null"], "enum": ["local", "mail", None], "default": "local"})
    ] = None
    message: _MESSAGE = None
    give_decks: _DECKS = Field(None, description="自己整副交出的卡组编号")
    get_decks: _DECKS = Field(None, description="对方整副交出的卡组编号")


class CounterOffer(Shape):
    version: WholeNumber = Field(ge=1, le=INT32, description="the version you saw")
    give: _LINES = None
    get: _LINES = None
    give_decks: _DECKS = None
    get_decks: _DECKS = None
    message: _MESSAGE = None


class Acceptance(Shape):
    version: WholeNumber = Field(ge=1, le=INT32, description="the version you saw")


class ActionNote(Shape):
    """decline, cancel, dispute: an optional message (null: none)."""

    message: _MESSAGE = None


class NoFields(Shape):
    """sent, received: the body is not read."""


# ---------------------------------------------------------------------------- answers


class TradeLine(Shape):
    set: str
    number: str
    name: str
    game: str
    rarity: str
    condition: str
    language: str
    finish: str
    quantity: int

    @classmethod
    def of(cls, line: LineView) -> TradeLine:
        return cls.model_validate(line, from_attributes=True)


class WholeDeck(Shape):
    owned_deck: int
    name: str


class TradeSide(Shape):
    user: str
    gives: list[TradeLine]
    sent_at: str | None
    received_at: str | None = Field(description="mail: when these cards moved")
    gives_decks: list[WholeDeck] | None = Field(None, description="whole decks, when there are any")


class TradeEvent(Shape):
    action: str
    status: str
    version: int
    by: str | None
    note: str
    at: str

    @classmethod
    def of(cls, event: EventView) -> TradeEvent:
        return cls(
            action=event.action,
            status=event.status,
            version=event.version,
            by=event.actor,
            note=event.note,
            at=event.at.isoformat(),
        )


class Trade(Shape):
    id: int
    status: str = Field(json_schema_extra={"enum": list(STATUS_FILTERS)})
    version: int = Field(description="send it back with counter/accept (409 when stale)")
    mode: str = Field(json_schema_extra={"enum": ["local", "mail"]})
    proposer: str
    recipient: str
    author: str = Field(description="who wrote the current version (the other party accepts it)")
    message: str
    needs_attention: bool
    cancel_requested_by: str | None
    created_at: str
    updated_at: str
    expires_at: str
    accepted_at: str | None
    completed_at: str | None
    proposer_side: TradeSide
    recipient_side: TradeSide
    events: list[TradeEvent] | None = Field(None, description="the timeline (one trade, not a list of them)")

    @classmethod
    def of(cls, view: TradeView, *, events: bool = True) -> Trade:
        t = view.trade
        assert t.id is not None
        shape = cls(
            id=t.id,
            status=view.status,
            version=t.version,
            mode=t.mode,
            proposer=view.proposer,
            recipient=view.recipient,
            author=view.author,
            message=t.message,
            needs_attention=t.needs_attention,
            cancel_requested_by=view.party_name(t.cancel_requested_by) if t.cancel_requested_by else None,
            created_at=aware(t.created_at).isoformat(),
            updated_at=aware(t.updated_at).isoformat(),
            expires_at=aware(t.expires_at).isoformat(),
            accepted_at=aware(t.accepted_at).isoformat() if t.accepted_at else None,
            completed_at=aware(t.completed_at).isoformat() if t.completed_at else None,
            proposer_side=_side(view, t.proposer_id),
            recipient_side=_side(view, t.recipient_id),
        )
        if events:
            shape.events = [TradeEvent.of(e) for e in view.events]
        return shape


def _side(view: TradeView, giver_id: int) -> TradeSide:
    t = view.trade
    mine = giver_id == t.proposer_id
    sent = t.proposer_sent_at if mine else t.recipient_sent_at
    received = t.proposer_received_at if mine else t.recipient_received_at
    side = TradeSide(
        user=view.party_name(giver_id),
        gives=[TradeLine.of(line) for line in view.lines.get(giver_id, [])],
        sent_at=sent.isoformat() if sent else None,
        received_at=received.isoformat() if received else None,
    )
    if view.decks.get(giver_id):  # whole decks: an optional key, absent otherwise
        side.gives_decks = [WholeDeck(owned_deck=i, name=n) for i, n in view.decks[giver_id]]
    return side


class TradeList(Shape):
    trades: list[Trade]


class MatchLine(Shape):
    set: str
    number: str
    name: str
    condition: str
    language: str
    finish: str
    quantity: int


class TradeMatch(Shape):
    user: str
    they_give: list[MatchLine]
    i_give: list[MatchLine]
    they_give_count: int
    i_give_count: int

    @classmethod
    def of(cls, match: Match, *, they_give: list[dict[str, Any]], i_give: list[dict[str, Any]]) -> TradeMatch:
        return cls(
            user=match.username,
            they_give=[MatchLine.model_validate(line) for line in they_give],
            i_give=[MatchLine.model_validate(line) for line in i_give],
            they_give_count=match.they_give_count,
            i_give_count=match.i_give_count,
        )


class TradeMatches(Shape):
    matches: list[TradeMatch]

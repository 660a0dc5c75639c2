"""The deck check's shapes (DESIGN §5): what ``POST /decks/check`` reads and its verdict; and the
calling user of ``GET /me``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, WithJsonSchema

from catalog.decks.check import DeckCheck
from catalog.decks.lists import write_json
from webapp.shapes import Shape, component


class Violation(Shape):
    code: str = Field(description="DESIGN §5 code, e.g. main_too_small, too_many_copies")
    severity: str = Field(json_schema_extra={"enum": ["error", "warning"]})
    message: str = Field(description="中文说明")
    message_en: str | None = Field(None, json_schema_extra={"type": "string"})
    cards: list[str]
    counts: dict[str, Any] | None = Field(None, description="the numbers behind the message (copies, limit, size …)")
    lines: list[int] | None = Field(None, description="decklist lines concerned")
    suggestions: list[str] | None = Field(None, description="unknown_card: nearest names")


# cards per section, as the game counts them
_COUNTS = {"type": "object", "properties": {s: {"type": "integer"} for s in ("main", "extra", "side")}}


class Verdict(Shape):
    legal: bool
    game: str
    format: str
    counts: Annotated[dict[str, Any], WithJsonSchema(_COUNTS)]
    violations: list[Violation]
    deck: dict[str, Any] | None = Field(None, description="the resolved deck as DESIGN §4 JSON (canonical names)")

    @classmethod
    def of(cls, result: DeckCheck) -> Verdict:
        """The verdict as the catalog writes it (the snapshot an event keeps), with the resolved deck."""
        return cls.model_validate({**result.verdict.to_json(), "deck": write_json(result.deck)})


class DeckLine(Shape):
    card: str
    count: int = Field(ge=1)


_TEXT = Annotated[str | None, WithJsonSchema({"type": "string"})]
# DeckLine: a component of its own (webapp.api.decks)
_SECTION = Annotated[list[DeckLine] | None, WithJsonSchema({"type": "array", "items": component("DeckLine")})]


class DeckCheckRequest(Shape):
    """What the check reads from a JSON body: an envelope with ``decklist`` (text or a JSON deck),
    or a DESIGN §4 JSON deck itself (one of main / extra / side present); anything else is 400.
    The view reads it itself (its refusals are ``unreadable_decklist``)."""

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["decklist"]},
                {"required": ["main"]},
                {"required": ["extra"]},
                {"required": ["side"]},
            ]
        }
    )

    decklist: Annotated[Any, WithJsonSchema({"type": ["string", "object"], "description": "卡组文本或 JSON 卡组"})] = (
        None
    )
    game: _TEXT = None
    format: _TEXT = None
    main: _SECTION = None
    extra: _SECTION = None
    side: _SECTION = None


class Me(Shape):
    username: str
    role: str = Field(json_schema_extra={"enum": ["user", "organizer", "admin"]})

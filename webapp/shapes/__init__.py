"""Typed shapes at the edge: the pydantic models of what the API (and the CLI's ``--json``)
reads and answers, one module per area. The OpenAPI document is generated from them
(:mod:`webapp.api.openapi`), so the document and the code cannot drift.

No Flask here: the CLI prints the same shapes. An answer is ``shape.body()``: the fields that were
given, in declaration order (the CLI prints them in that order; ``jsonify`` sorts the keys), so an
optional key that an answer leaves out (``next_page``, ``collection``) is left out of the JSON too.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, WithJsonSchema
from pydantic_core import PydanticCustomError


class Shape(BaseModel):
    """A JSON object the API reads or answers."""

    model_config = ConfigDict(populate_by_name=True)

    def body(self, *, leave_out: set[str] | None = None) -> dict[str, Any]:
        """The JSON body: the fields given (defaults left out unless set), by their JSON names,
        but for ``leave_out``."""
        return self.model_dump(mode="python", by_alias=True, exclude_unset=True, exclude=leave_out)


def _whole_number(value: Any) -> Any:
    """JSON Schema counts ``2.0`` as an integer (the document says integer): taken as 2. A boolean
    or a string is no number (pydantic's lax mode would take ``true`` and ``"3"``)."""
    if isinstance(value, (bool, str)):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def component(name: str) -> dict[str, Any]:
    """A reference to the document's component ``name`` inside a hand-written schema
    (``WithJsonSchema``): pydantic resolves every ``$ref`` it meets, so the document writes the
    ``$ref`` itself (:func:`webapp.api.openapi.schema_of`)."""
    return {"x-component": name}


# An integer in a request body: a JSON number without a fraction, never true/false or "3".
WholeNumber = Annotated[int, BeforeValidator(_whole_number)]

# A float in an answer that may hold an int (0, 1): kept as it is, so the JSON stays "0", not "0.0".
Number = Annotated[float | int, WithJsonSchema({"type": "number"})]

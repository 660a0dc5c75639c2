"""Remembered column mappings: a header no preset knows, mapped once by the user,
is read the same way the next time that user brings a file with the same header.

A mapping is remembered when an import using it is confirmed (never by a preview: a GET or a
dry run writes nothing), per user and per header (folded cells, so case and spacing do not
matter).
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from catalog.collection.presets import FIELDS, IGNORE, header_key
from catalog.models import ImportMapping, table_of

MAPPINGS = table_of(ImportMapping).c


def header_signature(header: list[str]) -> str:
    """The key of a header: a hash of its folded cells in order."""
    joined = "\x1f".join(header_key(cell) for cell in header)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


def clean_mapping(header: list[str], mapping: dict[str, str]) -> dict[str, str]:
    """The mapping restricted to this header's columns and to known fields."""
    keys = {header_key(cell) for cell in header}
    return {k: v for k, v in mapping.items() if k in keys and v in (*FIELDS, IGNORE)}


def remembered_mapping(*, session: Session, user_id: int, header: list[str]) -> dict[str, str] | None:
    """The user's mapping for this header, or None."""
    found = session.scalar(
        select(MAPPINGS.mapping).where(MAPPINGS.user_id == user_id, MAPPINGS.header_key == header_signature(header))
    )
    return clean_mapping(header, dict(found)) if found else None


def remember_mapping(
    *, session: Session, user_id: int, header: list[str], mapping: dict[str, str], now: datetime
) -> None:
    """Keep ``mapping`` for the user's next file with this header (no commit)."""
    signature = header_signature(header)
    mapping = clean_mapping(header, mapping)
    changed = session.execute(
        update(table_of(ImportMapping))
        .where(MAPPINGS.user_id == user_id, MAPPINGS.header_key == signature)
        .values(mapping=mapping, header=header, updated_at=now)
        # why the type: ignore below: an UPDATE's CursorResult has rowcount; Session.execute is typed as Result
    ).rowcount  # type: ignore[attr-defined]
    if changed:
        return
    try:
        with session.begin_nested():  # a concurrent confirm of the same header: its row wins, ours updates it
            session.add(
                ImportMapping(user_id=user_id, header_key=signature, header=header, mapping=mapping, updated_at=now)
            )
    except IntegrityError:
        session.execute(
            update(table_of(ImportMapping))
            .where(MAPPINGS.user_id == user_id, MAPPINGS.header_key == signature)
            .values(mapping=mapping, header=header, updated_at=now)
        )

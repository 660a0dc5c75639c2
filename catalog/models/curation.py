"""The community catalogue: every change a curator makes to the catalogue is a revision.

A ``CatalogueRevision`` records who changed what, when and why (a required note), and the
change itself as the import format's cells (``{"column": [old, new]}``, DESIGN §3), so the
history reads as the data is written and a revert puts the old cells back through the same
checks as any edit. ``reverts_id`` links a revert to the revision it undid.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from catalog.models import catalogue, users  # noqa: F401  (foreign keys here point to their tables)

# "new_printing": a printing (and its card, when the name was new) added on the web
# "import": a bulk upload confirmed on the web (target_id: its background job)
REVISION_KINDS = ("card", "printing", "new_printing", "set", "format", "import")
PROPOSAL_KINDS = ("card", "printing", "new_printing")  # what the proposal's target_id names
PROPOSAL_STATES = ("pending", "approved", "rejected")


class CatalogueRevision(SQLModel, table=True):
    __tablename__ = "catalogue_revision"
    __table_args__ = (Index("ix_catalogue_revision_target", "kind", "target_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    kind: str = Field(max_length=16)  # REVISION_KINDS
    # the card's or printing's id: kept as a number, not a foreign key, so the history of a card
    # that is later renamed into another or removed stays readable
    target_id: int
    label: str = Field(max_length=200)  # what it was called after the change (card name, M4-001)
    user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    created_at: datetime
    note: str = Field(max_length=500)
    # {"column": [old cell, new cell]} in the import format's columns
    changes: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    reverts_id: int | None = Field(default=None, foreign_key="catalogue_revision.id")
    # the player whose proposal this revision adopted (user_id is the curator who approved it)
    credited_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")


class CatalogueProposal(SQLModel, table=True):
    """A player's proposed change to the catalogue, waiting for a curator.

    ``kind``/``target_id`` as a revision's (card id, printing id), or ``new_printing`` with the
    set's id. ``cells`` are the proposed cells in the import format's columns; ``base`` the
    current cells when it was proposed (the queue diffs against the data as it is at review).
    The source is a text reference and/or a photo stored through the scan checks (by content
    hash, ``scan_sha256``); ``scan_printing_id`` asks for the photo to become that printing's
    face on approval (§3; for ``new_printing`` the new printing is meant, ``-1``)."""

    __tablename__ = "catalogue_proposal"
    __table_args__ = (
        Index("ix_catalogue_proposal_user_created", "user_id", "created_at"),
        Index("ix_catalogue_proposal_status", "status", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    kind: str = Field(max_length=16)  # PROPOSAL_KINDS
    target_id: int
    label: str = Field(max_length=200)
    user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    created_at: datetime
    cells: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    base: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    source: str = Field(default="", max_length=1000)
    scan_sha256: str | None = Field(default=None, max_length=64)
    scan_width: int = 0
    scan_height: int = 0
    scan_printing_id: int | None = None
    status: str = Field(default="pending", max_length=16)  # PROPOSAL_STATES
    reviewed_by_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    reviewed_at: datetime | None = None
    reason: str = Field(default="", max_length=500)  # why it was rejected
    revision_id: int | None = Field(default=None, foreign_key="catalogue_revision.id")


class RoleGrant(SQLModel, table=True):
    """A role given or taken on the web (an admin grants the curator role): who, to whom, when."""

    __tablename__ = "role_grant"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True, ondelete="CASCADE")
    old_role: str = Field(max_length=16)
    new_role: str = Field(max_length=16)
    by_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    created_at: datetime


class BackgroundJob(SQLModel, table=True):
    """Long work run off the request (catalog.jobs): a bulk upload's dry run or import. Its state
    and result live here; its running progress in the queue's store (Redis, or the process)."""

    __tablename__ = "background_job"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)  # a name in catalog.jobs.KINDS
    user_id: int | None = Field(default=None, foreign_key="app_user.id", index=True, ondelete="SET NULL")
    status: str = Field(default="queued", max_length=16)  # queued | running | done | failed
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime
    finished_at: datetime | None = None

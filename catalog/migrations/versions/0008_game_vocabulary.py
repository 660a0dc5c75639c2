"""game vocabulary: a catalogue's own rarity ladder and open-list words (manifest [vocabulary])

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 11:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch table copy): on SQLite a copy of `game` would have to drop a
    # table every catalogue row references.
    op.add_column('game', sa.Column('vocabulary', sa.JSON(), nullable=False, server_default='{}'))
    if op.get_bind().dialect.name != 'sqlite':
        op.alter_column('game', 'vocabulary', server_default=None)


def downgrade() -> None:
    op.drop_column('game', 'vocabulary')  # SQLite ≥ 3.35 drops a column in place

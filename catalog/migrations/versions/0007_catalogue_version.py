"""game.catalogue_version: a token changed by every import, the key of cached card pools

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch copy): on SQLite a table copy would drop ``game``, which every
    # catalogue table references. The server default stays ('' = imported before 0009; the next
    # import gives the game a real version).
    op.add_column(
        'game',
        sa.Column('catalogue_version', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False, server_default=''),
    )


def downgrade() -> None:
    op.drop_column('game', 'catalogue_version')  # SQLite ≥ 3.35 drops a column in place

"""want language and finish: a want may insist on a language and/or a finish (NULL = any)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 12:30:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain nullable ADD COLUMNs (no batch table copy): existing wants keep meaning "any".
    op.add_column('want_item', sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))
    op.add_column('want_item', sa.Column('finish', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))


def downgrade() -> None:
    op.drop_column('want_item', 'finish')  # SQLite ≥ 3.35 drops a column in place
    op.drop_column('want_item', 'language')

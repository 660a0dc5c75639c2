"""user time zone: the IANA zone a user's pages show times in (NULL = the default, Asia/Shanghai)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 13:50:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain nullable ADD COLUMN (no batch table copy): existing users keep the default zone.
    op.add_column('app_user', sa.Column('time_zone', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column('app_user', 'time_zone')  # SQLite ≥ 3.35 drops a column in place

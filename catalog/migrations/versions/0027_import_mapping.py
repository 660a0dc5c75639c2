"""import_mapping: a user's column mapping for a collection file header no preset knows (issue 31 §3)

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-03 02:40:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('import_mapping',
    sa.Column('header', sa.JSON(), nullable=False),
    sa.Column('mapping', sa.JSON(), nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('header_key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('user_id', 'header_key')
    )


def downgrade() -> None:
    op.drop_table('import_mapping')

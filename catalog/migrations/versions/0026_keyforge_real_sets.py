"""printing.printed_text: a printing's own words where a later set changed the card's (KeyForge errata)

Revision ID: 0026
Revises: 0023
Create Date: 2026-12-03 03:10:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0026'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if 'printed_text' in {c['name'] for c in sa.inspect(op.get_bind()).get_columns('printing')}:
        return  # added by hand before (tests/test_migrations.py imports with today's importer at 0013)
    with op.batch_alter_table('printing', schema=None) as batch_op:
        batch_op.add_column(sa.Column('printed_text', sa.Text(), server_default='', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('printing', schema=None) as batch_op:
        batch_op.drop_column('printed_text')

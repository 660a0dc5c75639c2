"""want_item.in_addition: a printing want counted on top of the card want rather than refining it

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-03 02:45:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch table copy); every existing want refines, as issue 28 §2 asks.
    op.add_column('want_item', sa.Column('in_addition', sa.Boolean(), nullable=False, server_default=sa.false()))
    if op.get_bind().dialect.name != 'sqlite':
        op.alter_column('want_item', 'in_addition', server_default=None)


def downgrade() -> None:
    with op.batch_alter_table('want_item') as batch_op:
        batch_op.drop_column('in_addition')

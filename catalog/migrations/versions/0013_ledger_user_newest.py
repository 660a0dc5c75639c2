"""ledger (user, id) index: the id of a user's newest ledger row, the version of their collection

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 17:00:00
"""

from alembic import op


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The collection page keeps its counts per collection version (catalog.collection.listing):
    # max(id) of one user's rows is then one index probe instead of a walk over all of them.
    op.create_index('ix_ledger_entry_user_id', 'ledger_entry', ['user_id', 'id'])


def downgrade() -> None:
    op.drop_index('ix_ledger_entry_user_id', table_name='ledger_entry')

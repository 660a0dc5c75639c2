"""matching indexes: tradable copies by printing (partial) and wants by card with who and how many

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 17:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Issue 13's matching benchmark: the upper bound per partner reads these alone (no table rows).
    op.create_index(
        'ix_collection_item_tradable',
        'collection_item',
        ['printing_id', 'user_id', 'for_trade'],
        sqlite_where=sa.text('for_trade > 0'),
        postgresql_where=sa.text('for_trade > 0'),
    )
    op.create_index('ix_want_item_card_user_quantity', 'want_item', ['card_id', 'user_id', 'quantity'])
    op.drop_index('ix_want_item_card_id', table_name='want_item')  # its prefix serves every card lookup


def downgrade() -> None:
    op.create_index('ix_want_item_card_id', 'want_item', ['card_id'])
    op.drop_index('ix_want_item_card_user_quantity', table_name='want_item')
    op.drop_index('ix_collection_item_tradable', table_name='collection_item')

"""printing (card_id, rarity_rank) index in place of (card_id): rarity terms read the index alone

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 06:40:00
"""

from alembic import op


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

# A collection filter's printings (catalog.search.printing_ids_matching: a:火 r>=UR) join each
# matching card's printings and keep those of a rarity rank. With (card_id) alone SQLite read
# every such printing's row for its rank; with (card_id, rarity_rank) it reads the index only
# (100,000 printings, a:火 r>=UR: 43 → 28 ms). Every lookup by card_id is served by it as before.


def upgrade() -> None:
    op.create_index('ix_printing_card_id_rarity', 'printing', ['card_id', 'rarity_rank'])
    op.drop_index('ix_printing_card_id', table_name='printing')


def downgrade() -> None:
    op.create_index('ix_printing_card_id', 'printing', ['card_id'])
    op.drop_index('ix_printing_card_id_rarity', table_name='printing')

"""character index (PostgreSQL): name substring terms of 1 or 2 characters

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 23:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # PostgreSQL only, like the trigram indexes of 0011: a term too short for a trigram (龙王)
    # scanned every card_search row. string_to_array(…, NULL) is built in (one element per
    # character); search tests @> on it before the substring test (catalog.search.sql).
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.create_index(
        'ix_card_search_keys_chars', 'card_search', [sa.text('string_to_array(keys, NULL)')], postgresql_using='gin'
    )
    # statistics of the indexed expression (its most common characters) for the planner
    op.execute('ANALYZE card_search')


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.drop_index('ix_card_search_keys_chars', table_name='card_search')

"""search on PostgreSQL: statistics of each attribute bit of card_search.attr_mask

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02 00:20:00
"""

from alembic import op


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

# An attribute term (a:火) compiles to (attr_mask & 1) = 1. PostgreSQL has no statistics of
# such an expression and guesses 0.5 % of the rows: for a:火 on 100,000 printings it expected 265
# cards where there are 16,909, and looked each one's printings up by index (47 ms) instead of
# hashing them (26 ms). Statistics of each bit's expression (PostgreSQL 14+) let it count.
# Sixteen bits: no game's attributes need more (永恒之轮 has 6). Terms naming several attributes
# at once (a:火水) are still guessed. A migration that rebuilds card_search must make these again.
BITS = 16


def upgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    for bit in range(BITS):
        op.execute(f'CREATE STATISTICS card_search_attr_bit{bit} ON ((attr_mask & {1 << bit})) FROM card_search')
    op.execute('ANALYZE card_search')


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    for bit in range(BITS):
        op.execute(f'DROP STATISTICS IF EXISTS card_search_attr_bit{bit}')

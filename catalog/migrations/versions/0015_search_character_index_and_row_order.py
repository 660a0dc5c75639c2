"""search on PostgreSQL: card_search rows with their integers first, and a character index
for name substring terms of 1 or 2 characters

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 23:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

# card_search's columns in their new order: the integers every filter tests (t:, a:, cost, atk,
# r:, is:reprint …) ahead of the strings. PostgreSQL finds a column of a row by walking past
# each column before it, and strings have no fixed width: set_count behind five strings cost a
# scan of 100,000 cards 13.1 ms of CPU, in front of them 9.3 ms.
COLUMNS = (
    ('card_id', 'integer NOT NULL'),
    ('game_id', 'integer NOT NULL'),
    ('attr_mask', 'integer NOT NULL'),
    ('rarity_mask', 'integer NOT NULL'),
    ('set_count', 'integer NOT NULL'),
    ('cost_total', 'integer'),
    ('attack', 'integer'),
    ('defense', 'integer'),
    ('level', 'integer'),
    ('type', 'varchar(32) NOT NULL'),
    ('subtype_key', 'varchar(64) NOT NULL'),
    ('faction_key', 'varchar(64) NOT NULL'),
    ('name', 'varchar(200) NOT NULL'),
    ('sort_key', 'varchar(800) NOT NULL'),
    ('keys', 'varchar(1200) NOT NULL'),
)


def upgrade() -> None:
    # PostgreSQL only, like the trigram indexes of 0011: SQLite keeps its table as it is (it
    # reads a row's header, not each column before the one it wants).
    if op.get_bind().dialect.name != 'postgresql':
        return
    _rebuild_card_search()
    # A term too short for a trigram (龙王) scanned every card_search row. string_to_array(…,
    # NULL) is built in (one element per character); search tests @> on it before the
    # substring test (catalog.search.sql.contains_short).
    op.create_index(
        'ix_card_search_keys_chars', 'card_search', [sa.text('string_to_array(keys, NULL)')], postgresql_using='gin'
    )
    # statistics of the table and of the indexed expression (its most common characters)
    op.execute('ANALYZE card_search')


def _rebuild_card_search() -> None:
    """card_search again with COLUMNS' order, its rows, keys and indexes (no table refers to it)."""
    names = ', '.join(name for name, _type in COLUMNS)
    op.execute(f"CREATE TABLE card_search_rebuilt ({', '.join(f'{n} {t}' for n, t in COLUMNS)})")
    op.execute(f'INSERT INTO card_search_rebuilt ({names}) SELECT {names} FROM card_search')
    op.execute('DROP TABLE card_search')
    op.execute('ALTER TABLE card_search_rebuilt RENAME TO card_search')
    op.execute('ALTER TABLE card_search ADD CONSTRAINT card_search_pkey PRIMARY KEY (card_id)')
    op.execute(
        'ALTER TABLE card_search ADD CONSTRAINT card_search_card_id_fkey '
        'FOREIGN KEY (card_id) REFERENCES card (id) ON DELETE CASCADE'
    )
    op.execute('ALTER TABLE card_search ADD CONSTRAINT card_search_game_id_fkey FOREIGN KEY (game_id) REFERENCES game (id)')
    # 0011's trigram index, its operator class qualified by pg_trgm's schema as there
    schema = op.get_bind().exec_driver_sql(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'"
    ).scalar_one()
    op.create_index(
        'ix_card_search_keys_trgm', 'card_search', ['keys'], postgresql_using='gin',
        postgresql_ops={'keys': f'"{schema}".gin_trgm_ops'},
    )


def downgrade() -> None:
    # The row order stays: 0013's schema has the same columns, keys and indexes in any order.
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.drop_index('ix_card_search_keys_chars', table_name='card_search')

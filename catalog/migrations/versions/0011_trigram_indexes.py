"""trigram indexes (PostgreSQL): name and rules-text substring terms of 3+ characters

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 14:00:00
"""

from alembic import op


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

INDEXES = (('ix_card_search_keys_trgm', 'card_search', 'keys'), ('ix_card_text_text_key_trgm', 'card_text', 'text_key'))


def upgrade() -> None:
    # PostgreSQL only: SQLite has no trigram index (its substring scans stay instr()). pg_trgm is
    # a trusted contrib extension: the database owner may create it.
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.execute('CREATE EXTENSION IF NOT EXISTS pg_trgm')
    # The operator class qualified by the extension's schema: it may be installed in a schema
    # outside this connection's search_path (another schema of the same database made it).
    schema = op.get_bind().exec_driver_sql(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'"
    ).scalar_one()
    for name, table, column in INDEXES:
        ops = {column: f'"{schema}".gin_trgm_ops'}
        op.create_index(name, table, [column], postgresql_using='gin', postgresql_ops=ops)


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    for name, table, _column in INDEXES:
        op.drop_index(name, table_name=table)
    # the extension stays: other objects of the database may use it

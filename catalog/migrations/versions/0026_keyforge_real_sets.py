"""printing.printed_text: a printing's own words where a later set changed the card's (KeyForge
errata); deck_record, owned_deck, deck_ledger, trade_deck_line, event_registration.owned_deck_id:
decks players own, trade whole and register with (issue 30)

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-03 03:10:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # added by hand before when present (tests/test_migrations.py imports with today's importer at 0013)
    if 'printed_text' not in {c['name'] for c in sa.inspect(op.get_bind()).get_columns('printing')}:
        with op.batch_alter_table('printing', schema=None) as batch_op:
            batch_op.add_column(sa.Column('printed_text', sa.Text(), server_default='', nullable=False))
    op.create_table('deck_record',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('public_id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('set_code', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('houses', sa.JSON(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('digest', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('known', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'digest')
    )
    op.create_index('ix_deck_record_public_id', 'deck_record', ['game_id', 'public_id'], unique=False)
    op.create_table('owned_deck',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('deck_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('for_trade', sa.Boolean(), nullable=False),
    sa.Column('acquired_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['deck_id'], ['deck_record.id'], ),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_owned_deck_deck_id'), 'owned_deck', ['deck_id'], unique=False)
    op.create_index('ix_owned_deck_user', 'owned_deck', ['user_id', 'id'], unique=False)
    op.create_table('deck_ledger',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('owned_deck_id', sa.Integer(), nullable=False),
    sa.Column('from_user_id', sa.Integer(), nullable=True),
    sa.Column('to_user_id', sa.Integer(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('ref', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['from_user_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['owned_deck_id'], ['owned_deck.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['to_user_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_deck_ledger_owned_deck_id'), 'deck_ledger', ['owned_deck_id'], unique=False)
    op.create_table('trade_deck_line',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('trade_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('giver_id', sa.Integer(), nullable=False),
    sa.Column('owned_deck_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['giver_id'], ['app_user.id'], ),
    sa.ForeignKeyConstraint(['owned_deck_id'], ['owned_deck.id'], ),
    sa.ForeignKeyConstraint(['trade_id'], ['trade.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_trade_deck_line_owned_deck_id'), 'trade_deck_line', ['owned_deck_id'], unique=False)
    op.create_index('ix_trade_deck_line_trade_version', 'trade_deck_line', ['trade_id', 'version'], unique=False)
    with op.batch_alter_table('event_registration', schema=None) as batch_op:
        batch_op.add_column(sa.Column('owned_deck_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_event_registration_owned_deck_id'), ['owned_deck_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('event_registration', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_event_registration_owned_deck_id'))
        batch_op.drop_column('owned_deck_id')
    op.drop_table('trade_deck_line')
    op.drop_table('deck_ledger')
    op.drop_table('owned_deck')
    op.drop_table('deck_record')
    with op.batch_alter_table('printing', schema=None) as batch_op:
        batch_op.drop_column('printed_text')

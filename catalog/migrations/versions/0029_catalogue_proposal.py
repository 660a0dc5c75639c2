"""catalogue_proposal, catalogue_revision.credited_id, card_set.source, background_job: players propose catalogue changes, curators review them

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-03 02:45:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0029'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (not a batch rebuild: card_set cannot be dropped under its printings)
    op.add_column(
        'card_set', sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False, server_default='')
    )
    with op.batch_alter_table('catalogue_revision', schema=None) as batch_op:
        batch_op.add_column(sa.Column('credited_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            'fk_catalogue_revision_credited_id_app_user', 'app_user', ['credited_id'], ['id'], ondelete='SET NULL'
        )
    op.create_table('catalogue_proposal',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('target_id', sa.Integer(), nullable=False),
    sa.Column('label', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('cells', sa.JSON(), nullable=False),
    sa.Column('base', sa.JSON(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('scan_sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('scan_width', sa.Integer(), nullable=False),
    sa.Column('scan_height', sa.Integer(), nullable=False),
    sa.Column('scan_printing_id', sa.Integer(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('reviewed_by_id', sa.Integer(), nullable=True),
    sa.Column('reviewed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('revision_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.ForeignKeyConstraint(['reviewed_by_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['revision_id'], ['catalogue_revision.id'], ),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_catalogue_proposal_status', 'catalogue_proposal', ['status', 'id'], unique=False)
    op.create_index('ix_catalogue_proposal_user_created', 'catalogue_proposal', ['user_id', 'created_at'], unique=False)
    op.create_table('background_job',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_background_job_user_id'), 'background_job', ['user_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_background_job_user_id'), table_name='background_job')
    op.drop_table('background_job')
    op.drop_index('ix_catalogue_proposal_user_created', table_name='catalogue_proposal')
    op.drop_index('ix_catalogue_proposal_status', table_name='catalogue_proposal')
    op.drop_table('catalogue_proposal')
    with op.batch_alter_table('catalogue_revision', schema=None) as batch_op:
        batch_op.drop_constraint('fk_catalogue_revision_credited_id_app_user', type_='foreignkey')
        batch_op.drop_column('credited_id')
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE card_set DROP COLUMN source')  # SQLite 3.35+; no rebuild under printings
    else:
        op.drop_column('card_set', 'source')

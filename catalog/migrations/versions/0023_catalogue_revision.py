"""catalogue_revision, role_grant: every web edit of the catalogue, with who, when, why and the cells changed

Revision ID: 0023
Revises: 0017
Create Date: 2026-12-02 23:10:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0023'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('catalogue_revision',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('target_id', sa.Integer(), nullable=False),
    sa.Column('label', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('note', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('changes', sa.JSON(), nullable=False),
    sa.Column('reverts_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.ForeignKeyConstraint(['reverts_id'], ['catalogue_revision.id'], ),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_catalogue_revision_target', 'catalogue_revision', ['kind', 'target_id', 'id'], unique=False)
    op.create_table('role_grant',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('old_role', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('new_role', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['by_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_role_grant_user_id'), 'role_grant', ['user_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_role_grant_user_id'), table_name='role_grant')
    op.drop_table('role_grant')
    op.drop_index('ix_catalogue_revision_target', table_name='catalogue_revision')
    op.drop_table('catalogue_revision')

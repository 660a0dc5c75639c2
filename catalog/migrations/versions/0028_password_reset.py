"""password_reset, app_user.email: one-time password-reset links (e-mailed or admin-issued)

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-03 02:40:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('app_user') as batch:
        batch.add_column(sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=True))
    op.create_table('password_reset',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('used_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('issued_by', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['issued_by'], ['app_user.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash')
    )
    op.create_index(op.f('ix_password_reset_user_id'), 'password_reset', ['user_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_password_reset_user_id'), table_name='password_reset')
    op.drop_table('password_reset')
    with op.batch_alter_table('app_user') as batch:
        batch.drop_column('email')

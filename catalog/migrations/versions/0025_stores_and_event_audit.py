"""store, store_staff, event_audit, event.deck_policy: stores as accounts with staff; an event's audit log; its deck policy

Existing stores (every store name an event, a balance or an exchange item carries) become
store rows, and every event's organiser becomes staff of its store, so nothing anyone managed
before is lost.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-03 02:40:00
"""

from datetime import UTC, datetime

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('store',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('city', sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
    sa.Column('prize_cap', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key')
    )
    op.create_table('store_staff',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('store_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('added_by', sa.Integer(), nullable=True),
    sa.Column('added_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['added_by'], ['app_user.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['store_id'], ['store.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('store_id', 'user_id')
    )
    op.create_index(op.f('ix_store_staff_user_id'), 'store_staff', ['user_id'], unique=False)
    op.create_table('event_audit',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('event_id', sa.Integer(), nullable=False),
    sa.Column('by_user_id', sa.Integer(), nullable=True),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('detail', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['by_user_id'], ['app_user.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['event_id'], ['event.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_event_audit_event_id'), 'event_audit', ['event_id'], unique=False)
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.add_column(sa.Column('deck_policy', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False,
                                      server_default='required'))
    _backfill_stores()


def _backfill_stores() -> None:
    """A store row for every store key in use, named as its events call it; organisers as staff."""
    bind = op.get_bind()
    now = datetime.now(UTC)
    names: dict[str, tuple[str, str]] = {}
    for key, name, city in bind.execute(sa.text("SELECT store_key, store, city FROM event WHERE store_key <> ''")):
        names.setdefault(key, (name, city))
    for key, name in bind.execute(sa.text("SELECT store_key, store FROM chest_balance")):
        names.setdefault(key, (name, ""))
    for (key,) in bind.execute(sa.text("SELECT store_key FROM chest_exchange_item")):
        names.setdefault(key, (key, ""))
    store = sa.table('store', sa.column('id'), sa.column('key'), sa.column('name'), sa.column('city'),
                     sa.column('prize_cap'), sa.column('created_at'))
    for key, (name, city) in sorted(names.items()):
        bind.execute(store.insert().values(key=key, name=name[:100], city=(city or "")[:50], prize_cap=20,
                                           created_at=now))
    bind.execute(sa.text(
        "INSERT INTO store_staff (store_id, user_id, added_at) "
        "SELECT DISTINCT s.id, e.organizer_id, :now FROM event e JOIN store s ON s.key = e.store_key "
        "WHERE e.organizer_id IS NOT NULL"
    ), {"now": now})


def downgrade() -> None:
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.drop_column('deck_policy')
    op.drop_index(op.f('ix_event_audit_event_id'), table_name='event_audit')
    op.drop_table('event_audit')
    op.drop_index(op.f('ix_store_staff_user_id'), table_name='store_staff')
    op.drop_table('store_staff')
    op.drop_table('store')

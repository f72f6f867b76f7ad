"""history entries about a suite itself and about replaced outputs

Renaming a suite or setting its languages, and an import replacing a system's output of an item, are now in the
history: ``history.entity`` may also be ``suite`` or ``output``. Only the check constraint changes; SQLite cannot
alter one, so the history table is copied into a new one with the new constraint (its rows and ids unchanged).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

_OLD = ('item', 'rule', 'known', 'reference', 'manual_label', 'category', 'phenomenon')
_NEW = (*_OLD, 'suite', 'output')
_ACTIONS = ("action = 'add' OR action = 'change' OR action = 'move' OR action = 'remove' OR "
            "action = 'reorder' OR action = 'rename' OR action = 'merge'")


def _entities(names: tuple[str, ...]) -> str:
    return " OR ".join(f"entity = '{name}'" for name in names)


def _history(entities: tuple[str, ...]) -> sa.Table:
    """The history table as it is with ``entities`` allowed, for SQLite's copy (indexes are made again by it)."""
    return sa.Table(
        'history', sa.MetaData(),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('suite_id', sa.Integer(), nullable=False),
        sa.Column('item_external_id', sa.String(length=100), nullable=True),
        sa.Column('entity', sa.String(length=20), nullable=False),
        sa.Column('entity_id', sa.Integer(), nullable=True),
        sa.Column('action', sa.String(length=20), nullable=False),
        sa.Column('author', sa.String(length=200), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('before', sa.Text(), nullable=True),
        sa.Column('after', sa.Text(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=True),
        sa.CheckConstraint(_entities(entities), name='ck_history_entity'),
        sa.CheckConstraint(_ACTIONS, name='ck_history_action'),
        sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.Index('ix_history_suite_item', 'suite_id', 'item_external_id', 'id'),
        sa.Index('ix_history_entity', 'entity', 'entity_id', 'id'),
    )


def _allow(entities: tuple[str, ...]) -> None:
    if op.get_bind().dialect.name == 'sqlite':
        with op.batch_alter_table('history', copy_from=_history(entities), recreate='always'):
            pass
        return
    op.drop_constraint('ck_history_entity', 'history', type_='check')
    op.create_check_constraint('ck_history_entity', 'history', _entities(entities))


def upgrade() -> None:
    _allow(_NEW)


def downgrade() -> None:
    op.execute("DELETE FROM history WHERE entity IN ('suite', 'output')")
    _allow(_OLD)

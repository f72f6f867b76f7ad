"""history of edits and reviews; a version on every row a person edits

``history`` records every edit of an item, rule, known translation or reference and every manual label set
or cleared. ``version`` (starting at 1) on items, rules, known translations, references and manual labels
lets a save made from a stale view be refused instead of silently overwriting a colleague's change.
Columns are added with ``ADD COLUMN`` (no table rebuild), so upgrading a large database is instant.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_VERSIONED = ('items', 'rules', 'known_translations', 'references', 'manual_labels')
_ENTITIES = ("entity = 'item' OR entity = 'rule' OR entity = 'known' OR entity = 'reference' OR "
             "entity = 'manual_label' OR entity = 'category' OR entity = 'phenomenon'")
_ACTIONS = ("action = 'add' OR action = 'change' OR action = 'move' OR action = 'remove' OR "
            "action = 'reorder' OR action = 'rename' OR action = 'merge'")


def upgrade() -> None:
    for table in _VERSIONED:
        op.add_column(table, sa.Column('version', sa.Integer(), server_default='1', nullable=False))
    op.create_table(
        'history',
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
        sa.CheckConstraint(_ENTITIES, name='ck_history_entity'),
        sa.CheckConstraint(_ACTIONS, name='ck_history_action'),
        sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_history_suite_item', 'history', ['suite_id', 'item_external_id', 'id'])
    op.create_index('ix_history_entity', 'history', ['entity', 'entity_id', 'id'])


def downgrade() -> None:
    op.drop_index('ix_history_entity', table_name='history')
    op.drop_index('ix_history_suite_item', table_name='history')
    op.drop_table('history')
    for table in reversed(_VERSIONED):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('version')

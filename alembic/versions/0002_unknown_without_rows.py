"""unknown automatic labels are stored as no row: label_fingerprints.labelled_through

An output its item's labelling covered and no rule or known translation decided used to get an
``auto_labels`` row saying ``unknown``; now it gets none, and ``label_fingerprints.labelled_through`` says
which outputs the labelling covered. Upgrading keeps every label: an item is covered up to just before
its first output that has no label yet (that one and later ones count as new and are labelled next
time), and the ``unknown`` rows become coverage.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

_ALL = "label = 'pass' OR label = 'fail' OR label = 'conflict' OR label = 'unknown' OR label = 'error'"
_STORED = "label = 'pass' OR label = 'fail' OR label = 'conflict' OR label = 'error'"


def _auto_labels(check: str) -> sa.Table:
    """The table as batch mode should rebuild it (given, not reflected, so the CHECK is exactly this one)."""
    return sa.Table(
        'auto_labels', sa.MetaData(),
        sa.Column('output_id', sa.Integer(), nullable=False),
        sa.Column('label', sa.String(length=10), nullable=False),
        sa.Column('rule_id', sa.Integer(), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.CheckConstraint(check, name='ck_auto_labels_label'),
        sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['rule_id'], ['rules.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('output_id'),
    )


def upgrade() -> None:
    with op.batch_alter_table('label_fingerprints', schema=None) as batch_op:
        batch_op.add_column(sa.Column('labelled_through', sa.Integer(), server_default='0', nullable=False))
    op.execute("""
        UPDATE label_fingerprints SET labelled_through = COALESCE(
            (SELECT MIN(o.id) - 1 FROM outputs o LEFT JOIN auto_labels a ON a.output_id = o.id
             WHERE o.item_id = label_fingerprints.item_id AND a.output_id IS NULL),
            (SELECT MAX(o.id) FROM outputs o WHERE o.item_id = label_fingerprints.item_id),
            0)""")
    # Covered unknowns are now stored as no row. An unknown above its item's coverage (an unlabelled output
    # of the item came before it) loses its row too: it counts as new, and the next labelling decides it again.
    op.execute("DELETE FROM auto_labels WHERE label = 'unknown'")
    with op.batch_alter_table('auto_labels', schema=None, copy_from=_auto_labels(_ALL),
                              recreate='always') as batch_op:
        batch_op.drop_constraint('ck_auto_labels_label', type_='check')
        batch_op.create_check_constraint('ck_auto_labels_label', sa.text(_STORED))


def downgrade() -> None:
    with op.batch_alter_table('auto_labels', schema=None, copy_from=_auto_labels(_STORED),
                              recreate='always') as batch_op:
        batch_op.drop_constraint('ck_auto_labels_label', type_='check')
        batch_op.create_check_constraint('ck_auto_labels_label', sa.text(_ALL))
    op.execute("""
        INSERT INTO auto_labels (output_id, label)
        SELECT o.id, 'unknown' FROM outputs o JOIN label_fingerprints f ON f.item_id = o.item_id
        WHERE o.id <= f.labelled_through AND NOT EXISTS (SELECT 1 FROM auto_labels a WHERE a.output_id = o.id)""")
    with op.batch_alter_table('label_fingerprints', schema=None) as batch_op:
        batch_op.drop_column('labelled_through')

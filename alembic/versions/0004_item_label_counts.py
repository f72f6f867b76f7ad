"""per-item counts of automatic labels: item_label_counts

The suite tree and the totals of label filters read one row per item instead of joining every output to its
labels (seconds on a million outputs). Upgrading fills the table from the stored labels, exactly as
``suite.engine.label_counts.refresh_counts`` would: a stored label counts as itself, an output without one as
``unknown`` when its item's labelling covered it (``label_fingerprints.labelled_through``), else as
``unlabelled``. Items without outputs get no row.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

_COUNTS = ('passed', 'failed', 'conflict', 'unknown', 'error', 'unlabelled', 'outputs')


def upgrade() -> None:
    op.create_table(
        'item_label_counts',
        sa.Column('item_id', sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), server_default='0', nullable=False) for name in _COUNTS),
        sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('item_id'),
    )
    op.execute("""
        INSERT INTO item_label_counts (item_id, passed, failed, conflict, unknown, error, unlabelled, outputs)
        SELECT o.item_id,
               SUM(CASE WHEN a.label = 'pass' THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.label = 'fail' THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.label = 'conflict' THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.label IS NULL AND o.id <= f.labelled_through THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.label = 'error' THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.label IS NULL AND (f.labelled_through IS NULL OR o.id > f.labelled_through)
                        THEN 1 ELSE 0 END),
               COUNT(*)
        FROM outputs o
        LEFT JOIN auto_labels a ON a.output_id = o.id
        LEFT JOIN label_fingerprints f ON f.item_id = o.item_id
        GROUP BY o.item_id""")


def downgrade() -> None:
    op.drop_table('item_label_counts')

"""segment-level human scores, imported significance results, cached corpus-metric statistics

``human_segment_scores`` (WMT's ``SYS SID RAW.SCR Z.SCR N``, or a plain table), ``human_significance`` (WMT's
pairwise Wilcoxon results, one row per ordered pair of systems) and ``metric_statistics`` (sacrebleu's
per-segment sufficient statistics, so corpus scores can be resampled). New tables only: nothing stored changes.

Revision ID: 0009
Revises: 0011
Create Date: 2026-11-25
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'human_segment_scores',
        sa.Column('system_id', sa.Integer(), nullable=False),
        sa.Column('item_id', sa.Integer(), nullable=False),
        sa.Column('score', sa.Float(), nullable=False),
        sa.Column('raw', sa.Float(), nullable=True),
        sa.Column('judgements', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('system_id', 'item_id'),
    )
    op.create_index('ix_human_segment_scores_item_id', 'human_segment_scores', ['item_id'])
    op.create_table(
        'human_significance',
        sa.Column('system_id', sa.Integer(), nullable=False),
        sa.Column('other_id', sa.Integer(), nullable=False),
        sa.Column('difference', sa.Float(), nullable=True),
        sa.Column('p_below', sa.Float(), nullable=True),
        sa.Column('source', sa.String(length=400), nullable=False),
        sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['other_id'], ['systems.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('system_id', 'other_id'),
    )
    op.create_index('ix_human_significance_other_id', 'human_significance', ['other_id'])
    op.create_table(
        'metric_statistics',
        sa.Column('signature', sa.String(length=400), nullable=False),
        sa.Column('output_id', sa.Integer(), nullable=False),
        sa.Column('references', sa.String(length=64), nullable=False),
        sa.Column('statistics', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('signature', 'output_id'),
    )
    op.create_index('ix_metric_statistics_output_id', 'metric_statistics', ['output_id'])


def downgrade() -> None:
    op.drop_table('metric_statistics')
    op.drop_table('human_significance')
    op.drop_table('human_segment_scores')

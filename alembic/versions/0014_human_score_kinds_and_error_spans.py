"""human score kinds and error spans: human_score_sets, human_error_spans

A suite's human scores are named at import (DA, z, ESA, MQM: ``store.domain.HumanScoreKind``); a suite without a
row holds WMT DA z-scores, the only kind imported before this revision, so nothing changes on upgrade. MQM and ESA
imports keep each annotated error with its span, severity and category.

Revision ID: 0014
Revises: 0007
Create Date: 2026-12-03
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0014'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'human_score_sets',
        sa.Column('suite_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=10), nullable=False),
        sa.Column('source', sa.String(length=400), nullable=False),
        sa.CheckConstraint("kind = 'da' OR kind = 'z' OR kind = 'esa' OR kind = 'mqm'",
                           name='ck_human_score_sets_kind'),
        sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('suite_id'),
    )
    op.create_table(
        'human_error_spans',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('system_id', sa.Integer(), nullable=False),
        sa.Column('item_id', sa.Integer(), nullable=False),
        sa.Column('in_source', sa.Boolean(), nullable=False),
        sa.Column('start', sa.Integer(), nullable=True),
        sa.Column('end', sa.Integer(), nullable=True),
        sa.Column('severity', sa.String(length=10), nullable=False),
        sa.Column('category', sa.String(length=200), nullable=False),
        sa.Column('rater', sa.String(length=100), nullable=True),
        sa.Column('weight', sa.Float(), nullable=False),
        sa.CheckConstraint("severity = 'minor' OR severity = 'major'",
                           name='ck_human_error_spans_severity'),
        sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_human_error_spans_item', 'human_error_spans', ['item_id', 'system_id'])


def downgrade() -> None:
    op.drop_index('ix_human_error_spans_item', table_name='human_error_spans')
    op.drop_table('human_error_spans')
    op.drop_table('human_score_sets')

"""human_score_sets.segments_aligned: segment scores whose numbering is not the items'

WMT's ``SYS SID`` segment-score layout numbers segments as its annotation campaign served them, not as the lines
of the test set (newstest2021 de-en: read as lines, sentence chrF correlates with them at Pearson 0.014), so
segment-level statistics on them are refused. Rows written before this revision are MQM imports, aligned by their
own segment ids: the default true keeps them.

Revision ID: 0015
Revises: 0013
Create Date: 2026-12-03
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0015'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('human_score_sets') as batch:
        batch.add_column(sa.Column('segments_aligned', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('human_score_sets') as batch:
        batch.drop_column('segments_aligned')

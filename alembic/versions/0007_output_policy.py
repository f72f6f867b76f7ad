"""a suite's policy for degenerate outputs: output_policies and output_placeholders

Empty outputs, placeholders such as WMT21's ``####`` (2,748 of DFKI de-en's 4,016 unknown outputs) and outputs
identical to the source can be decided once for the whole suite (``suite.engine.output_policy``). A suite without
a policy row keeps the behaviour before this revision (the rules decide them), so no label changes on upgrade.

Revision ID: 0007
Revises: 0010
Create Date: 2026-11-25
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'output_policies',
        sa.Column('suite_id', sa.Integer(), nullable=False),
        sa.Column('empty_output', sa.String(length=10), server_default='unknown', nullable=False),
        sa.Column('untranslated_output', sa.String(length=10), server_default='unknown', nullable=False),
        sa.CheckConstraint("empty_output = 'unknown' OR empty_output = 'fail'", name='ck_output_policies_empty'),
        sa.CheckConstraint("untranslated_output = 'unknown' OR untranslated_output = 'fail'",
                           name='ck_output_policies_untranslated'),
        sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('suite_id'),
    )
    op.create_table(
        'output_placeholders',
        sa.Column('suite_id', sa.Integer(), nullable=False),
        sa.Column('text', sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('suite_id', 'text'),
    )


def downgrade() -> None:
    op.drop_table('output_placeholders')
    op.drop_table('output_policies')

"""drop integrity_checks: ``tsqe check`` writes nothing

``integrity_checks`` held each clean ``tsqe check`` so that ``tsqe status`` could say when the last was more than
30 days ago. That record was the one write a check made, and a check never writes (issue 27): it is run on backup
copies, read-only mounts and files another process has open. Nothing reads the table any more; the dates it held
were tsqe's own bookkeeping, not the user's data.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table('integrity_checks')


def downgrade() -> None:
    op.create_table(
        'integrity_checks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('checked_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('ok', sa.Boolean(), nullable=False),
        sa.Column('problems', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )

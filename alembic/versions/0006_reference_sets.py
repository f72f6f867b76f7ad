"""reference sets: references.set_name beside kind

A reference belongs to a named set (``wmt``, ``ar``, ``wmt.p``, ``A``...) so that a metric can be computed
against the set a researcher chooses. The references stored before sets existed are put in the set named
after their kind (``standard``, ``paraphrase``...), the same rule that names the set of a reference written
without one later.

Metrics now use every reference of kind ``standard`` by default, where they used to pool every reference of
an item whatever its kind. Cached metric scores of outputs whose item has a reference of another kind were
computed against that wider pool under the signature the default keeps, so they are deleted here (they are a
cache: the next scoring computes them again against the default references). All other cached scores keep
their signature and their figures.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

_references = sa.table('references', sa.column('item_id', sa.Integer()), sa.column('kind', sa.String()),
                       sa.column('set_name', sa.String()))
_outputs = sa.table('outputs', sa.column('id', sa.Integer()), sa.column('item_id', sa.Integer()))
_metric_scores = sa.table('metric_scores', sa.column('output_id', sa.Integer()))


def upgrade() -> None:
    with op.batch_alter_table('references') as batch:
        batch.add_column(sa.Column('set_name', sa.String(length=100), server_default='standard', nullable=False))
    op.execute(_references.update().values(set_name=_references.c.kind))
    pooled_with_other_kinds = (sa.select(_outputs.c.id)
                               .join(_references, _references.c.item_id == _outputs.c.item_id)
                               .where(_references.c.kind != 'standard'))
    op.execute(_metric_scores.delete().where(_metric_scores.c.output_id.in_(pooled_with_other_kinds)))


def downgrade() -> None:
    with op.batch_alter_table('references') as batch:
        batch.drop_column('set_name')

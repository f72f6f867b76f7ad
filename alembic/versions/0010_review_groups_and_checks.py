"""review groups and reviewer checks: outputs.group_key, review_plans, review_assignments

``outputs.group_key`` keys each output's text with case, punctuation, quotes, white space and Unicode form
normalised away (``store.group_key``), so that the review queue shows outputs of an item that read alike as one
group, decided at once. Existing outputs get their key here, computed in Python as every writer's column default
computes it, in chunks of ids. The column stays nullable: making it NOT NULL would rebuild the table on SQLite,
and dropping the old table cascades into every label and review of its outputs; the queue treats an output without
a key (a row written by hand in SQL) as a group of its own.

``review_plans`` and ``review_assignments`` hold double review (a share of reviewed outputs given blind to a second
reviewer) and control outputs (known translations mixed unmarked into a reviewer's assignments), with each
answer and adjudication. Self-contained: the tables refer only to tables of revision 0001.

Revision ID: 0010
Revises: 0012
Create Date: 2026-11-25
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.group_key import KEY_LENGTH, group_key

revision = '0010'
down_revision = '0012'
branch_labels = None
depends_on = None

_CHUNK = 5_000
_outputs = sa.table('outputs', sa.column('id', sa.Integer()), sa.column('text', sa.Text()),
                    sa.column('group_key', sa.String()))


def upgrade() -> None:
    with op.batch_alter_table('outputs') as batch:
        batch.add_column(sa.Column('group_key', sa.String(length=KEY_LENGTH), nullable=True))
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(sa.select(_outputs.c.id, _outputs.c.text).where(_outputs.c.id > last)
                                  .order_by(_outputs.c.id).limit(_CHUNK)).all()
        if not rows:
            break
        connection.execute(_outputs.update().where(_outputs.c.id == sa.bindparam('output_id'))
                           .values(group_key=sa.bindparam('key')),
                           [{'output_id': output_id, 'key': group_key(text)} for output_id, text in rows])
        last = rows[-1][0]
    op.create_index('ix_outputs_item_group', 'outputs', ['item_id', 'group_key'])
    op.create_table(
        'review_plans',
        sa.Column('suite_id', sa.Integer(), sa.ForeignKey('suites.id', ondelete='CASCADE'), primary_key=True),
        sa.Column('double_share', sa.Float(), nullable=False),
        sa.Column('control_share', sa.Float(), nullable=False),
        sa.Column('seed', sa.Integer(), nullable=False),
        sa.Column('author', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        'review_assignments',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('suite_id', sa.Integer(), sa.ForeignKey('suites.id', ondelete='CASCADE'), nullable=False),
        sa.Column('item_id', sa.Integer(), sa.ForeignKey('items.id', ondelete='SET NULL'), nullable=True),
        sa.Column('kind', sa.String(length=10), nullable=False),
        sa.Column('output_id', sa.Integer(), sa.ForeignKey('outputs.id', ondelete='SET NULL'), nullable=True),
        sa.Column('known_id', sa.Integer(), sa.ForeignKey('known_translations.id', ondelete='SET NULL'),
                  nullable=True),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('category', sa.String(length=200), nullable=True),
        sa.Column('expected', sa.String(length=10), nullable=False),
        sa.Column('first_reviewer', sa.String(length=200), nullable=True),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('reviewer', sa.String(length=200), nullable=True),
        sa.Column('given_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('label', sa.String(length=10), nullable=True),
        sa.Column('comment', sa.Text(), nullable=True),
        sa.Column('answered_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('adjudicated_label', sa.String(length=10), nullable=True),
        sa.Column('adjudicated_by', sa.String(length=200), nullable=True),
        sa.Column('adjudicated_at', sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind = 'double' OR kind = 'control'", name='ck_review_assignments_kind'),
        sa.UniqueConstraint('kind', 'output_id', name='uq_review_assignments_output'),
        sa.UniqueConstraint('kind', 'known_id', 'reviewer', name='uq_review_assignments_control'),
    )
    op.create_index('ix_review_assignments_queue', 'review_assignments', ['suite_id', 'kind', 'reviewer'])


def downgrade() -> None:
    op.drop_index('ix_review_assignments_queue', table_name='review_assignments')
    op.drop_table('review_assignments')
    op.drop_table('review_plans')
    op.drop_index('ix_outputs_item_group', table_name='outputs')
    with op.batch_alter_table('outputs') as batch:
        batch.drop_column('group_key')

"""challenge sets and compact embeddings

- ``suites.challenge``: the contrastive challenge-set layout a suite was imported from (DEMETR, ACES, the
  contrastive TSV), None for every suite there is.
- ``items.source_lang``/``items.target_lang``: an item's own languages in a suite of several (``mul``).
- ``constructed_labels``: pass/fail of an output by the challenge set's construction.
- ``embeddings`` is made again, keyed by model, layer, precision and the hash of the token ids (it was the hash of
  the text, in float32 only). The table is a cache: its rows cannot be rekeyed without the model, so they are
  dropped, and the next BERTScore run embeds what it needs again.

Revision ID: 0008
Revises: 0006
Create Date: 2026-11-25
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('suites', sa.Column('challenge', sa.String(length=40), nullable=True))
    op.add_column('items', sa.Column('source_lang', sa.String(length=20), nullable=True))
    op.add_column('items', sa.Column('target_lang', sa.String(length=20), nullable=True))
    op.create_table(
        'constructed_labels',
        sa.Column('output_id', sa.Integer(), nullable=False),
        sa.Column('label', sa.String(length=10), nullable=False),
        sa.CheckConstraint("label = 'pass' OR label = 'fail'", name='ck_constructed_labels_label'),
        sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('output_id'),
    )
    op.drop_table('embeddings')
    op.create_table(
        'embeddings',
        sa.Column('model', sa.String(length=400), nullable=False),
        sa.Column('layer', sa.Integer(), nullable=False),
        sa.Column('precision', sa.String(length=10), nullable=False),
        sa.Column('tokens_hash', sa.String(length=64), nullable=False),
        sa.Column('tokens', sa.Text(), nullable=False),
        sa.Column('dim', sa.Integer(), nullable=False),
        sa.Column('vectors', sa.LargeBinary(), nullable=False),
        sa.CheckConstraint("precision = 'float16' OR precision = 'float32'", name='ck_embeddings_precision'),
        sa.PrimaryKeyConstraint('model', 'layer', 'precision', 'tokens_hash'),
    )


def downgrade() -> None:
    op.drop_table('embeddings')
    op.create_table(
        'embeddings',
        sa.Column('model', sa.String(length=400), nullable=False),
        sa.Column('layer', sa.Integer(), nullable=False),
        sa.Column('sentence_hash', sa.String(length=64), nullable=False),
        sa.Column('tokens', sa.Text(), nullable=False),
        sa.Column('dim', sa.Integer(), nullable=False),
        sa.Column('vectors', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('model', 'layer', 'sentence_hash'),
    )
    op.drop_table('constructed_labels')
    with op.batch_alter_table('items') as batch:
        batch.drop_column('target_lang')
        batch.drop_column('source_lang')
    with op.batch_alter_table('suites') as batch:
        batch.drop_column('challenge')

"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-11-22
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('embeddings',
    sa.Column('model', sa.String(length=400), nullable=False),
    sa.Column('layer', sa.Integer(), nullable=False),
    sa.Column('sentence_hash', sa.String(length=64), nullable=False),
    sa.Column('tokens', sa.Text(), nullable=False),
    sa.Column('dim', sa.Integer(), nullable=False),
    sa.Column('vectors', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('model', 'layer', 'sentence_hash')
    )
    op.create_table('qe_systems',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=40), nullable=False),
    sa.Column('higher_is_better', sa.Boolean(), nullable=False),
    sa.Column('meta', sa.Text(), nullable=False),
    sa.Column('model', sa.LargeBinary(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('suites',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('source_lang', sa.String(length=20), nullable=False),
    sa.Column('target_lang', sa.String(length=20), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('categories',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('suite_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('suite_id', 'name')
    )
    op.create_table('systems',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('suite_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('suite_id', 'name')
    )
    op.create_table('human_scores',
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('lp', sa.String(length=20), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('system_id')
    )
    op.create_table('phenomena',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('category_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['category_id'], ['categories.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('category_id', 'name')
    )
    op.create_table('items',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('suite_id', sa.Integer(), nullable=False),
    sa.Column('external_id', sa.String(length=100), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('phenomenon_id', sa.Integer(), nullable=True),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('comment', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['phenomenon_id'], ['phenomena.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('suite_id', 'external_id')
    )
    with op.batch_alter_table('items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_items_phenomenon_id'), ['phenomenon_id'], unique=False)
        batch_op.create_index('ix_items_suite_position', ['suite_id', 'position'], unique=False)

    op.create_table('known_translations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.CheckConstraint("kind = 'good' OR kind = 'bad'", name='ck_known_translations_kind'),
    sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('known_translations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_known_translations_item_id'), ['item_id'], unique=False)

    op.create_table('outputs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('item_id', 'text')
    )
    op.create_table('references',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('kind', sa.String(length=40), nullable=False),
    sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('references', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_references_item_id'), ['item_id'], unique=False)

    op.create_table('rules',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('polarity', sa.String(length=10), nullable=False),
    sa.Column('pattern', sa.Text(), nullable=False),
    sa.Column('ignore_case', sa.Boolean(), nullable=False),
    sa.Column('valid', sa.Boolean(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.CheckConstraint("polarity = 'positive' OR polarity = 'negative'", name='ck_rules_polarity'),
    sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('rules', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rules_item_id'), ['item_id'], unique=False)

    op.create_table('auto_labels',
    sa.Column('output_id', sa.Integer(), nullable=False),
    sa.Column('label', sa.String(length=10), nullable=False),
    sa.Column('rule_id', sa.Integer(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.CheckConstraint("label = 'pass' OR label = 'fail' OR label = 'conflict' OR label = 'unknown' OR label = 'error'", name='ck_auto_labels_label'),
    sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['rule_id'], ['rules.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('output_id')
    )
    op.create_table('label_fingerprints',
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('labelled_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('item_id')
    )
    op.create_table('manual_labels',
    sa.Column('output_id', sa.Integer(), nullable=False),
    sa.Column('label', sa.String(length=10), nullable=False),
    sa.Column('reviewer', sa.String(length=200), nullable=False),
    sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('comment', sa.Text(), nullable=True),
    sa.CheckConstraint("label = 'pass' OR label = 'fail' OR label = 'unknown'", name='ck_manual_labels_label'),
    sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('output_id')
    )
    op.create_table('metric_scores',
    sa.Column('signature', sa.String(length=400), nullable=False),
    sa.Column('output_id', sa.Integer(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('signature', 'output_id')
    )
    with op.batch_alter_table('metric_scores', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_metric_scores_output_id'), ['output_id'], unique=False)

    op.create_table('qe_scores',
    sa.Column('qe_system_id', sa.Integer(), nullable=False),
    sa.Column('output_id', sa.Integer(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['qe_system_id'], ['qe_systems.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('qe_system_id', 'output_id')
    )
    with op.batch_alter_table('qe_scores', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_qe_scores_output_id'), ['output_id'], unique=False)

    op.create_table('system_outputs',
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('output_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('system_id', 'item_id')
    )
    with op.batch_alter_table('system_outputs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_system_outputs_output_id'), ['output_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('system_outputs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_system_outputs_output_id'))

    op.drop_table('system_outputs')
    with op.batch_alter_table('qe_scores', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_qe_scores_output_id'))

    op.drop_table('qe_scores')
    with op.batch_alter_table('metric_scores', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_metric_scores_output_id'))

    op.drop_table('metric_scores')
    op.drop_table('manual_labels')
    op.drop_table('label_fingerprints')
    op.drop_table('auto_labels')
    with op.batch_alter_table('rules', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rules_item_id'))

    op.drop_table('rules')
    with op.batch_alter_table('references', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_references_item_id'))

    op.drop_table('references')
    op.drop_table('outputs')
    with op.batch_alter_table('known_translations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_known_translations_item_id'))

    op.drop_table('known_translations')
    with op.batch_alter_table('items', schema=None) as batch_op:
        batch_op.drop_index('ix_items_suite_position')
        batch_op.drop_index(batch_op.f('ix_items_phenomenon_id'))

    op.drop_table('items')
    op.drop_table('phenomena')
    op.drop_table('human_scores')
    op.drop_table('systems')
    op.drop_table('categories')
    op.drop_table('suites')
    op.drop_table('qe_systems')
    op.drop_table('embeddings')

"""stored texts in Unicode NFC; integrity_checks

Every text that is matched or looked up (outputs, patterns, item ids, sources, references and the names and kinds
of their sets, known translations, suite, category, phenomenon and system names) is stored in Unicode NFC from now
on (``store.models.NFCText``). The tables of 0008 hold no such text (labels by construction are two fixed words,
an item's languages are codes, embeddings are keyed by token ids); of 0006's, a set's name is one a reference's
kind gave it, so both are normalised alike.
Upgrading normalises what was stored in another form, except where the normalised text is taken already in the
same scope (an output of the same item, an id of the same suite...): those two rows stay apart as they were, since
merging them could lose a review. Items whose outputs changed are relabelled by the next labelling run (their
label fingerprint is cleared); an item whose id changed keeps its history (entries are keyed by the id).

``integrity_checks`` records each ``tsqe check`` of the file's pages, so that ``tsqe status`` can say when the
last one is old.

Revision ID: 0011
Revises: 0008
Create Date: 2026-11-25
"""
from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0008'
branch_labels = None
depends_on = None

_TEXTS = (
    # table, column, the column whose rows may not share a text (None: no uniqueness; '': unique in the table)
    ('suites', 'name', ''),
    ('categories', 'name', 'suite_id'),
    ('phenomena', 'name', 'category_id'),
    ('items', 'external_id', 'suite_id'),
    ('items', 'source', None),
    ('items', 'comment', None),
    ('rules', 'pattern', None),
    ('known_translations', 'text', None),
    ('references', 'text', None),
    ('references', 'kind', None),
    ('references', 'set_name', None),
    ('systems', 'name', 'suite_id'),
    ('outputs', 'text', 'item_id'),
)


def _nfc(text: str) -> str:
    return unicodedata.normalize('NFC', text)


def _not_nfc(column: str, dialect: str) -> str:
    if dialect == 'postgresql':
        return f'{column} IS NOT NFC NORMALIZED'
    return f'tsqe_nfc({column}) <> {column}'


def upgrade() -> None:
    op.create_table(
        'integrity_checks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('checked_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('ok', sa.Boolean(), nullable=False),
        sa.Column('problems', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    bind = op.get_bind()
    dialect = bind.dialect.name
    if dialect == 'sqlite':
        bind.connection.driver_connection.create_function('tsqe_nfc', 1, _nfc, deterministic=True)
    for table, column, scope in _TEXTS:
        quoted = f'"{table}"'
        scope_column = scope or 'id'
        scope_of = f'{scope} = :scope AND ' if scope else ''
        rows = bind.execute(sa.text(f'SELECT id, {scope_column}, {column} FROM {quoted} '
                                    f'WHERE {column} IS NOT NULL AND {_not_nfc(column, dialect)}')).all()
        taken: set[tuple[int, str]] = set()
        for row_id, scope_id, value in rows:
            new = _nfc(value)
            if scope is not None:
                clash = bind.execute(sa.text(f'SELECT 1 FROM {quoted} WHERE {scope_of}{column} = :new'),
                                     {'scope': scope_id, 'new': new}).first()
                if clash is not None or (scope_id, new) in taken:
                    continue
                taken.add((scope_id, new))
            bind.execute(sa.text(f'UPDATE {quoted} SET {column} = :new WHERE id = :id'), {'new': new, 'id': row_id})
            if table == 'outputs':
                bind.execute(sa.text("UPDATE label_fingerprints SET fingerprint = '' WHERE item_id = :item"),
                             {'item': scope_id})
            elif (table, column) == ('items', 'external_id'):
                bind.execute(sa.text('UPDATE history SET item_external_id = :new '
                                     'WHERE suite_id = :suite AND item_external_id = :old'),
                             {'new': new, 'suite': scope_id, 'old': value})


def downgrade() -> None:
    op.drop_table('integrity_checks')

"""several kinds of human scores per suite: the kind is part of every human score's key

A researcher holds DA and MQM (or ESA) for the same segments and chooses per statistic which to compute on, so
``human_scores``, ``human_segment_scores`` and ``human_significance`` are keyed with the kind, ``human_score_sets``
has one row per kind a suite holds, and each error span says which kind's score it counts in. Existing rows keep
their kind: the suite's ``human_score_sets`` row, or WMT DA z-scores ('z') for a suite without one (all that could
be imported before 0014), which now gets its row, so that the rows are the kinds a suite holds.

Downgrading keeps every row when each suite holds one kind (its ``human_score_sets`` row says which, as before);
a suite holding two kinds cannot be written in the older schema without losing one, so the downgrade refuses and
names the suites.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

_KINDS = ('da', 'z', 'esa', 'mqm')
_SOURCE = 'imported before tsqe named the kind of human scores: WMT DA z-scores'


def _in(column: str, values: tuple[str, ...]) -> str:
    return " OR ".join(f"{column} = '{value}'" for value in values)


def _kind_check(table: str) -> sa.CheckConstraint:
    return sa.CheckConstraint(_in('kind', _KINDS), name=f'ck_{table}_kind')


def _definition(table: str, keyed: bool) -> sa.Table:
    """The table as it is at this revision (``keyed``) or the one before: SQLite rebuilds a table to change its
    key, from this definition rather than from reflection, which would lose the CHECK constraints."""
    metadata = sa.MetaData()
    sa.Table('suites', metadata, sa.Column('id', sa.Integer(), primary_key=True))
    sa.Table('systems', metadata, sa.Column('id', sa.Integer(), primary_key=True))
    sa.Table('items', metadata, sa.Column('id', sa.Integer(), primary_key=True))
    kind = [sa.Column('kind', sa.String(length=10), nullable=False)] if keyed else []
    if table == 'human_score_sets':
        columns = [sa.Column('suite_id', sa.Integer(), nullable=False),
                   *([] if keyed else [sa.Column('kind', sa.String(length=10), nullable=False)]), *kind,
                   sa.Column('source', sa.String(length=400), nullable=False),
                   sa.Column('segments_aligned', sa.Boolean(), server_default=sa.true(), nullable=False),
                   sa.CheckConstraint(_in('kind', _KINDS), name='ck_human_score_sets_kind'),
                   sa.ForeignKeyConstraint(['suite_id'], ['suites.id'], ondelete='CASCADE')]
        key = ['suite_id', 'kind'] if keyed else ['suite_id']
    elif table == 'human_scores':
        columns = [sa.Column('system_id', sa.Integer(), nullable=False), *kind,
                   sa.Column('lp', sa.String(length=20), nullable=False),
                   sa.Column('score', sa.Float(), nullable=False),
                   sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE')]
        key = ['system_id']
    elif table == 'human_segment_scores':
        columns = [sa.Column('system_id', sa.Integer(), nullable=False),
                   sa.Column('item_id', sa.Integer(), nullable=False), *kind,
                   sa.Column('score', sa.Float(), nullable=False),
                   sa.Column('raw', sa.Float(), nullable=True),
                   sa.Column('judgements', sa.Integer(), nullable=True),
                   sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
                   sa.ForeignKeyConstraint(['item_id'], ['items.id'], ondelete='CASCADE'),
                   sa.Index('ix_human_segment_scores_item_id', 'item_id')]
        key = ['system_id', 'item_id']
    else:
        columns = [sa.Column('system_id', sa.Integer(), nullable=False),
                   sa.Column('other_id', sa.Integer(), nullable=False), *kind,
                   sa.Column('difference', sa.Float(), nullable=True),
                   sa.Column('p_below', sa.Float(), nullable=True),
                   sa.Column('source', sa.String(length=400), nullable=False),
                   sa.ForeignKeyConstraint(['system_id'], ['systems.id'], ondelete='CASCADE'),
                   sa.ForeignKeyConstraint(['other_id'], ['systems.id'], ondelete='CASCADE'),
                   sa.Index('ix_human_significance_other_id', 'other_id')]
        key = ['system_id', 'other_id']
    if keyed and table != 'human_score_sets':
        key.append('kind')
        columns.append(_kind_check(table))
    return sa.Table(table, metadata, *columns, sa.PrimaryKeyConstraint(*key))


_SCORES = ('human_scores', 'human_segment_scores', 'human_significance')
_SUITE_OF = ("(SELECT systems.suite_id FROM systems WHERE systems.id = {table}.system_id)")


def _rekey(table: str, keyed: bool) -> None:
    """Give ``table`` the key of this revision (``keyed``) or of the one before."""
    new = _definition(table, keyed)
    if op.get_bind().dialect.name == 'sqlite':
        with op.batch_alter_table(table, copy_from=new, recreate='always'):
            pass
        return
    op.drop_constraint(f'{table}_pkey', table, type_='primary')
    op.create_primary_key(f'{table}_pkey', table, [column.name for column in new.primary_key.columns])


def upgrade() -> None:
    held = " UNION ".join(f"SELECT {_SUITE_OF.format(table=table)} AS suite_id FROM {table}" for table in _SCORES)
    op.execute(sa.text(f"INSERT INTO human_score_sets (suite_id, kind, source, segments_aligned) "
                       f"SELECT DISTINCT held.suite_id, 'z', :source, :aligned FROM ({held}) AS held "
                       f"WHERE held.suite_id NOT IN (SELECT suite_id FROM human_score_sets)")
               .bindparams(source=_SOURCE, aligned=True))
    _rekey('human_score_sets', True)
    kind_of_suite = "(SELECT human_score_sets.kind FROM human_score_sets WHERE human_score_sets.suite_id = {suite})"
    for table in _SCORES:
        op.add_column(table, sa.Column('kind', sa.String(length=10), server_default='z', nullable=False))
        op.execute(f"UPDATE {table} SET kind = {kind_of_suite.format(suite=_SUITE_OF.format(table=table))}")
        if op.get_bind().dialect.name == 'sqlite':
            _rekey(table, True)  # the rebuild from the definition also drops the server default
        else:
            op.alter_column(table, 'kind', server_default=None)
            _rekey(table, True)
            op.create_check_constraint(f'ck_{table}_kind', table, _in('kind', _KINDS))
    with op.batch_alter_table('human_error_spans') as batch:
        batch.add_column(sa.Column('kind', sa.String(length=10), server_default='mqm', nullable=False))
    op.execute(f"UPDATE human_error_spans SET kind = "
               f"{kind_of_suite.format(suite=_SUITE_OF.format(table='human_error_spans'))}")
    with op.batch_alter_table('human_error_spans') as batch:
        batch.alter_column('kind', server_default=None)
        batch.create_check_constraint('ck_human_error_spans_kind', _in('kind', _KINDS))


def downgrade() -> None:
    two = op.get_bind().execute(sa.text(
        "SELECT suites.name FROM suites WHERE (SELECT count(*) FROM human_score_sets "
        "WHERE human_score_sets.suite_id = suites.id) > 1 ORDER BY suites.name")).scalars().all()
    if two:
        raise RuntimeError(f"suite(s) {', '.join(two)} hold human scores of more than one kind; the schema before "
                           "revision 0017 holds one kind per suite: delete all but one kind's scores first")
    with op.batch_alter_table('human_error_spans') as batch:
        batch.drop_constraint('ck_human_error_spans_kind', type_='check')
        batch.drop_column('kind')
    for table in _SCORES:
        if op.get_bind().dialect.name != 'sqlite':
            op.drop_constraint(f'ck_{table}_kind', table, type_='check')
            _rekey(table, False)
            op.drop_column(table, 'kind')
        else:
            _rekey(table, False)  # the rebuild keeps the columns of the definition: kind goes
    _rekey('human_score_sets', False)

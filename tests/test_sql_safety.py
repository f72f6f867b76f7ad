"""No SQL is built from strings that could carry user data.

Every value a user types (a pattern, an item id, a suite name) must reach the database as a bound parameter:
a quote in an item id must never change a statement. This test reads the source of every package (ast) and
refuses a call of ``text(...)``, ``exec_driver_sql(...)``, ``execute(...)`` (and the other calls that take raw
SQL, ``SQL_CALLS``) whose SQL is formatted at run time
(f-string, ``%``, ``+`` or ``.format`` with a non-constant part), directly or through a local variable. The
few constructions that format only constants are listed with the reason they are safe.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("store", "suite", "qe", "filters", "cli", "gui")
SQL_CALLS = {"text", "exec_driver_sql", "execute", "executemany", "executescript", "literal_column", "CheckConstraint",
             "DDL", "copy"}

ALLOWED: dict[tuple[str, str], str] = {
    ("store/engine.py", "_configure_sqlite"):
        "PRAGMA mmap_size takes no bound parameter; the value is the module constant SQLITE_MMAP_BYTES",
    ("store/integrity.py", "check_database"):
        "PRAGMA integrity_check/quick_check take no bound parameter; the check is one of those two names, chosen by a "
        "boolean, and the count the module constant SHOWN_PROBLEMS",
    ("store/bulk.py", "_insert_positional"):
        "repeats the placeholder group of an INSERT that SQLAlchemy compiled from a table's columns, so that one "
        "statement carries a few hundred rows; every value stays a bound parameter",
    ("gui/window/files.py", "WindowFiles._opened"):
        "Settings.text is the window's typed settings reader (gui/settings.py), not SQL: the key names the suite last "
        "chosen for the database's URL",
}
"""(file, enclosing function) → why its formatted SQL holds only constants."""


@dataclass(frozen=True)
class FormattedSql:
    file: str
    function: str
    line: int
    source: str


def _is_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant)


def _is_formatted(node: ast.expr) -> bool:
    """Whether ``node`` builds a string at run time from something that is not a literal."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.FormattedValue) for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, (ast.Constant, ast.JoinedStr)) and not _is_constant(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        strings = (ast.Constant, ast.JoinedStr, ast.BinOp)
        return (isinstance(node.left, strings) or isinstance(node.right, strings)) \
            and not (_is_constant(node.left) and _is_constant(node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "join"):
        return isinstance(node.func.value, (ast.Constant, ast.JoinedStr)) and bool(node.args or node.keywords)
    return False


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self, file: str, lines: list[str]) -> None:
        self.file = file
        self.lines = lines
        self.scope: list[str] = []
        self.assigned: list[dict[str, list[ast.expr]]] = [{}]
        self.found: list[FormattedSql] = []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        self.assigned.append(_assignments(node))
        self.generic_visit(node)
        self.assigned.pop()
        self.scope.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_Call(self, node: ast.Call) -> None:
        if _callee(node) in SQL_CALLS and node.args and self._unsafe(node.args[0]):
            self.found.append(FormattedSql(self.file, ".".join(self.scope) or "<module>", node.lineno,
                                           self.lines[node.lineno - 1].strip()))
        self.generic_visit(node)

    def _unsafe(self, argument: ast.expr) -> bool:
        if _is_formatted(argument):
            return True
        if isinstance(argument, ast.Name):
            return any(_is_formatted(value) for value in self.assigned[-1].get(argument.id, []))
        return False


def _assignments(function: ast.AST) -> dict[str, list[ast.expr]]:
    """Every value assigned to each plain local name in ``function`` (``sql = f"..."; text(sql)``)."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            value = node.value
            if isinstance(node, ast.AugAssign):
                value = ast.BinOp(left=ast.Constant(""), op=node.op, right=node.value)
            values.setdefault(node.target.id, []).append(value)
    return values


def formatted_sql(source: str, file: str) -> list[FormattedSql]:
    finder = _Finder(file, source.splitlines())
    finder.visit(ast.parse(source, filename=file))
    return finder.found


def _all_formatted_sql() -> list[FormattedSql]:
    found: list[FormattedSql] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += formatted_sql(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    return found


def test_no_sql_is_formatted_outside_the_allowlist() -> None:
    unexpected = [f"{f.file}:{f.line} in {f.function}: {f.source}" for f in _all_formatted_sql()
                  if (f.file, f.function) not in ALLOWED]
    assert unexpected == []


def test_every_allowlist_entry_is_still_needed() -> None:
    """An entry whose code was fixed or moved must go, or it would silently allow the next one there."""
    used = {(f.file, f.function) for f in _all_formatted_sql()}
    assert set(ALLOWED) <= used


def test_the_scanner_sees_each_way_of_formatting() -> None:
    source = '''
def f(session, conn, cursor, name, ids):
    session.execute(text(f"SELECT * FROM items WHERE external_id = '{name}'"))
    conn.exec_driver_sql("DELETE FROM items WHERE id = %s" % name)
    cursor.execute("SELECT " + name)
    session.execute(text("SELECT {}".format(name)))
    sql = f"SELECT * FROM t WHERE id IN ({ids})"
    conn.execute(text(sql))
    query = "SELECT 1"
    query += name
    cursor.execute(query)
    cursor.copy(f'COPY "{name}" FROM STDIN')
    session.execute(text("SELECT * FROM items WHERE external_id = :name"), {"name": name})
    session.execute(text("SELECT 1 " "FROM items"))
    session.execute(select(Item).where(Item.external_id == name))
'''
    assert [f.line for f in formatted_sql(source, "x.py")] == [3, 4, 5, 6, 8, 11, 12]

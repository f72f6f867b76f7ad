"""Move ``suite/``'s modules into rooms (issue 21) and rewrite every reference to them, re-runnably.

``suite/`` grew to thirty modules in one folder with overlapping names (``editing``/``item_edit``/``items``/
``item_detail``...; ``labels``/``labelling``/``label_counts``; ``tables`` writing tables while
``importers/tables`` reads them). The rooms group them by what a newcomer looks for: ``suite/engine/`` (the rule
engine), ``suite/editing/`` (writes and their history), ``suite/reading/`` (what the front-ends show),
``suite/exporters/``, ``suite/importers/``, ``suite/assist/``, with the helpers every layer shares at the top.

The move is a script rather than a hand-made commit because several branches edit these modules at the same
time: the lead runs it on ``main`` after the last of them is merged, and again after any late merge (a branch
that still says ``from suite.labelling import ...`` is rewritten like the rest). What it does, in order:

1. rewrites every reference in the repository's text files (``git ls-files``): ``from suite.x import ...``,
   ``from suite import x`` (split by room, ``as`` kept so the code below is untouched), ``import suite.x`` and the
   ``suite.x.name`` chains of a file that imports ``suite`` as a package, dotted names inside strings and comments
   (``monkeypatch.setattr("suite.labelling.CHUNK", ...)``, ``-m suite.x``, docstrings) and ``suite/x.py`` paths in
   any text file (README, docs, Makefile, pyproject). ``suite.items`` in code of a file that never imports
   ``suite`` is a variable's attribute (a ``Suite`` row), and is left alone;
2. moves each module with ``git mv`` (the history follows it) and gives each room an ``__init__.py`` that says
   what the room holds;
3. sorts the imports it touched with ``ruff check --select I --fix``.

It is idempotent (a second run changes nothing) and leaves modules it does not know where they are, naming
them. Usage, from the repository's root: ``python tools/rooms.py`` (``--dry-run`` only prints what it would do).
"""
from __future__ import annotations

import argparse
import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# Old module -> new module. Renames say what a module holds where its old name collided with another's.
MOVES: dict[str, str] = {
    # the rule engine: patterns, matching, labels and their counts, the worker pool, previews
    "suite.rules": "suite.engine.rules",
    "suite.pattern_bounds": "suite.engine.pattern_bounds",
    "suite.labelling": "suite.engine.labelling",
    "suite.labels": "suite.engine.labels",
    "suite.label_counts": "suite.engine.label_counts",
    "suite.preview": "suite.engine.preview",
    "suite.watched_pool": "suite.engine.watched_pool",
    # writes: edits of items and their parts, drafts, undo, the taxonomy, reviewers' decisions, the history
    "suite.editing": "suite.editing.api",
    "suite.item_edit": "suite.editing.item_edit",
    "suite.item_draft": "suite.editing.item_draft",
    "suite.items": "suite.editing.items",
    "suite.undoable_edits": "suite.editing.undoable_edits",
    "suite.suite_edit": "suite.editing.suite_edit",
    "suite.taxonomy": "suite.editing.taxonomy",
    "suite.history": "suite.editing.history",
    # one item read whole with the versions its saves send back: the editor's (and the API's) records; in
    # reading it would be the only import from reading up into editing (it names categories via taxonomy)
    "suite.item_detail": "suite.editing.item_detail",
    "suite.draft_autosave": "suite.editing.draft_autosave",
    "suite.review": "suite.editing.review",
    # what the front-ends read to show a suite
    "suite.browse": "suite.reading.browse",
    "suite.tree": "suite.reading.tree",
    "suite.status": "suite.reading.status",
    "suite.report": "suite.reading.report",
    "suite.names": "suite.reading.names",
    # the pairs a decision would add, and the review queue's order by them (review-assist, issue 20): read from
    # the label counts and sorted on by browse, so it sits beside browse; in assist it made reading import assist
    "suite.assist.impact": "suite.reading.impact",
    # files written for other tools
    "suite.export": "suite.exporters.labels_tsv",
    "suite.export_suite": "suite.exporters.suite_file",
    # importers read table files; suite.tables writes tables
    "suite.importers.tables": "suite.importers.table_files",
}

# Modules that stay at suite/'s top: helpers that every room and both qe and filters reach.
SHARED = {
    "suite.changes", "suite.errors", "suite.figures", "suite.qe_scores", "suite.references", "suite.safe_export",
    "suite.significance", "suite.suites", "suite.tables", "suite.tasks", "suite.word_diff",
}

ROOMS: dict[str, str] = {
    "suite.engine": "The rule engine: patterns and their bounds, matching (``rules``), labelling and its worker\n"
                    "pool, labels and their counts, previews of unsaved rules, the output policy.",
    "suite.editing": "Writes and their history: the editing API both front-ends call (``api``), items and their\n"
                     "parts read whole and edited, the taxonomy, reviewers' decisions (``review``), drafts, undo.",
    "suite.reading": "What the front-ends read to show a suite: the tree, the review table's rows (``browse``),\n"
                     "searches, the names to choose from, the status counts and the per-system report.",
    "suite.exporters": "Files written for other tools: labels as TSV, a suite back in the importers' layouts,\n"
                       "mt-metrics-eval's layout and the WMT test-suite submission.",
}

SKIP = {"tools/rooms.py", "tests/test_rooms_script.py"}  # they spell the old names on purpose
LINE_LENGTH = 120  # ruff's, in pyproject.toml
DOTTED = re.compile(r"(?<![\w.])suite(?:\.\w+)+")
PATH = re.compile(r"(?<![\w.-])suite((?:/\w+)+)\.py\b")
# Python 3.12 splits f-strings into tokens; their literal parts are text too.
TEXT_TOKENS = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


@dataclass
class Tree:
    """The modules of the tree as it is now, which decide what an ambiguous name means."""

    root: Path
    modules: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, root: Path) -> Tree:
        tree = cls(root)
        for path in (root / "suite").rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            tree.modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        return tree

    def is_file(self, name: str) -> bool:
        """Whether module ``name`` is a plain ``.py`` file now (it has no submodules then)."""
        return (self.root / (name.replace(".", "/") + ".py")).exists()

    def rewrite_chain(self, chain: str) -> str:
        """``suite.a.b.c`` (a module and names in it) pointed at the module's room.

        Before the move, a module to move is still a file, so whatever follows it is a name defined in it: the
        old facade's ``suite.editing.item_detail`` is its function, not the room's module of that name. After the
        move (a branch merged late), the longest prefix that is a module now wins, and an old module's name with
        names after it (``suite.labelling.CHUNK``, the facade's ``suite.editing.find_item``) is pointed at its
        room; a bare ``suite.editing`` is the room then, and stays.
        """
        parts = chain.split(".")
        for end in range(2, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if self.is_file(prefix):
                return ".".join([MOVES[prefix], *parts[end:]]) if prefix in MOVES else chain
        for end in range(len(parts), 1, -1):
            prefix = ".".join(parts[:end])
            if prefix in self.modules or prefix in MOVES.values():
                return chain
            if prefix in MOVES:
                return ".".join([MOVES[prefix], *parts[end:]]) if end < len(parts) else chain
        return chain


def module_import(tree: Tree, module: str, names: list[ast.alias]) -> list[tuple[str, str, str | None]]:
    """Each name of ``from module import names`` as (module, name, alias) after the move."""
    out: list[tuple[str, str, str | None]] = []
    for alias in names:
        full = f"{module}.{alias.name}"
        if tree.is_file(module):  # a plain module: the names are defined in it
            out.append((MOVES.get(module, module), alias.name, alias.asname))
        elif full in MOVES and (tree.is_file(full) or full not in tree.modules):  # a module that moves (or moved)
            parent, _, base = MOVES[full].rpartition(".")
            out.append((parent, base, alias.asname or (alias.name if base != alias.name else None)))
        elif full in tree.modules:  # a module as it is now
            out.append((module, alias.name, alias.asname))
        else:  # a name of a module that moved, such as the old facade's find_item
            out.append((MOVES.get(module) or tree.rewrite_chain(module), alias.name, alias.asname))
    return out


def render_from(indent: str, imports: list[tuple[str, str, str | None]], *, wrapped: bool) -> list[str]:
    """The statements, one per module; ``wrapped`` keeps a parenthesised statement's one name per line and its
    trailing comma (which tells ruff to keep it so), for groups of several names."""
    grouped: dict[str, list[str]] = {}
    for module, name, alias in imports:
        grouped.setdefault(module, []).append(name if alias is None else f"{name} as {alias}")
    lines: list[str] = []
    for module, names in grouped.items():
        if wrapped and len(names) > 1:
            lines += [f"{indent}from {module} import (", *(f"{indent}    {name}," for name in names), f"{indent})"]
        else:
            lines.append(f"{indent}from {module} import {', '.join(names)}")
    return lines


def rewrite_python(tree: Tree, text: str) -> str:
    """Import statements through the AST; every other ``suite.x`` by its token (code only where ``suite`` is
    the package in this file)."""
    try:
        module_ast = ast.parse(text)
    except SyntaxError:
        return rewrite_text(tree, text)
    lines = text.splitlines(keepends=True)
    replaced: dict[int, tuple[int, list[str]]] = {}  # first line -> (last line, new lines)
    binds_package = False
    for node in ast.walk(module_ast):
        if isinstance(node, ast.Import):
            binds_package |= any(a.name.startswith("suite.") or a.name == "suite" for a in node.names if not a.asname)
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and (node.module == "suite" or node.module.startswith("suite."))):
            continue
        new = module_import(tree, node.module, node.names)
        old = [(node.module, a.name, a.asname) for a in node.names]
        if new == old:
            continue
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        tail = lines[last][node.end_col_offset or 0:].rstrip("\n")
        rendered = render_from(indent, new, wrapped=last > first)
        rendered[-1] += tail
        replaced[first] = (last, [line + "\n" for line in rendered])
    statements = {i for node in ast.walk(module_ast) if isinstance(node, ast.ImportFrom)
                  for i in range(node.lineno - 1, node.end_lineno or node.lineno)}
    import_lines = {n.lineno - 1 for n in ast.walk(module_ast) if isinstance(n, ast.Import)}

    in_text = text_positions(text)

    out: list[str] = []
    index = 0
    while index < len(lines):
        if index in replaced:
            last, new_lines = replaced[index]
            out.extend(new_lines)
            index = last + 1
            continue
        line = lines[index]
        if index not in statements:
            def sub(match: re.Match[str], row: int = index + 1) -> str:
                code = not in_text(row, match.start())
                if code and not (binds_package or row - 1 in import_lines):
                    return match.group(0)
                return tree.rewrite_chain(match.group(0))
            line = PATH.sub(lambda m: rewrite_path(tree, m), DOTTED.sub(sub, line))
        out.append(line)
        index += 1
    return reflow("".join(out), set(text.splitlines()))


def text_positions(text: str) -> Callable[[int, int], bool]:
    """Whether (row, column) of ``text`` is inside a string or a comment."""
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in TEXT_TOKENS:
                spans.append((token.start, token.end))
    except (tokenize.TokenError, SyntaxError):
        pass
    return lambda row, col: any(start <= (row, col) < end for start, end in spans)


def starts_in_text(line: str, row: int, in_text: Callable[[int, int], bool]) -> bool:
    """A comment line, or a line of a docstring from its first character (not code with a string or a trailing
    comment: the words wrapped off it would become code)."""
    start = len(line) - len(line.lstrip())
    return line.lstrip().startswith("#") or (in_text(row, start) and in_text(row, LINE_LENGTH))


def reflow(text: str, before: set[str]) -> str:
    """Lines of docstrings and comments that the longer names pushed past the line length, wrapped: the words
    past it go to the start of the paragraph's next line, or onto a line of their own."""
    lines = text.splitlines(keepends=True)
    for _ in range(1000):
        in_text = text_positions("".join(lines))
        long = [i for i, line in enumerate(lines) if len(line.rstrip("\n")) > LINE_LENGTH
                and line.rstrip("\n") not in before and starts_in_text(line, i + 1, in_text)]
        if not long:
            break
        i = long[0]
        body = lines[i].rstrip("\n")
        indent = body[: len(body) - len(body.lstrip())]
        comment = body.lstrip().startswith("#")
        prefix = indent + "# " if comment else indent
        cut = body.rfind(" ", len(prefix) + 1, LINE_LENGTH + 1)
        if cut < 0:
            before.add(body)  # one word longer than a line: leave it
            continue
        head, rest = body[:cut], body[cut + 1:]
        following = lines[i + 1].rstrip("\n") if i + 1 < len(lines) else ""
        same_paragraph = (following.startswith(prefix) and following.strip() not in {"", "#"}
                          and not following[len(prefix):].startswith((" ", "- ", '"""', "*"))
                          and (comment == following.lstrip().startswith("#"))
                          and (comment or in_text(i + 2, len(prefix))))
        if same_paragraph:
            lines[i: i + 2] = [head + "\n", prefix + rest + " " + following[len(prefix):] + "\n"]
        else:
            lines[i: i + 1] = [head + "\n", prefix + rest + "\n"]
    return "".join(lines)


def rewrite_path(tree: Tree, match: re.Match[str]) -> str:
    name = "suite" + match.group(1).replace("/", ".")
    new = MOVES.get(name) or tree.rewrite_chain(name)  # a .py path names a module file, never a room
    return new.replace(".", "/") + ".py"


def rewrite_text(tree: Tree, text: str) -> str:
    text = DOTTED.sub(lambda m: tree.rewrite_chain(m.group(0)), text)
    return PATH.sub(lambda m: rewrite_path(tree, m), text)


def tracked_text_files(root: Path) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=root,
                            check=True, capture_output=True).stdout.decode().split("\0")
    return [root / name for name in sorted(set(listed)) if name and name not in SKIP and (root / name).is_file()]


def room_init(name: str) -> str:
    return f'"""{ROOMS[name]}"""\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path, help="the repository's root (default: here)")
    parser.add_argument("--dry-run", action="store_true", help="print what would change, change nothing")
    parser.add_argument("--no-ruff", action="store_true", help="do not sort the rewritten imports with ruff")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    if not (root / "suite" / "__init__.py").exists():
        parser.error(f"{root} has no suite/ package")
    tree = Tree.read(root)

    moves: list[tuple[Path, Path]] = []
    for old, new in MOVES.items():
        source = root / (old.replace(".", "/") + ".py")
        target = root / (new.replace(".", "/") + ".py")
        if source.exists() and target.exists():
            print(f"both {source.relative_to(root)} and {target.relative_to(root)} exist: merge them by hand",
                  file=sys.stderr)
            return 1
        if source.exists():
            moves.append((source, target))
    known = set(MOVES) | set(MOVES.values()) | SHARED | {"suite", "suite.demo"}
    unknown = sorted(m for m in tree.modules if m.count(".") == 1 and m not in known and m not in ROOMS
                     and tree.is_file(m))
    for name in unknown:
        print(f"left at suite/ top (not in the mapping): {name.replace('.', '/')}.py")

    changed: list[Path] = []
    before: dict[Path, set[str]] = {}
    for path in tracked_text_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text or "suite" not in text:
            continue
        new_text = rewrite_python(tree, text) if path.suffix == ".py" else rewrite_text(tree, text)
        if new_text != text:
            changed.append(path)
            before[path] = set(text.splitlines())
            if not args.dry_run:
                path.write_text(new_text, encoding="utf-8")
    for path in changed:
        print(f"rewrote {path.relative_to(root)}")

    for source, target in moves:
        print(f"move {source.relative_to(root)} -> {target.relative_to(root)}")
        if args.dry_run:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(source), str(target)], cwd=root, check=True)
    for room in ROOMS:
        init = root / room.replace(".", "/") / "__init__.py"
        if not init.parent.is_dir() or args.dry_run:
            continue
        body = ast.parse(init.read_text(encoding="utf-8")).body if init.exists() else []
        docstring_only = len(body) <= 1 and all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                                 for s in body)
        if docstring_only and (not init.exists() or init.read_text(encoding="utf-8") != room_init(room)):
            init.write_text(room_init(room), encoding="utf-8")
            subprocess.run(["git", "add", str(init)], cwd=root, check=True)
            print(f"wrote {init.relative_to(root)}")

    python = [str(p) for p in changed if p.suffix == ".py" and p.exists()]
    python += [str(t) for _, t in moves if t.exists()]
    beside = Path(sys.executable).parent / "ruff"  # the venv's ruff, the version the project pins
    ruff = str(beside) if beside.exists() else shutil.which("ruff")
    if python and ruff and not args.dry_run and not args.no_ruff:
        subprocess.run([ruff, "check", "--quiet", "--force-exclude", "--select", "I", "--fix", *python],
                       cwd=root, check=False)
    final = {source: target for source, target in moves}
    long_lines = [f"{final.get(path, path).relative_to(root)}:{n}" for path, old_lines in before.items()
                  if path.suffix in {".py", ".toml"} and final.get(path, path).exists()
                  for n, line in enumerate(final.get(path, path).read_text(encoding="utf-8").splitlines(), 1)
                  if len(line) > LINE_LENGTH and line not in old_lines]
    for where in long_lines:
        print(f"over {LINE_LENGTH} characters now (wrap it by hand): {where}")
    print(f"{len(moves)} modules moved, {len(changed)} files rewritten, {len(unknown)} modules left in place")
    return 0


if __name__ == "__main__":
    sys.exit(main())

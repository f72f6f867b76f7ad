"""The documentation site (issue 31) builds with ``mkdocs build --strict``: no broken link, no page the nav names
that is missing; and its command reference, generated from the typer app at each build, lists every command."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli.reference import reference_page

ROOT = Path(__file__).resolve().parents[1]


def build(site: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1"})


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    result = build(tmp_path / "site")
    assert result.returncode == 0, result.stderr
    commands = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text(encoding="utf-8")
    assert "tsqe import suite" in commands and "--tie-epsilon" in commands


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the missing page](missing.md).\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    ours = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:")[0]  # the settings, without the nav
    config.write_text(ours.replace("docs_dir: docs", f"docs_dir: {docs}")
                      .replace("  - docs/hooks/cli_reference.py", f"  - {ROOT / 'docs/hooks/cli_reference.py'}"),
                      encoding="utf-8")
    result = build(tmp_path / "site", config)
    assert result.returncode != 0 and "missing.md" in result.stderr


def test_the_command_reference_names_every_command() -> None:
    import typer

    from cli.main import app

    page = reference_page()  # registers the commands
    root = typer.main.get_command(app)

    def names(group: object, path: tuple[str, ...]) -> list[str]:
        """Every command a user can run: the leaves, and groups that run on their own (``tsqe references``)."""
        found = []
        for name, command in sorted(getattr(group, "commands", {}).items()):
            if command.hidden:
                continue
            if not hasattr(command, "commands") or command.invoke_without_command:
                found.append(" ".join(("tsqe", *path, name)))
            found += names(command, (*path, name))
        return found

    every = names(root, ())
    assert len(every) > 50 and "tsqe import suite" in every
    assert [name for name in every if f"## {name}\n" not in page] == []

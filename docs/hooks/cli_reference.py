"""MkDocs hooks of the documentation site (``mkdocs.yml``'s ``hooks``).

- The command reference is generated from the typer app at every build (``cli.reference``), never committed, so
  it cannot drift from the commands.
- Pages other branches add (``bad-input.md``, ``papers/*.md``) join the navigation when they exist, so the nav
  names no missing page (``--strict`` fails on one) and misses no page that is there.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = "reference/commands.md"


def on_config(config: Any) -> Any:
    docs = Path(config["docs_dir"])
    for section in config["nav"] or []:  # a site without a nav lists every page itself
        for title, pages in section.items():
            if title == "Administrator" and (docs / "bad-input.md").is_file():
                pages.append({"Bad input and what each error says": "bad-input.md"})
            if title == "Researcher":
                papers = sorted(path.relative_to(docs).as_posix() for path in (docs / "papers").glob("*.md"))
                if papers:
                    pages.append({"The papers": papers})
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from cli.reference import reference_page

    files.append(File.generated(config, COMMANDS, content=reference_page()))
    return files

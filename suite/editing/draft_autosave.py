"""Unsaved drafts kept on disk while the linguist works, so that a crash or a kill loses a minute at most.

The window writes its unsaved drafts here every half minute and when it quits (an empty set removes the file);
at the next start on the same database, a file left by a process that no longer runs means that session ended
without saving them, and the window offers them back (never applies them by itself: they come back as unsaved
changes on top of the items as they are now, to look at and save). One file per database and process (a second
window on the same database keeps its own drafts, and is not offered the first one's while it runs), named
after a digest of the database's URL, in the user's data folder; written to a temporary file and renamed over
the old one, so a kill while writing leaves the previous autosave whole.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from suite.editing.item_draft import EditorDraft
from suite.errors import TsqeError

FORMAT = 1


@dataclass(frozen=True)
class Autosaved:
    """Drafts found on disk, and when they were written."""

    drafts: list[EditorDraft]
    saved_at: datetime


def autosave_path(directory: Path, database_url: str, pid: int | None = None) -> Path:
    """This process's autosave file of a database (a digest of its URL: a path may hold characters a file name
    cannot)."""
    return directory / f"{_prefix(database_url)}{os.getpid() if pid is None else pid}.json"


def _prefix(database_url: str) -> str:
    return f"drafts-{hashlib.sha256(database_url.encode()).hexdigest()[:16]}-"


def left_behind(directory: Path, database_url: str) -> list[Path]:
    """Autosave files of this database written by processes that no longer run: sessions that ended without
    saving their drafts (a crash, a kill, a power cut)."""
    prefix = _prefix(database_url)
    found = []
    for path in sorted(directory.glob(f"{prefix}*.json")):
        pid = path.stem.removeprefix(prefix)
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            found.append(path)
    return found


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def write_drafts(path: Path, database_url: str, drafts: Sequence[EditorDraft]) -> None:
    """Keep ``drafts`` on disk (none: remove the file)."""
    if not drafts:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"format": FORMAT, "database": database_url, "saved_at": datetime.now(UTC).isoformat(),
                "drafts": [draft.to_json() for draft in drafts]}
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)


def read_drafts(path: Path) -> Autosaved | None:
    """The drafts kept in ``path``; None when there is no file. A file that cannot be read is refused in words
    (the caller sets it aside with ``set_aside``, for a person to look at, rather than deleting what may be
    someone's work). JSON nested deeper than the parser's recursion limit raises RecursionError, and a document
    of the wrong shape AttributeError as well as KeyError/TypeError: both are a damaged file too (issue 27)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as error:
        raise TsqeError(f"{path.name}: the autosaved drafts cannot be read ({_why(error)})") from error
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TsqeError(f"{path.name}: not an autosave of drafts this version of tsqe writes")
    try:
        return Autosaved([EditorDraft.from_json(draft) for draft in document["drafts"]],
                         datetime.fromisoformat(document["saved_at"]))
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as error:
        raise TsqeError(f"{path.name}: the autosaved drafts are damaged ({_why(error)})") from error


def _why(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if isinstance(error, KeyError):
        return f"{error} is missing"
    return str(error)[:200]


def set_aside(path: Path) -> Path:
    """Move a damaged autosave out of the way (``….json.damaged``, numbered if one is there already), so that it
    is not offered or reported again and is still there for a person to look at. The new path; OSError when it
    cannot be moved."""
    target = path.with_name(path.name + ".damaged")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.damaged-{number}")
    os.replace(path, target)
    return target

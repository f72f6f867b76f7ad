"""Writes and their history: the editing API both front-ends call (``api``), items and their
parts read whole and edited, the taxonomy, reviewers' decisions (``review``), drafts, undo."""

"""What the front-ends read to show a suite: its tree, searches over it (later also browsing, item detail and
status, when issue 21 moves them here)."""

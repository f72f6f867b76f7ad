"""What the front-ends read to show a suite: the tree, the review table's rows (``browse``),
searches, the names to choose from, the status counts and the per-system report."""

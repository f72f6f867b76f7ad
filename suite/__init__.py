"""Test suites: importers, the rule engine, labels, review and the per-system report."""

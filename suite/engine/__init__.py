"""The rule engine: patterns and their bounds, matching (``rules``), labelling and its worker
pool, labels and their counts, previews of unsaved rules, the output policy."""

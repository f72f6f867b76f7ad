"""The rule engine's room (issue 21 moves rules, labelling, labels and the worker pool here): what a labelling
run changed, and the suite's policy for degenerate outputs."""

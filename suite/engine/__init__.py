"""The rule engine's room (issue 21 moves rules, labelling, labels and the worker pool here); for now it holds the
suite's policy for degenerate outputs."""

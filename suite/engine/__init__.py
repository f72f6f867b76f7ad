"""The rule engine's room (issue 21): labelling, its counts and what a run changed."""

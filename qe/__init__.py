"""Quality Estimation: QE systems, pass/fail pairs, pairwise accuracy and its statistics."""

"""The report screens: MT systems' pass rates, QE pairwise accuracy, discriminative items, and their exports."""

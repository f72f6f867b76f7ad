"""Discriminative items: metric backends, variance-aware filtering and difficulty-aware BERTScore."""

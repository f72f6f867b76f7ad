"""mt-metrics-eval's statistics (Apache 2.0, see NOTICE), the reference for tests/test_agreement.py."""

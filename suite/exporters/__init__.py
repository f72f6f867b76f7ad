"""Files written for other tools: labels as TSV, a suite back in the importers' layouts,
mt-metrics-eval's layout and the WMT test-suite submission."""

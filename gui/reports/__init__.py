"""Report tabs: systems, QE accuracy, discriminative items (gui-reports)."""

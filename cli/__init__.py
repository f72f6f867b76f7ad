"""The ``tsqe`` command line, a thin front-end over the headless packages."""

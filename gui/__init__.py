"""The PySide6 desktop front-end (the only package that imports Qt)."""

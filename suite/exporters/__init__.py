"""Writing a suite, or what was computed on it, in the layouts other tools and organisers read."""

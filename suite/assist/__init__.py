"""Assistants that work with the linguist and the reviewer (issue 20): what an item's decided outputs say.

- ``evidence``: an item's decided and undecided outputs and known translations, read once for a whole suite;
- ``tokens``: words and punctuation with their positions, the unit every assistant compares texts in;
- ``variants``, ``markers``, ``context``: what the suite's other items teach about which differences between
  two outputs keep their label and which words mark a passing or a failing one;
- ``patterns``: readable regular expressions built from observed words;
- ``rule_suggestions``: positive and negative rules proposed for an item (pure, as ``bench/suggest.py`` needs);
- ``item_suggestions``: the same for an item of a database, checked with the labelling engine, with their flips;
- ``pattern_slips`` and ``rule_health``: which stored rules decide well, never fire, always conflict or look
  mistyped.
"""

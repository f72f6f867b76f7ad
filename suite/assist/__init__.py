"""Assistants that work with the linguist and the reviewer, and check a team's reviewers (issue 20).

- ``evidence``: an item's decided and undecided outputs and known translations, read once for a whole suite;
- ``tokens``: words and punctuation with their positions, the unit every assistant compares texts in;
- ``variants``, ``markers``, ``context``: what the suite's other items teach about which differences between
  two outputs keep their label and which words mark a passing or a failing one;
- ``patterns``: readable regular expressions built from observed words;
- ``rule_suggestions``: positive and negative rules proposed for an item (pure, as ``bench/suggest.py`` needs);
- ``item_suggestions``: the same for an item of a database, checked with the labelling engine, with their flips;
- ``pattern_slips`` and ``rule_health``: which stored rules decide well, never fire, always conflict or look
  mistyped;
- ``groups``: outputs of an item that read alike, decided as one group;
- ``neighbours``: for an undecided output, the decided output of its item most like it, offered as a suggestion
  when every difference between the two is one that kept labels elsewhere in the suite (``variants``);
- ``double_review``, ``controls``, ``agreement``: a share of decisions made again blind by a second reviewer,
  known translations mixed unmarked into reviewers' assignments, and how far reviewers agree (Cohen's kappa).

The impact order of the review queue (how many pass/fail pairs a decision would add) is read with the queue, in
``suite.reading.impact``.
"""

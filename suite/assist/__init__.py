"""Assistants that work with the reviewer and check a team's reviewers (issue 20).

- ``groups``: outputs of an item that read alike, decided as one group;
- ``neighbours``: for an undecided output, the decided output of its item most like it, offered as a suggestion
  when every difference between the two is one that kept labels elsewhere in the suite;
- ``impact``: how many pass/fail pairs a decision would add, the order of a queue that makes pairs soonest;
- ``double_review``, ``controls``, ``agreement``: a share of decisions made again blind by a second reviewer,
  known translations mixed unmarked into reviewers' assignments, and how far reviewers agree (Cohen's kappa).
"""

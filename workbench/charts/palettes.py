"""Colours the charts and widgets share, chosen to stay apart under the common colour-vision deficiencies
(protanopia, deuteranopia, tritanopia) and on a projector; meaning is never carried by colour alone (marks
✓/✗, outlines, labels go with it).

* :data:`SYSTEMS`: one colour per system or output, in order: the Okabe–Ito palette (Okabe & Ito, *Color
  Universal Design*, 2008; Wong, *Nature Methods* 8:441, 2011).
* :data:`HOLDS`, :data:`FAILS`: text colours for a relation that holds / fails, the Okabe–Ito blue and
  vermillion darkened to a contrast of at least 4.5:1 on white (WCAG AA), always shown with :data:`HOLDS_MARK`
  / :data:`FAILS_MARK`.
* :data:`GRADES`: background and text of a document of grade 0, 1, 2, 3, 4 and more: one blue whose lightness
  grows with the grade (a single hue reads in every colour vision), the grade always printed beside it;
  :data:`TIE`: the bar of a topic where two systems tie.

    >>> len(SYSTEMS), SYSTEMS[0], HOLDS_MARK, FAILS_MARK
    (8, '#0072B2', '✓', '✗')
"""

__all__ = ["SYSTEMS", "ERROR", "GRADES", "TIE", "HOLDS", "FAILS", "HOLDS_MARK", "FAILS_MARK"]

SYSTEMS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
HOLDS, FAILS = "#005A8C", "#A33F00"
HOLDS_MARK, FAILS_MARK = "✓", "✗"
ERROR = "#B00020"  # error messages (7.3:1 on white)
GRADES = (("#F2F2F2", "#222222"), ("#CFE3F3", "#222222"), ("#8CBCE0", "#111111"), ("#3B83C0", "#FFFFFF"),
          ("#1B4F80", "#FFFFFF"))
TIE = "#999999"

"""The columns of a tidy result table — one row per system, topic, measure and value — written in one place: the
campaigns write them, and the command line, the analyses, the charts and the widgets read them here (a module of
its own, so that a chart needs no scoring code to know them).

    >>> COLUMNS
    ('system', 'topic', 'measure', 'value')
"""

__all__ = ["COLUMNS"]

COLUMNS = ("system", "topic", "measure", "value")
"""The columns of a tidy result table."""

"""The workbench's three live charts, drawn from a :class:`~workbench.widgets.state.WorkbenchState`: R≺ S≺ R∼ S∼
per output (the output in focus printed), the scores after each step (the current one marked) and the score mass
each document of the output in focus loses (``workbench.explain``).

They are built on first use, not with the workbench: altair, the validation of its specs and vega's offline
bundle take seconds to load, and a class should see its workbench before that. Once built, a redraw swaps the
rows into the built specs (:func:`workbench.charts.with_data`: no altair rebuild and validation) while the
outputs stay the same; new outputs rebuild them.

    >>> from workbench.widgets.state import WorkbenchState
    >>> charts = WorkbenchCharts(WorkbenchState())
    >>> charts.built, len(charts.rows()["scores"])        # Table 9: 5 outputs × 4 measures
    (False, 20)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.widgets.state import WorkbenchState
from workbench.widgets.why import EXPLAINED, FIELDS, LOST_COLUMNS

__all__ = ["HISTORY_SHOWN", "WorkbenchCharts"]

if TYPE_CHECKING:
    from altair import JupyterChart

HISTORY_SHOWN = 50  # the history chart draws the last 50 steps; ``state.history`` keeps them all
_EMBED = {"actions": False}  # no export menu on the live charts (``save_chart`` writes figures)


class WorkbenchCharts:
    """See the module docstring: :attr:`widgets` holds the ``alt.JupyterChart`` widgets (``scores``,
    ``history``, ``lost``) once :meth:`build` made them."""

    NAMES = ("scores", "history", "lost")

    def __init__(self, state: WorkbenchState) -> None:
        self.state = state
        self.widgets: dict[str, JupyterChart] = {}
        self._drawn_for: tuple[str, ...] = ()

    @property
    def built(self) -> bool:
        return bool(self.widgets)

    def rows(self) -> dict[str, list[dict]]:
        """Each chart's rows for the state as it is."""
        state = self.state
        focused = state.names[state.focus]
        return {"scores": [{"output": name, "measure": measure, "value": float(getattr(score, FIELDS[measure])),
                            "focused": name == focused}
                           for name, score in zip(state.names, state.scores, strict=True) for measure in EXPLAINED],
                "history": state.history_rows(HISTORY_SHOWN), "lost": state.lost[1]}

    def build(self) -> None:
        """Build the three chart widgets (vega loads from vl-convert: nothing is fetched)."""
        import altair as alt

        from workbench.charts import enable_offline

        enable_offline()
        self.widgets = {name: alt.JupyterChart(chart, embed_options=_EMBED) for name, chart in self._charts().items()}
        self._drawn_for = tuple(self.state.names)

    def draw(self) -> None:
        """Redraw the built charts from the state (nothing before :meth:`build`, nor while a quiz hides the
        scores)."""
        if not self.built or self.state.scores_hidden:
            return
        widgets = self.widgets
        if tuple(self.state.names) != self._drawn_for:   # new outputs: their colours and order change
            for name, chart in self._charts().items():
                widgets[name].chart = chart
            self._drawn_for = tuple(self.state.names)
            return
        from workbench.charts import with_data

        for name, rows in self.rows().items():
            spec = with_data(widgets[name].spec, rows)
            if name == "lost":
                spec["title"] = self._lost_title()
            widgets[name].spec = spec

    def _lost_title(self) -> str:
        return f"{self.state.lost[0]}: score mass lost per document"

    def _charts(self) -> dict:
        """Altair charts of the current rows (built and validated: tens of milliseconds)."""
        import pandas as pd

        from workbench.charts import history_chart, lost_mass_chart, scores_chart

        rows = self.rows()
        return {"scores": scores_chart(pd.DataFrame(rows["scores"]), width=290, height=140, legend=False,
                                       title="R and S (the output in focus printed)"),
                "history": history_chart(pd.DataFrame(rows["history"]),
                                         title="scores after each edit (dashed: the step shown)"),
                "lost": lost_mass_chart(pd.DataFrame(rows["lost"], columns=LOST_COLUMNS), title=self._lost_title())}

"""The papers' tables recomputed: Amigó et al., SIGIR 2013, Table 6 (clustering, ranking, filtering families) and Amigó
et al., filtering metrics comparison Tables 3 and 5 (filtering), with the paper's verdict beside the checker's."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from workbench.analysis.constraints.check import CHECK_SEED, RANDOM_CASES, check_constraints
from workbench.analysis.constraints.core import ConstraintCheckError
from workbench.metrics.registry import UnknownMeasureError, parse
from workbench.model import Organization
from workbench.progress import progress as progressed
from workbench.validation import Choices, Flag, Instance, ListOf, validate

__all__ = ["CLUSTERING_COLUMNS", "RANKING_COLUMNS", "FILTERING_COLUMNS", "TABLE6", "FILTERING_TABLES",
           "table6_report", "filtering_report", "as_grid"]


def _combined(reliability: str, sensitivity: str, label: str) -> Callable[[Organization, Organization], float]:
    """F_0.5 of a registered Reliability and Sensitivity pair: the R*S of Amigó et al., SIGIR 2013, Table 6."""
    from workbench.analysis.unanimous import f_alpha

    r, s = parse(reliability), parse(sensitivity)

    def combined(gold: Organization, output: Organization) -> float:
        return float(f_alpha(r(gold, output), s(gold, output), 0.5))

    combined.__name__ = label
    return combined


CLUSTERING_COLUMNS = ("homogeneity", "completeness", "rag bag", "size vs quantity")
RANKING_COLUMNS = ("priority", "deepness", "deepness threshold", "closeness threshold", "confidence")
FILTERING_COLUMNS = ("strict monotonicity", "non-informativeness fixed quality",
                     "non-informativeness growing quality", "absolute weighting")

Y, N = True, False
TABLE6 = (
    # Amigó et al., SIGIR 2013, Table 6 (✓ = True, ✗ = False), read off the extracted text column by column; its
    # Priority column for filtering measures is the filtering priority constraint, i.e. strict monotonicity.
    ("Set matching", ("F(P,IP)",), dict(zip(CLUSTERING_COLUMNS, (Y, N, N, Y), strict=True))),
    ("Entropy based", ("V-measure", "NMI"), dict(zip(CLUSTERING_COLUMNS, (Y, Y, N, Y), strict=True))),
    ("Edit distance", (), dict(zip(CLUSTERING_COLUMNS, (N, Y, N, Y), strict=True))),
    ("Counting pairs", ("Rand", "Jaccard", "FM"), dict(zip(CLUSTERING_COLUMNS, (Y, Y, N, N), strict=True))),
    ("Bcubed", ("BCubed-F",),
     dict(zip(CLUSTERING_COLUMNS, (Y, Y, Y, Y), strict=True)) | {"size vs quantity (overlap)": N}),
    ("MAP, DCG, Q measure", ("AP", "nDCG", "Q-measure"), dict(zip(RANKING_COLUMNS, (Y, Y, N, Y, N), strict=True))),
    ("P10", ("P@10",), dict(zip(RANKING_COLUMNS, (N, N, Y, Y, N), strict=True))),
    ("MRR", ("RR",), dict(zip(RANKING_COLUMNS, (Y, Y, Y, N, N), strict=True))),
    ("RBP", ("RBP(p=0.8)",), dict(zip(RANKING_COLUMNS, (Y, Y, Y, Y, N), strict=True))),
    ("UTILITY, F, LAM%", ("Utility", "F(alpha=0.5)", "Lam%"), {"strict monotonicity": Y}),
    # BCubed over occurrences (each document in each cluster a separate item) is R∼/S∼ on flat clusterings:
    # Amigó et al., SIGIR 2013, §4.2's fix for overlap, so it stands with R*S here.
    ("R*S", ("F(R∼,S∼)", "BCubed-F(variant=occurrence)"),
     dict.fromkeys((*CLUSTERING_COLUMNS, "size vs quantity (overlap)"), Y)),
    ("R*S", ("F(R≺,S≺)(n=10, wn=0.8)",), dict.fromkeys(RANKING_COLUMNS, Y)),
    ("R*S", ("F(R≺,S≺)",), {"strict monotonicity": Y}),
)
"""Amigó et al., SIGIR 2013, Table 6: (family, the workbench measures standing for it, the paper's verdict per
constraint)."""

_UNSTATED = None
FILTERING_TABLES = (
    # Amigó et al., filtering metrics comparison, Tables 3 and 5 as far as the prose of §4–5 states them (the tables are
    # images, absent from the extracted text); None = not stated. The three properties are mutually exclusive (§3.3), so
    # a measure placed in one family is ✗ on the other two.
    ("Table 3", "Accuracy", ("Accuracy",), (Y, N, N, N)),
    ("Table 3", "Utility", ("Utility",), (Y, N, N, Y)),
    ("Table 3", "Utility (α1…α4)", ("LinearUtility",), (Y, N, N, Y)),
    ("Table 3", "Weighted accuracy", ("WAcc",), (Y, N, N, Y)),
    ("Table 3", "Lam%", ("Lam%",), (N, Y, N, N)),
    ("Table 3", "Phi", ("Phi",), (_UNSTATED, Y, N, N)),
    ("Table 3", "Odds", ("Odds",), (N, Y, N, N)),
    ("Table 3", "MAAc", ("MAAc",), (_UNSTATED, Y, N, N)),
    ("Table 3", "Kappa", ("Kappa",), (_UNSTATED, Y, N, N)),
    ("Table 3", "Chi", ("Chi",), (_UNSTATED, Y, N, N)),
    ("Table 3", "MI", ("MI",), (_UNSTATED, Y, N, N)),
    ("Table 3", "F", ("F(alpha=0.5)",), (N, N, Y, N)),
    ("Table 3", "F(R,S)", ("F(R,S)",), (N, N, N, N)),
    ("Table 5", "F_smL", ("F(alpha=0.5, smoothing=laplace)",), (Y, N, N, N)),
    ("Table 5", "F_smN", ("F(alpha=0.5, smoothing=noninformative)",), (Y, N, Y, N)),
    ("Table 5", "Lam%_smL", ("Lam%(smoothing=laplace)",), (Y, N, _UNSTATED, N)),
    ("Table 5", "Lam%_smN", ("Lam%(smoothing=noninformative)",), (Y, Y, N, N)),
)
"""Amigó et al., filtering metrics comparison, Tables 3 and 5: (table, measure, workbench spellings, verdicts in
FILTERING_COLUMNS order)."""

_COMBINED = {
    "F(R∼,S∼)": ("R∼", "S∼"),
    "F(R≺,S≺)(n=10, wn=0.8)": ("R≺(n=10, wn=0.8)", "S≺(n=10, wn=0.8)"),
    "F(R≺,S≺)": ("R≺", "S≺"),
}


def _resolve(spelling: str):
    """A measure for a spelling of the tables, or None when the workbench does not register it."""
    try:
        if spelling in _COMBINED:
            return _combined(*_COMBINED[spelling], label=spelling)
        return parse(spelling)
    except UnknownMeasureError:
        return None


def _verdict_rows(family: str, spelling: str, expected: Mapping[str, bool | None], *, random_cases: int,
                  seed: int) -> list[dict]:
    def row(constraint: str, found: str, note: str) -> dict:
        paper = expected[constraint]
        agrees = pd.NA if paper is None or found not in ("✓", "✗") else (found == "✓") == paper
        return {"family": family, "measure": spelling, "constraint": constraint,
                "paper": "" if paper is None else "✓" if paper else "✗", "found": found, "agrees": agrees,
                "note": note}

    measure = _resolve(spelling) if spelling else None
    if measure is None:
        why = "no such measure in the workbench" if not spelling else f"{spelling} is not registered"
        return [row(c, "absent", why) for c in expected]
    rows = []
    for constraint in expected:
        try:
            found = check_constraints(measure, constraint, random_cases=random_cases, seed=seed).iloc[0]
        except ConstraintCheckError as error:
            rows.append(row(constraint, "error", str(error)))
            continue
        rows.append(row(constraint, "✓" if found["satisfied"] else "✗", found["counterexample"]))
    return rows


@validate(random_cases=RANDOM_CASES, seed=CHECK_SEED, progress=Flag(), families=ListOf(
    Choices(tuple(family for family, _, _ in TABLE6)), optional=True, what="a list of Table 6's families"))
def table6_report(*, random_cases: int = 50, seed: int = 0, families: Sequence[str] | None = None,
                  progress: bool = True) -> pd.DataFrame:
    """Amigó et al., SIGIR 2013, Table 6 recomputed for the measures the workbench has.

    One row per (family, measure, constraint): ``family, measure, constraint, paper`` (✓/✗), ``found``
    (✓, ✗, ``absent`` when the workbench lacks the measure, ``error`` when it raised), ``agrees`` and
    ``note`` (the counterexample, or why absent/error). Use :func:`as_grid` for the table's layout. ``progress``
    shows a bar, measure by measure, when the checks last more than a second.
    """
    work = [(family, spelling, expected) for family, spellings, expected in TABLE6
            if families is None or family in families for spelling in spellings or ("",)]
    rows = []
    for family, spelling, expected in progressed(work, desc="Table 6", unit="measure", shown=progress):
        rows.extend(_verdict_rows(family, spelling, expected, random_cases=random_cases, seed=seed))
    return pd.DataFrame(rows, columns=["family", "measure", "constraint", "paper", "found", "agrees", "note"])


@validate(random_cases=RANDOM_CASES, seed=CHECK_SEED, progress=Flag())
def filtering_report(*, random_cases: int = 50, seed: int = 0, progress: bool = True) -> pd.DataFrame:
    """Amigó et al., filtering metrics comparison, Tables 3 and 5 recomputed for the registered filtering measures (same
    columns as :func:`table6_report`, ``family`` naming the table; ``progress`` as there)."""
    work = [(table, name, spelling, verdicts) for table, name, spellings, verdicts in FILTERING_TABLES
            for spelling in spellings]
    rows = []
    for table, name, spelling, verdicts in progressed(work, desc="Tables 3 and 5", unit="measure", shown=progress):
        expected = dict(zip(FILTERING_COLUMNS, verdicts, strict=True))
        for row in _verdict_rows(table, spelling, expected, random_cases=random_cases, seed=seed):
            rows.append(row | {"family": f"{table}: {name}"})
    return pd.DataFrame(rows, columns=["family", "measure", "constraint", "paper", "found", "agrees", "note"])


@validate(report=Instance((pd.DataFrame,), "a table6_report or filtering_report table"))
def as_grid(report: pd.DataFrame) -> pd.DataFrame:
    """A report laid out like the paper: one row per measure, one column per constraint; a cell reads ``✓``
    or ``✗`` (the finding), with ``(paper ✗)`` appended where the paper says otherwise."""
    def cell(row: pd.Series) -> str:
        if row["agrees"] is False:
            return f"{row['found']} (paper {row['paper']})"
        return row["found"]

    cells = report.assign(cell=report.apply(cell, axis=1))
    grid = cells.pivot_table(index=["family", "measure"], columns="constraint", values="cell", aggfunc="first",
                             sort=False)
    order = [c for c in (*CLUSTERING_COLUMNS, "size vs quantity (overlap)", *RANKING_COLUMNS, *FILTERING_COLUMNS)
             if c in grid.columns]
    return grid[order].fillna("")

"""The measure catalogue: a page per task, every measure as its declaration says it, with a worked example.

Each entry is written from the measure's one declaration (:mod:`workbench.metrics.registry`): how to write it, its
aliases and its names in trec_eval, ir_measures, ranx and PyEvALL, its parameters (default, domain, meaning),
direction and range, how topics combine, what a topic a run lacks scores, its source; then a worked example
computed when the page is built — the score :func:`workbench.evaluate` gives on a small gold and output (the
papers' own where one fits: Sakai's Figure 1, Table 9 of Amigó et al., SIGIR 2013) and the rows
:func:`workbench.explain` decomposes it into. ``./wb docs`` writes the pages into the documentation before Sphinx
builds it:

    >>> pages = catalogue()
    >>> sorted(pages)[:3], "## AP" in pages["ranking"]
    (['baselines', 'classification', 'clustering'], True)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from workbench.metrics import registry
from workbench.metrics.registry import MeasureSpec, Param
from workbench.validation import format_value

__all__ = ["TASKS", "catalogue", "entry", "write"]

TASKS = {
    "ranking": ("Ranking", "Measures of a ranked list of documents against graded judgements: trec_eval 10.0's, "
                           "ir_measures' vocabulary, Sakai's Q/O/P/P+, the diversity measures of ndeval."),
    "filtering": ("Filtering", "Measures of a binary decision per document (relevant or not), as compared by Amigó "
                               "et al. (filtering metrics comparison), Reliability and Sensitivity among them."),
    "clustering": ("Clustering", "Measures of a clustering against gold classes: purity, extended BCubed (Amigó et "
                                 "al., Information Retrieval 12, 2009), pair counting and information theory."),
    "organization": ("Document organization", "Reliability and Sensitivity over priority (≺) and relatedness (∼) "
                                              "relations: ranking, filtering and clustering at once (Amigó, Gonzalo, "
                                              "Verdejo, SIGIR 2013)."),
    "baselines": ("Baselines", "Absolute precision, recall and effectiveness against what chance retrieves "
                               "(Mehlitz et al., eqs. 3–14)."),
    "classification": ("Classification", "Measures of mono-label, multi-label, hierarchical and soft classification, "
                                         "as PyEvALL computes them, the Information Contrast Model (Amigó & "
                                         "Delgado, ACL 2022) and the ordinal CEM (Amigó et al., ACL 2020)."),
}

_DIVERSITY = ("alpha_nDCG", "ERR_IA", "NRBP", "P_IA", "StRecall")
_EXAMPLES = {  # task → (gold, output, where they come from)
    "ranking": ("[3] d1\n[2] d2\n[1] d3", "d3\nd1", "Sakai, SIGIR 2006, Figure 1: graded gold (S = 3, A = 2, B = 1) "
                                                    "and ranking X"),
    "diversity": ("{d1 d2} {d3}\n{d2 d4}", "d2\nd5\nd3\nd1", "a gold whose clusters are subtopics (d2 answers two)"),
    "filtering": ("d1 d2 d3\nrest: d4 d5 d6 d7 d8", "d1 d4\nrest: d2 d3 d5 d6 d7 d8",
                  "the gold of Amigó et al., SIGIR 2013, Table 2, and an output that keeps d1 and d4"),
    "clustering": ("{d1 d2 d3} {d4 d5 d6} d7\nrest:", "{d1 d2} {d3 d4 d5 d6} d7\nrest:",
                   "the gold of Amigó et al., SIGIR 2013, Table 3, and an output that moves d3"),
    "organization": ("d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}", "{d6 d7}\n{d4 d5} {d6 d7}\nd1 {d2 d3 d4}",
                     "Amigó et al., SIGIR 2013, Table 9: the gold and System Output 5"),
    "baselines": ("d1 d2 d3\nrest: d4 d5 d6 d7 d8", "{d1 d4 d5}\nrest: d2 d3 d6 d7 d8",
                  "the gold of Amigó et al., SIGIR 2013, Table 2, and an output retrieving d1, d4 and d5"),
    "classification": ("1: A\n2: A\n3: B\n4: C", "1: A\n2: B\n3: B\n4: A",
                       "four items of classes A, A, B, C and an output that gets two right"),
    "soft": ("1: {A: 0.8, B: 0.2}\n2: {A: 0.5, B: 0.5}\n3: {A: 0.1, B: 0.9}",
             "1: {A: 0.6, B: 0.4}\n2: {A: 0.9, B: 0.1}\n3: {A: 0.2, B: 0.8}",
             "three items with probabilities per class (learning with disagreement) and an output's"),
}
_SOFT = ("ICM-Soft", "ICM-Soft-Norm", "CrossEntropy", "MAE")
_WRITTEN = {"IPrec": "IPrec@0.5", "SDCG": "SDCG(max_rel=3)@3", "RPrecMult": "RPrecMult@1", "R≺": "R≺(n=10, wn=0.8)",
            "S≺": "S≺(n=10, wn=0.8)", "R∼": "R∼(n=10, wn=0.8)", "S∼": "S∼(n=10, wn=0.8)", "F≺": "F≺(n=10, wn=0.8)",
            "F∼": "F∼(n=10, wn=0.8)", "P": "P@2", "R": "R@2", "Success": "Success@1", "RelP": "RelP@2",
            "Unjudged": "Unjudged@2", "P_abs": "P_abs", "R_abs": "R_abs", "E_abs": "E_abs", "CEM": "CEM(order=A<B<C)",
            "Pr": "Pr(label=B)", "INSQ": "INSQ(max_rel=3)", "INST": "INST(max_rel=3)", "NERR8": "NERR8(max_rel=3)@3",
            "NERR9": "NERR9(max_rel=3)@3", "NERR10": "NERR10(max_rel=3)", "NERR11": "NERR11(max_rel=3)",
            "BPM": "BPM(max_rel=3)@3", "TBG": "TBG(H=2.0, max_rel=3)", "U-measure": "U-measure(L=5.0, max_rel=3)",
            "IFT-C1": "IFT-C1(max_rel=3)", "IFT-C2": "IFT-C2(max_rel=3)", "IFT-C1-C2": "IFT-C1-C2(max_rel=3)"}
_ROWS = 12  # rows of an explanation shown


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def _code(names) -> str:
    return ", ".join(f"`{name}`" for name in names) or "—"


def _number(value: object) -> str:
    """A cell of a worked example: 4 significant digits, pandas' missing values as a dash."""
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else f"{value:.4g}"
    return "—" if value is None or str(value) == "<NA>" else str(value)


def _parameter_rows(spec: MeasureSpec) -> list[list[object]]:
    def default(param: Param) -> str:
        return "required" if param.default is None and param.domain is not None \
            and param.domain.reason(None) is not None else f"`{format_value(param.default)}`"
    return [[f"`{key}`" + (" (written `@`)" if key == spec.cutoff else ""), default(param), param.domain,
             param.description] for key, param in spec.parameters.items()]


def _missing(spec: MeasureSpec) -> str:
    if spec.missing == "empty":
        return "scored on an output that retrieves nothing (trec_eval's `-c` placeholder ranking)"
    worst = float(spec.range[1] if spec.direction == "lower" else spec.range[0])
    return f"its worst value, {worst:g}" if math.isfinite(worst) else \
        "refused (no worst value: unbounded where it is bad); `missing_topics='skip'` leaves such topics out"


def _example(spec: MeasureSpec) -> str:
    """The worked example: the value on the task's example pair and its explanation's first rows."""
    from workbench import evaluate, explain
    from workbench.model import Organization

    if spec.reads != "organizations":
        option = "prefs" if spec.reads == "preferences" else "qrels_jg"
        return (f"Read from trec_eval's {spec.reads}, not from a gold organization: "
                f"`python -m workbench trec_eval -R {option} -m {spec.name} REL_INFO RUN`.")
    kind = "diversity" if spec.name in _DIVERSITY else "soft" if spec.name in _SOFT else spec.task
    gold_text, output_text, origin = _EXAMPLES[kind]
    from workbench.model.labelling import Labelling

    gold: Organization | Labelling
    output: Organization | Labelling
    if kind in ("classification", "soft"):
        gold, output = Labelling.parse(gold_text, gold=True), Labelling.parse(output_text)
    else:
        gold, output = Organization.parse(gold_text), Organization.parse(output_text)
    name = _WRITTEN.get(spec.name, spec.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = evaluate(gold, output, name)[name]
        parts = [f"On {origin}:", "", "```text\ngold:\n" + gold_text + "\n\noutput:\n" + output_text + "\n```", ""]
        if spec.returns == "text":
            return "\n".join([*parts, f"`{name}` is `'{value}'`."])
        parts.append(f"`{name}` = **{_number(float(value))}**.")
        if spec.explained is None:
            return "\n".join(parts)
        why = explain(gold, output, name)
    rows = why.contributions.head(_ROWS)
    shown = [[_number(v) if not isinstance(v, str) else v for v in row] for row in rows.itertuples(index=False)]
    parts += ["", f"Explained {why.how}: {why.formula}.", "", _table([str(c) for c in rows.columns], shown)]
    if len(why.contributions) > _ROWS:
        parts.append(f"\n… {len(why.contributions) - _ROWS} more rows.")
    return "\n".join(parts)


def entry(spec: MeasureSpec) -> str:
    """One measure's entry, in MyST Markdown (its anchor is ``measure-`` and the name)."""
    direction = "higher is better" if spec.direction == "higher" else "lower is better"
    facts = [
        ["written", f"`{registry._spelling(spec)}`"],
        ["aliases", _code(spec.aliases)],
        *[[tool, _code(spec.spellings.get(tool, ()))] for tool in registry.SPELLING_TOOLS],
        ["values", f"{direction}, in [{spec.range[0]:g}, {spec.range[1]:g}]"
                   + (" (text)" if spec.returns == "text" else "")],
        ["over topics", {"mean": "the mean", "sum": "the sum", "gmean": "the geometric mean (trec_eval's gm_)"}[
            spec.aggregate]],
        ["a topic the run lacks", _missing(spec)],
        ["explained", registry.explanation_of(spec.name)[1] if spec.explained else "—"],
        ["source", spec.source],
    ]
    text = [f"(measure-{_anchor(spec.name)})=", f"## {spec.name}", "", spec.description[0].upper()
            + spec.description[1:] + ".", "", _table(["", ""], facts), ""]
    if spec.parameters:
        text += ["Parameters:", "", _table(["parameter", "default", "domain", "meaning"], _parameter_rows(spec)), ""]
    else:
        text += [f"Parameters: none (written `{spec.name}` alone).", ""]
    if spec.explained is None:  # an explained measure's formula is its explanation's, shown with the example
        text += [f"Formula: {spec.formula or '—'}.", ""]
    text += [_example(spec), ""]
    return "\n".join(text)


_SPOKEN = {"≺": "-priority", "∼": "-relatedness", "+": "-plus", "%": "-percent", "<": "-priority",
           "~": "-relatedness"}


def _anchor(name: str) -> str:
    """A measure's anchor, readable and distinct (``R≺`` → ``r-priority``, ``P+-measure`` → ``p-plus-measure``)."""
    spoken = "".join(_SPOKEN.get(c, c if c.isalnum() else "-") for c in name)
    return "-".join(part for part in spoken.lower().split("-") if part) or "measure"


def catalogue() -> dict[str, str]:
    """Every task's page: ``{task: MyST Markdown}``, measures in declaration order."""
    by_task: dict[str, list[MeasureSpec]] = {}
    for spec in registry.specs():
        by_task.setdefault(spec.task, []).append(spec)
    pages = {}
    for task, specs in by_task.items():
        title, about = TASKS.get(task, (task.capitalize(), ""))
        listing = ", ".join(f"[{spec.name}](#measure-{_anchor(spec.name)})" for spec in specs)
        pages[task] = "\n".join([f"# {title} measures", "", about, "", listing, "", *(entry(s) for s in specs)])
    return pages


def write(folder: str | Path) -> Mapping[str, Path]:
    """Write :func:`catalogue`'s pages, and an index of them, into ``folder`` (``{task: path}``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pages = catalogue()
    written = {}
    for task, text in pages.items():
        path = folder / f"{task}.md"
        path.write_text(text, encoding="utf-8")
        written[task] = path
    index = ["# Measure catalogue", "", "Every measure the workbench computes, written from its one declaration, "
             "with a worked example computed when this page was built.", "", "```{toctree}", ":maxdepth: 1", "",
             *pages, "```", ""]
    (folder / "index.md").write_text("\n".join(index), encoding="utf-8")
    return written

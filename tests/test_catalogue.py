"""Issue 29 item 5: the measure catalogue is built from the declarations, so every declared measure, each of its
aliases and its spellings in trec_eval and ir_measures have their entry, with a worked example computed when the
page is built (the value evaluate gives on the task's example, and its explanation)."""

from __future__ import annotations

import re

import pytest

from workbench import evaluate
from workbench.catalogue import _EXAMPLES, _WRITTEN, catalogue, entry, write
from workbench.metrics import registry
from workbench.model import Organization


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    """The whole catalogue, built for the test that reads whole pages (every measure's worked example and
    explanation: built at import, it cost each test process over a CPU second at collection)."""
    return catalogue()


@pytest.mark.parametrize("spec", registry.specs(), ids=[spec.name for spec in registry.specs()])
def test_every_measure_and_alias_has_its_entry(spec):
    text = entry(spec)  # the page of its task is the entries in order (test_anchors_are_distinct counts them)
    assert text.startswith("(measure-") and f"\n## {spec.name}\n" in text
    for name in (*spec.aliases, *(n for names in spec.spellings.values() for n in names)):
        assert f"`{name}`" in text, name
    for key, param in spec.parameters.items():
        assert f"`{key}`" in text and param.description in text
    assert ("Parameters: none" in text) is not bool(spec.parameters)  # a measure without any says so (issue 41)


def test_the_worked_examples_are_computed_not_written():
    """AP on Sakai's Figure 1 (ranking X = d3, d1 against S = d1, A = d2, B = d3): (1/1 + 2/2) / 3 = 2/3, which the
    page shows as evaluate computes it; R≺ of Table 9's System Output 5 as the paper prints it (0.64)."""
    gold, output, _ = _EXAMPLES["ranking"]
    assert evaluate(Organization.parse(gold), Organization.parse(output), "AP")["AP"] == pytest.approx(2 / 3)
    assert "`AP` = **0.6667**" in entry(registry.spec_of("AP"))
    gold, output, origin = _EXAMPLES["organization"]
    assert "Table 9" in origin
    value = evaluate(Organization.parse(gold), Organization.parse(output), _WRITTEN["R≺"])[_WRITTEN["R≺"]]
    assert round(value, 2) == 0.64 and f"**{value:.4g}**" in entry(registry.spec_of("R≺"))


def test_anchors_are_distinct(pages, tmp_path):
    anchors = re.findall(r"^\(measure-([a-z0-9-]+)\)=$", "\n".join(pages.values()), flags=re.MULTILINE)
    assert all(f"\n## {spec.name}\n" in pages[spec.task] for spec in registry.specs())  # each on its task's page
    assert len(anchors) == len(set(anchors)) == len(registry.specs())
    written = write(tmp_path)
    assert set(written) == set(pages) and (tmp_path / "index.md").read_text().count("\n") > 5


_MATH = ("Σ", "/", "·", "×", "√", "−", "+", "max", "min", "…", "log", "⌊")


def _is_math(expression: str) -> bool:
    """Whether an expression's first clause (before a comma's explanation of its terms) holds an operator."""
    return any(symbol in expression.split(", ")[0] for symbol in _MATH)


def _formula(text: str) -> str:
    """What an entry gives as its measure's formula: the declared one, or the explanation's (after its ``how``)."""
    declared = re.search(r"^Formula: (.+)\.$", text, flags=re.MULTILINE)
    if declared:
        return declared.group(1)
    explained = re.search(r"^Explained [^\n]*?: (\S[^:\n]*? = [^\n]+)\.$", text, flags=re.MULTILINE)
    return explained.group(1) if explained else ""


_PROSE = re.compile(r"(?:\b[a-z’']+ ){3}[a-z’']+\b")  # four words in a row


def _core(expression: str) -> str:
    """An expression up to its first ``, ``, ``: `` or ``; `` outside brackets, where the words that explain its
    terms begin."""
    depth = 0
    for at, character in enumerate(expression):
        depth += (character in "([{") - (character in ")]}")
        if depth == 0 and expression[at:at + 2] in (", ", ": ", "; "):
            return expression[:at]
    return expression


def _half_prose(expression: str) -> bool:
    """Whether words stand for a term inside the expression (four in a row before its terms are explained)."""
    return bool(_PROSE.search(_core(expression)))


@pytest.mark.parametrize("spec", registry.specs(), ids=[spec.name for spec in registry.specs()])
def test_every_measure_has_its_formula_written_as_math(spec):
    """Issue 41 item 7: 28 measures had no formula or prose only (the prefs measures, BCubed P/R, O-measure,
    Success, IdealDCG, …), and a few were half prose (infAP, IPrec, G, the classification averages, …). Each entry
    writes one, ``name = expression``, whose right side holds more than words: an operator or a function of the
    notation the others use, and no term in words (a new measure without one fails here)."""
    formula = _formula(entry(spec))
    left, equals, expression = formula.partition(" = ")
    assert left and equals and _is_math(expression) and not _half_prose(expression), formula


def test_a_prose_formula_is_refused():
    """The check above fails on a formula in words (as IdealDCG's was), not on one written as math."""
    words = "ideal DCG = the DCG of the judged documents ranked by gain: no retrieved document changes it"
    assert not _is_math(words.partition(" = ")[2]) and _is_math("Σ_{r ≤ k} gain(r) · discount(r), discount(r) = …")


@pytest.mark.parametrize("expression", [
    "Σ_{relevant r} (estimated precision above r) · 1/R",  # infAP's, before issue 41
    "the precision at the best rank at or below the one reaching recall r: Σ_{relevant r' ≤ that rank} 1/rank",
    "Σ_r gain(r)/log2(2 + lag behind the ideal so far) / Σ ideal gains",  # G's
    "Σ_(item, class) [right] / (the output's items of the class × classes averaged)",  # Pr's
    "mean over the classes of 1/(α/Pr(c) + (1 − α)/Re(c))"])  # FMeasure's
def test_a_half_prose_formula_is_refused(expression):
    assert _is_math(expression) and _half_prose(expression)


def test_the_words_explaining_a_formulas_terms_are_not_prose_in_it():
    assert not _half_prose("Σ_{relevant r} b_r / (R·N), b_r the non-relevant documents retrieved below r")
    assert not _half_prose("Σ_j F_ret(j); per judgement group j of J: F_ret(j) the preferences fulfilled")
    assert not _half_prose("(1/|C|) Σ_{c ∈ C} TP_c/|O_c| = Σ_{(item, c)} [right] / (|O_c|·|C|), TP_c the items both")

"""Label vectors without silent coercion: binary means binary (issue 13), cluster labels compare as values,
grades are numbers."""

import inspect
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings

from workbench import Organization, WorkbenchError
from workbench.errors import ParameterError
from workbench.metrics import clustering as C
from workbench.metrics import filtering as F
from workbench.metrics.labels import factorize, label_vector
from workbench.validation import declared


def test_multi_class_labels_are_refused_and_named():
    """The issue's example: three classes used to score as a perfect filter (tp=4)."""
    with pytest.raises(F.BinaryLabelsError, match=r"got 3 distinct ones: 'A', 'B', 'C'"):
        F.contingency_from_labels(["A", "B", "A", "C"], ["A", "A", "A", "C"])
    with pytest.raises(F.BinaryLabelsError, match=r"3 distinct ones: 'A', 'B', 'C'"):
        F.contingency_from_labels(["A", "B", "A", "C"], ["A", "A", "A", "C"], positive="A")
    with pytest.raises(F.BinaryLabelsError, match=r"3 distinct ones: 0, 1, 2"):
        F.contingency_from_labels([0, 1, 1], [0, 2, 1])
    assert issubclass(F.BinaryLabelsError, F.FilteringInputError) and issubclass(F.BinaryLabelsError,
                                                                                  WorkbenchError)


def test_positive_names_the_positive_class():
    assert F.contingency_from_labels(["spam", "ham", "ham"], ["spam", "spam", "ham"], positive="spam") == \
        F.FilteringContingency(tp=1, fp=1, fn=0, tn=1)
    assert F.contingency_from_labels(["spam", "ham", "ham"], ["spam", "spam", "ham"], positive="ham") == \
        F.FilteringContingency(tp=1, fp=0, fn=1, tn=1)
    # one label present: positive may be the absent one (everything negative)
    assert F.contingency_from_labels(["no", "no"], ["no", "no"], positive="yes") == F.FilteringContingency(0, 0, 0, 2)
    with pytest.raises(F.BinaryLabelsError, match=r"positive='maybe' is not one of the labels 'spam', 'ham'"):
        F.contingency_from_labels(["spam", "ham"], ["spam", "spam"], positive="maybe")


@pytest.mark.parametrize("true, pred", [
    (["A", "B"], ["A", "A"]),
    (["True", "False"], ["True", "True"]),  # booleans as strings are strings
    (["1", "0"], ["1", "1"]),
    ([1, 2], [2, 2]),
    ([1, "1"], [1, 1]),  # numpy would merge these into one string label
])
def test_labels_other_than_booleans_and_0_1_must_say_which_is_positive(true, pred):
    with pytest.raises(F.BinaryLabelsError, match="pass positive="):
        F.contingency_from_labels(true, pred)


@pytest.mark.parametrize("true, pred, expected", [
    ([True, False, True], [True, True, False], (1, 1, 1, 0)),
    ([1, 0, 1], [1.0, 1.0, 0.0], (1, 1, 1, 0)),
    ([1, -1, 1], [1, 1, -1], (1, 1, 1, 0)),
    ([0, 0], [0, 0], (0, 0, 0, 2)),
    (np.array([1, 0, 1]), [True, True, False], (1, 1, 1, 0)),
])
def test_booleans_and_0_1_or_minus1_1_default_to_1_as_positive(true, pred, expected):
    assert F.contingency_from_labels(true, pred) == F.FilteringContingency(*expected)


def test_missing_labels_are_named():
    with pytest.raises(F.FilteringInputError, match="y_pred holds None at position 1"):
        F.contingency_from_labels(["a", "b"], ["a", None], positive="a")
    with pytest.raises(F.FilteringInputError, match="y_true holds NaN at position 0"):
        F.contingency_from_labels([float("nan"), "b"], ["a", "b"], positive="a")


string_labels = st.integers(1, 40).flatmap(
    lambda n: st.tuples(st.lists(st.sampled_from(["rel", "non"]), min_size=n, max_size=n),
                        st.lists(st.sampled_from(["rel", "non"]), min_size=n, max_size=n),
                        st.sampled_from(["rel", "non"])))


@settings(max_examples=150, deadline=None)
@given(string_labels)
def test_positive_equals_scikit_learn_pos_label(case):
    true, pred, positive = case
    c = F.contingency_from_labels(true, pred, positive=positive)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.precision(c) == pytest.approx(skm.precision_score(true, pred, pos_label=positive,
                                                                   zero_division=np.nan), nan_ok=True)
        assert F.recall(c) == pytest.approx(skm.recall_score(true, pred, pos_label=positive,
                                                             zero_division=np.nan), nan_ok=True)
        assert F.accuracy(c) == pytest.approx(skm.accuracy_score(true, pred))
        negative = "non" if positive == "rel" else "rel"
        (tn, fp), (fn, tp) = skm.confusion_matrix(true, pred, labels=[negative, positive])
        assert (c.tp, c.fp, c.fn, c.tn) == (tp, fp, fn, tn)


def test_cluster_labels_compare_as_values_not_as_text():
    split = C.contingency_from_labels([0, 0, 1, 1], [1, "1", 1, "1"])  # numpy would see one label "1"
    assert split.table.shape == (2, 2) and C.rand(split) == pytest.approx(1 / 3)
    same = C.contingency_from_labels([0, 0, 1], [1, 1.0, True])  # Python equality: one cluster
    assert same.table.shape == (1, 2)
    with pytest.raises(C.ClusteringInputError, match="labels_true holds None at position 2"):
        C.contingency_from_labels(["a", "b", None], [0, 0, 1])
    with pytest.raises(C.ClusteringInputError, match="labels_pred: a label is not hashable"):
        C.contingency_from_labels([0, 1], np.array([[1], [2, 3]], dtype=object))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "1", "2"]), st.booleans()),
                min_size=0, max_size=30))
def test_factorize_numbers_labels_by_python_equality_in_order_of_first_appearance(values):
    codes, labels = factorize(values, "labels")
    expected = list(dict.fromkeys(values))
    assert labels == expected
    assert [labels[c] for c in codes] == values
    assert label_vector(values, "labels").shape == (len(values),)


def test_grades_are_numbers():
    with pytest.raises(ParameterError, match=r"Organization.from_graded: grades value of 'a' must be a number .*"
                                             r"got \{'a': '2'\}"):
        Organization.from_graded({"a": "2"})
    with pytest.raises(ParameterError, match="got {'a': 'True'}"):
        Organization.from_graded({"a": "True"})
    assert Organization.from_graded({"a": np.int64(2), "b": True}).grade_of() == {"a": 2, "b": 1}


@pytest.mark.parametrize("build, where", [
    (lambda: Organization.from_ranking("d1 d2"), "from_ranking: ids"),
    (lambda: Organization.from_filtering("d1", ["d2"]), "from_filtering: positive"),
    (lambda: Organization.from_filtering(["d1"], "d2"), "from_filtering: negative"),
    (lambda: Organization.from_clustering("d1"), "from_clustering: clusters"),
    (lambda: Organization.from_clustering([["d1"], "d23"]), "from_clustering: clusters"),
    (lambda: Organization.from_clustering([["d1"]], rest="d2"), "from_clustering: rest"),
])
def test_a_string_is_not_read_as_a_list_of_its_characters(build, where):
    with pytest.raises(ParameterError, match=f"Organization.{where} must be a list of"):
        build()


# ------------------------------------------------------------------------- the model's doors (issue 38)
def _doors():
    """Every public method and constructor of the model's classes that the package-wide walk does not reach
    (``workbench.model.labelling`` is not exported by a walked package)."""
    from workbench.model.labelling import ClassTree, Labelling

    for cls in (Labelling, ClassTree):
        yield f"{cls.__name__}.__init__", cls.__init__
        for name, member in vars(cls).items():
            member = member.__func__ if isinstance(member, classmethod | staticmethod) else member
            if not name.startswith("_") and callable(member):
                yield f"{cls.__name__}.{name}", member


def _outside():
    for name, function in _doors():
        for parameter, domain in (declared(function) or {}).items():
            for i, value in enumerate(domain.outside()):
                yield pytest.param(function, parameter, value, id=f"{name}-{parameter}-{i}")


@pytest.mark.parametrize(("name", "function"), list(_doors()))
def test_labellings_and_class_trees_declare_every_parameter(name, function):
    parameters = [p for p in inspect.signature(function).parameters.values() if p.name not in ("self", "cls")]
    domains = declared(function) or {}
    assert {p.name for p in parameters} <= set(domains), name
    for p in parameters:
        if p.default is not inspect.Parameter.empty:
            assert domains[p.name].reason(p.default) is None, (name, p.name)


@pytest.mark.parametrize(("function", "parameter", "value"), list(_outside()))
def test_a_bad_argument_to_a_labelling_is_refused_in_the_one_shape(function, parameter, value):
    with pytest.raises(ParameterError) as caught:
        function(None, **{parameter: value})
    assert (caught.value.function, caught.value.parameter) == (function.__qualname__, parameter)


def test_a_labellings_kind_and_tolerance_are_declared_and_the_data_keeps_its_located_errors():
    from workbench.model.labelling import ClassTree, Labelling, LabellingError, LabelNotInHierarchyError

    with pytest.raises(ParameterError, match="Labelling.__init__: kind must be one of mono, multi, soft, got 'x'"):
        Labelling({"i1": "A"}, "x")
    with pytest.raises(ParameterError, match=r"Labelling.parse: tolerance must be in \[0, 1\], got 2"):
        Labelling.parse("i1: A", tolerance=2)
    with pytest.raises(ParameterError, match="Labelling.of: items key 3 must be a non-empty string"):
        Labelling.of({3: "A"})
    with pytest.raises(LabellingError, match="line 2, id 'i2': '{A: 1' opens"):   # the text is data: located
        Labelling.parse("i1: A\ni2: {A: 1")
    with pytest.raises(LabelNotInHierarchyError, match="class 'Z' is not in the hierarchy"):
        ClassTree.from_nested({"P": ["S"]}).ancestors("Z")

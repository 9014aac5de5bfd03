"""parse_scalar: the one reading of written parameter values (measure names and the examples' @params)."""

import math

from hypothesis import given
from hypothesis import strategies as st

from workbench.datasets import parse_example
from workbench.metrics.registry import parse
from workbench.scalars import parse_scalar


@given(st.integers())
def test_integers_read_back_as_ints(number):
    value = parse_scalar(f" {number} ")
    assert value == number and type(value) is int


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not float(x).is_integer()))
def test_non_integral_floats_read_back_exactly(number):
    value = parse_scalar(repr(number))
    assert type(value) is float and value == number


@given(st.text(alphabet=st.characters(categories=["L"]), min_size=1))
def test_words_stay_words_without_their_quotes(word):
    if word.lower() in ("inf", "infinity", "nan"):
        assert math.isinf(parse_scalar(word)) or math.isnan(parse_scalar(word))
    else:
        assert parse_scalar(f"'{word}'") == parse_scalar(f'"{word}"') == parse_scalar(word) == word


def test_measure_names_and_example_params_read_values_the_same_way():
    example = parse_example("@params n=10 wn=0.8 gain=exp\n@gold\nd1\n")
    assert example.params == {"n": 10, "wn": 0.8, "gain": "exp"}
    assert [type(v) for v in example.params.values()] == [int, float, str]
    assert parse("P@10").params["k"] == 10 and parse("RBP(p=0.8)").params["p"] == 0.8

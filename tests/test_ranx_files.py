"""Runs and qrels in ranx's files (issue 43 item 8): JSON, Parquet and LZ4 written by ranx read equal here, written
here read equal by ranx, and a campaign of them scores as the same dicts do; broken files are refused naming the
file (and the column, query or row)."""

from __future__ import annotations

import io
import json
import math
import random
import warnings

import pytest

from workbench.data import Campaign
from workbench.data.trec.ranx_files import (
    RanxFormatError,
    RanxWriteError,
    read_ranx_qrels,
    read_ranx_run,
    write_ranx_qrels,
    write_ranx_run,
)

SUFFIXES = ["json", "parquet", "lz4"]


def campaign(seed: int, topics: int = 8) -> tuple[dict, dict]:
    """Random graded qrels and a run with tied and distinct scores."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(topics):
        docs = [f"d{i}" for i in range(rng.randint(2, 30))]
        qrels[f"q{t}"] = {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        run[f"q{t}"] = {d: rng.choice([0.5, 1.0, rng.random()]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
    return qrels, run


def as_read(qrels, runs) -> tuple[dict, dict]:
    """What the workbench read: ``{topic: {doc: grade}}`` and ``{topic: {doc: score}}`` of the one run."""
    (run,) = runs.values()
    return ({topic: qrels.grades_of(topic) for topic in qrels},
            {topic: dict(zip(run.documents(topic), run.scores(topic).tolist(), strict=True)) for topic in run})


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("seed", [1, 2])
def test_files_ranx_writes_read_equal_here(ranx, tmp_path, suffix, seed):
    qrels, run = campaign(seed)
    ranx.Qrels(qrels).save(str(tmp_path / f"qrels.{suffix if suffix != 'lz4' else 'json'}"))  # LZ4: runs only
    ranx.Run(run, name="bm25").save(str(tmp_path / f"bm25.{suffix}"))
    gold = read_ranx_qrels(tmp_path / f"qrels.{suffix if suffix != 'lz4' else 'json'}")
    runs = read_ranx_run(tmp_path / f"bm25.{suffix}")
    assert list(runs) == ["bm25"]
    assert as_read(gold, runs) == ({q: {d: float(g) for d, g in docs.items()} for q, docs in qrels.items()}, run)


def _ranx_reads(ranx, path, kind):
    reader = ranx.Qrels if kind == "qrels" else ranx.Run
    if path.suffix == ".parquet":
        import pandas as pd

        frame = pd.read_parquet(path).astype({"q_id": object, "doc_id": object})  # ranx asserts object columns
        return (reader.from_df(frame) if kind == "run" else reader.from_df(frame, score_col="score")).to_dict()
    return reader.from_file(str(path)).to_dict()


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("seed", [1, 2])
def test_files_written_here_read_equal_in_ranx_and_back(ranx, tmp_path, suffix, seed):
    qrels, run = campaign(seed)
    gold = Campaign.from_dicts(qrels, {"bm25": run}).gold
    ranked = Campaign.from_dicts(qrels, {"bm25": run}).runs["bm25"]
    write_ranx_qrels(gold, tmp_path / f"qrels.{suffix}")
    write_ranx_run(ranked, tmp_path / f"bm25.{suffix}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if suffix != "lz4":  # ranx reads LZ4 runs only
            assert _ranx_reads(ranx, tmp_path / f"qrels.{suffix}", "qrels") == qrels
        assert _ranx_reads(ranx, tmp_path / f"bm25.{suffix}", "run") == run
    again = as_read(read_ranx_qrels(tmp_path / f"qrels.{suffix}"), read_ranx_run(tmp_path / f"bm25.{suffix}"))
    assert again == as_read(gold, {"bm25": ranked})


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_campaign_of_ranx_files_scores_as_the_dicts(tmp_path, suffix):
    qrels, run = campaign(3)
    write_ranx_qrels(qrels, tmp_path / f"qrels.{suffix}")
    write_ranx_run(run, tmp_path / f"bm25.{suffix}")
    measures = ["AP", "nDCG@10", "P@5", "RR", "DCG@5"]
    ours = Campaign(read_ranx_qrels(tmp_path / f"qrels.{suffix}"), read_ranx_run(tmp_path / f"bm25.{suffix}"))
    expected = Campaign.from_dicts(qrels, {"bm25": run}).evaluate(measures, progress=False)
    assert ours.evaluate(measures, progress=False).equals(expected)


def test_the_format_is_sniffed_from_the_bytes_and_the_name_is_the_system(tmp_path):
    write_ranx_run({"q1": {"d1": 1.0}}, tmp_path / "a.parquet")
    (tmp_path / "a.parquet").rename(tmp_path / "mine.json")
    assert list(read_ranx_run(tmp_path / "mine.json")) == ["mine"]
    assert list(read_ranx_run(tmp_path / "mine.json", name="bm25")) == ["bm25"]


def _parquet(tmp_path, **columns) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table(columns), buffer)
    path = tmp_path / "bad.parquet"
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.parametrize(("columns", "message"), [
    ({"q_id": ["q1"], "doc_id": ["d1"]}, "lacks the column 'score'"),
    ({"q_id": [1], "doc_id": ["d1"], "score": [1.0]}, "column 'q_id' holds int64, not text"),
    ({"q_id": ["q1"], "doc_id": ["d1"], "score": ["high"]}, "column 'score' holds string, not numbers"),
    ({"q_id": ["q1", "q1"], "doc_id": ["d1", None], "score": [1.0, 2.0]}, "column 'doc_id' has no value in row 2"),
])
def test_a_bad_parquet_table_is_refused_naming_the_file_and_the_column(tmp_path, columns, message):
    path = _parquet(tmp_path, **columns)
    with pytest.raises(RanxFormatError, match=message) as caught:
        read_ranx_run(path)
    assert "bad.parquet" in str(caught.value)


def test_a_document_given_twice_is_refused_naming_its_rows_when_its_topic_is_read(tmp_path):
    from workbench.errors import InputError

    runs = read_ranx_run(_parquet(tmp_path, q_id=["q1", "q1"], doc_id=["d1", "d1"], score=[1.0, 2.0]))
    with pytest.raises(InputError, match="again at row 1"):
        runs["bad"].documents("q1")


@pytest.mark.parametrize(("data", "message"), [
    (b"PAR1 then nothing a reader can use", "not a Parquet file pyarrow can read"),
    (b'["q1", "d1"]', r"a mapping \{query: \{doc: value\}\}, got list"),
    (b'{"q1": ["d1"]}', "query 'q1'"),
    (b'{"q1": {"d1": "high"}}', "not a number"),
    (b'{"q1": {"d1": true}}', "boolean"),
    (b"\x04\x22\x4d\x18 broken", "broken LZ4 data"),
])
def test_a_bad_file_is_refused_naming_it(tmp_path, data, message):
    path = tmp_path / "bad.run"
    path.write_bytes(data)
    with pytest.raises(RanxFormatError, match=message) as caught:
        read_ranx_run(path)
    assert "bad.run" in str(caught.value)


def test_a_truncated_lz4_file_is_refused(tmp_path):
    write_ranx_run({"q1": {f"d{i}": float(i) for i in range(200)}}, tmp_path / "run.lz4")
    data = (tmp_path / "run.lz4").read_bytes()
    (tmp_path / "cut.lz4").write_bytes(data[:len(data) // 2])
    with pytest.raises(RanxFormatError, match="cut.lz4"):
        read_ranx_run(tmp_path / "cut.lz4")


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_value_json_cannot_carry_is_refused_before_writing(tmp_path, value):
    with pytest.raises(RanxWriteError, match="query 'q1', document 'd1'"):
        write_ranx_run({"q1": {"d1": value}}, tmp_path / "run.json")
    assert not (tmp_path / "run.json").exists()


def test_json_is_what_ranx_writes(tmp_path):
    write_ranx_qrels({"q1": {"d1": 2, "d2": 0}}, tmp_path / "qrels.json")
    assert json.loads((tmp_path / "qrels.json").read_text()) == {"q1": {"d1": 2, "d2": 0}}

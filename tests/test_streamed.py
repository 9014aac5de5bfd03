"""Runs larger than memory (issue 42, goal 3): a run streamed a block of whole topics at a time gives what the
in-memory path gives, to the bit — the Campaign frame, the ``eval`` command's text, the ``trec_eval`` drop-in's
text (``-q``, ``-c``, ``-m all_trec``, trec_eval 10.0's quicktest) — on files grouped by topic and not (partitioned
to disk), with block sizes small enough that topics run over block ends; errors and notes name the run file's
own lines; temporary files go, on success and on error."""

import random
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import QUICKTEST, quicktest_paths, shared_dataset
from workbench.cli import main as cli_main
from workbench.data.read import read_campaign
from workbench.data.streamed import StreamWarning, evaluate_files, should_stream, stream_run
from workbench.data.trec import TrecFormatError
from workbench.errors import CampaignError

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "NumRet", "GMAP", "Rprec", "nDCG"]


def _campaign_files(folder: Path, seed: int = 0, topics: int = 12, systems: tuple[str, ...] = ("a", "b")
                    ) -> tuple[Path, Path, Path]:
    """Qrels, a run of ``systems`` grouped by topic (depths 1 to 140, ties, some topics judged only, some run
    only) and the same lines shuffled."""
    rng = random.Random(seed)
    names = [f"q{i}" for i in range(topics)]
    qrels = [f"{t} 0 d{j} {rng.randint(0, 3)}" for t in names[:-2] for j in range(rng.randint(1, 30))]
    run = [f"{t} Q0 d{doc} {rank} {rng.choice([0.5, round(rng.random(), 3)])} {system}"
           for t in names[2:] for system in systems if rng.random() > 0.2
           for rank, doc in enumerate(rng.sample(range(200), rng.randint(1, 140)))]
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    rng.shuffle(run)
    (folder / "shuffled").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "run", folder / "shuffled"


def _same_bits(a, b) -> bool:
    return a[["system", "topic", "measure"]].equals(b[["system", "topic", "measure"]]) and \
        np.array_equal(a["value"].to_numpy().view(np.int64), b["value"].to_numpy().view(np.int64)) and \
        a.attrs == b.attrs


@pytest.mark.parametrize("which", ["run", "shuffled"])
@pytest.mark.parametrize("block_bytes", [300, 5000, 1 << 20])
def test_campaign_frame_equals_the_in_memory_one_to_the_bit(tmp_path, which, block_bytes):
    qrels, run, shuffled = _campaign_files(tmp_path)
    path = run if which == "run" else shuffled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = read_campaign(qrels, [path]).evaluate(MEASURES, progress=False, extra_topics="ignore")
        streamed = evaluate_files(qrels, [path], MEASURES, progress=False, extra_topics="ignore",
                                  block_bytes=block_bytes)
    assert _same_bits(expected, streamed)


def test_missing_topics_skipped_and_refused_as_in_memory(tmp_path):
    qrels, run, _ = _campaign_files(tmp_path, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = read_campaign(qrels, [run]).evaluate("AP", "skip", "ignore", progress=False)
        assert _same_bits(expected, evaluate_files(qrels, [run], "AP", missing_topics="skip", extra_topics="ignore",
                                                   progress=False, block_bytes=700))
    with pytest.raises(Exception, match="has output for topic") as error:
        evaluate_files(qrels, [run], "AP", progress=False, block_bytes=700)
    with pytest.raises(type(error.value), match="has output for topic") as memory:
        read_campaign(qrels, [run]).evaluate("AP", progress=False)
    assert str(error.value) == str(memory.value)


def _cli(capsys, args):
    status = cli_main(args)
    captured = capsys.readouterr()
    return status, captured.out


@pytest.mark.parametrize("which", ["run", "shuffled"])
def test_eval_command_prints_the_same_text(tmp_path, capsys, which):
    qrels, run, shuffled = _campaign_files(tmp_path, seed=1)
    path = str(run if which == "run" else shuffled)
    common = ["eval", "--gold", str(qrels), "--run", path, "-m", *MEASURES, "--extra", "ignore", "--per-topic",
              "--format", "csv", "-q"]
    whole = _cli(capsys, [*common, "--no-stream"])
    assert whole[0] == 0
    assert _cli(capsys, [*common, "--stream", "--stream-block", "900"]) == whole


@pytest.mark.parametrize("which", ["run", "shuffled"])
@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-q", "-c", "-m", "all_trec"], ["-c", "-M20"]])
def test_drop_in_prints_the_same_bytes(tmp_path, capsysbinary, which, flags):
    qrels, run, shuffled = _campaign_files(tmp_path, seed=2, systems=("a",))
    path = str(run if which == "run" else shuffled)
    assert cli_main(["trec_eval", *flags, "--no-stream", str(qrels), path]) == 0
    expected = capsysbinary.readouterr().out
    assert cli_main(["trec_eval", *flags, "--stream-block", "1000", "--stream", str(qrels), path]) == 0
    assert capsysbinary.readouterr().out == expected


STREAMABLE = [(reference, args) for reference, args in QUICKTEST if "-R" not in args]


@pytest.mark.parametrize("reference, args", STREAMABLE, ids=[f"{r}:{a[-2]}" for r, a in STREAMABLE])
def test_quicktest_byte_for_byte_through_the_stream(reference, args, capsysbinary):
    expected = shared_dataset("trec_eval_test", reference).read_bytes()
    assert cli_main(["trec_eval", "--stream", "--stream-block", "3000", *quicktest_paths(args)]) == 0
    assert capsysbinary.readouterr().out == expected


def _lines(count: int, bad: int | None = None, repeat: int | None = None) -> list[str]:
    lines = [f"q{i // 10} Q0 d{i % 10} {i % 10} {1 - (i % 10) / 10} sys" for i in range(count)]
    if bad is not None:
        lines[bad - 1] = f"q{(bad - 1) // 10} Q0 dx 1"
    if repeat is not None:  # a document given again in its topic
        lines[repeat - 1] = lines[repeat - 2]
    return lines


@pytest.mark.parametrize("shuffle", [False, True])
def test_an_error_in_a_late_block_names_the_run_files_line(tmp_path, shuffle):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{t} 0 d1 1\n" for t in range(30)))
    lines = _lines(300, bad=287)
    order = list(range(300))
    if shuffle:  # topics come back: the file is partitioned, and the line keeps its number
        random.Random(0).shuffle(order)
    run = tmp_path / "run"
    run.write_text("".join(lines[i] + "\n" for i in order))
    with warnings.catch_warnings(), pytest.raises(TrecFormatError) as error:
        warnings.simplefilter("ignore")
        evaluate_files(qrels, [run], "AP", progress=False, block_bytes=400)
    assert (error.value.path, error.value.line) == (str(run), order.index(286) + 1)
    assert str(error.value).startswith(f"{run}, line {order.index(286) + 1}: a run line has 6 fields")


def test_a_duplicate_in_a_late_block_names_both_lines_of_the_run_file(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{t} 0 d1 1\n" for t in range(30)))
    run = tmp_path / "run"
    run.write_text("".join(line + "\n" for line in _lines(300, repeat=255)))
    with pytest.raises(CampaignError) as error:  # as the in-memory path says it, when the topic is scored
        evaluate_files(qrels, [run], "AP", progress=False, block_bytes=400)
    with pytest.raises(CampaignError) as memory:
        read_campaign(qrels, [run]).evaluate("AP", progress=False)
    assert str(error.value) == str(memory.value)
    assert f"{run}, line 255: document 'd3' of topic 'q25' of system 'sys' is already on line 254" in str(error.value)
    assert cli_main(["trec_eval", "--stream", "--stream-block", "400", str(qrels), str(run)]) == 4
    assert f"{run}, line 255" in capsys.readouterr().err


def test_temporary_files_are_removed_after_success_and_after_an_error(tmp_path, monkeypatch):
    spare = tmp_path / "spare"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    qrels, _, shuffled = _campaign_files(tmp_path, seed=4)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        evaluate_files(qrels, [shuffled], "AP", extra_topics="ignore", progress=False, block_bytes=2000)
    assert not list(spare.iterdir())
    notes = [str(w.message) for w in said if w.category is StreamWarning]
    assert len(notes) == 1 and "not grouped by topic" in notes[0] and f"{shuffled.stat().st_size:,} bytes" in notes[0]
    bad = tmp_path / "bad"
    bad.write_text(shuffled.read_text() + "q3 Q0 d1 1\n")
    with warnings.catch_warnings(), pytest.raises(TrecFormatError):
        warnings.simplefilter("ignore")
        evaluate_files(qrels, [bad], "AP", extra_topics="ignore", progress=False, block_bytes=2000)
    assert not list(spare.iterdir())


def test_should_stream_by_size_and_memory(tmp_path):
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1 s\n")
    assert not should_stream(run) and should_stream(run, available=0) and not should_stream("-", available=0)


# ------------------------------------------------------------------------ the cutting, for any block size
def _read_back(block):
    """A block's data lines with their numbers in the run file, and its topics."""
    rows = [(block.numbers(n), line) for n, line in enumerate(block.read_bytes().split(b"\n"), 1)
            if line.split() and not line.startswith(b"#")]
    return {line.split()[0].decode() for _, line in rows}, rows


lines_strategy = st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["", "#c", "  ", "x"])), min_size=1,
                          max_size=60)


@settings(max_examples=60, deadline=None)
@given(lines=lines_strategy, block_bytes=st.integers(1, 400), grouped=st.booleans())
def test_any_block_size_hands_every_data_line_once_with_its_number(lines, block_bytes, grouped):
    if grouped:
        lines = sorted(lines, key=lambda item: item[0])
    text = [f"{'  ' if kind == '  ' else ''}t{topic} Q0 d 1 1 s" if kind in ("", "  ") else
            ("# note" if kind == "#c" else f"t{topic}x Q0 d 1 1 s") for topic, kind in lines]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run"
        path.write_text("\n".join(text))  # no newline at the end
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StreamWarning)
            streamed = stream_run(path, _read_back, block_bytes=block_bytes, progress=False)
    rows = sorted(row for part in streamed.results for row in part)
    expected = [(n, line.encode()) for n, line in enumerate(text, 1) if line.split() and not line.startswith("#")]
    assert rows == expected
    topics = [t for part in streamed.results for t in {line.split()[0] for _, line in part}]
    assert len(topics) == len(set(topics))  # each topic in one block


def test_the_progress_bar_counts_the_files_bytes(tmp_path, monkeypatch):
    import contextlib

    import workbench.data.streamed as streamed

    bars = []

    @contextlib.contextmanager
    def recorded(total, *, desc, shown=True):
        bars.append([desc, total, 0])
        yield lambda done: bars[-1].__setitem__(2, bars[-1][2] + done)

    monkeypatch.setattr(streamed, "byte_progress", recorded)
    qrels, run, shuffled = _campaign_files(tmp_path, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_files(qrels, [run], "AP", extra_topics="ignore", progress=True, block_bytes=3000)
        evaluate_files(qrels, [shuffled], "AP", extra_topics="ignore", progress=True, block_bytes=3000)
    size = run.stat().st_size
    assert [bar[0].split(": ")[1] for bar in bars] == ["scoring", "scoring", "partitioning", "scoring"]
    assert bars[0][1:] == bars[2][1:] == bars[3][1:] == [size, size]  # every line is a data line: buckets as big
    assert bars[1][1] == size and 0 < bars[1][2] < size  # the grouped pass stops where a topic comes back


def test_a_gzip_compressed_run_streams_as_it_reads_whole(tmp_path):
    import gzip

    qrels, run, _ = _campaign_files(tmp_path, seed=6)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = read_campaign(qrels, [packed]).evaluate(MEASURES, progress=False, extra_topics="ignore")
        assert _same_bits(expected, evaluate_files(qrels, [packed], MEASURES, progress=False, extra_topics="ignore",
                                                   block_bytes=2000))


def test_without_an_option_a_run_is_streamed_when_memory_would_not_hold_it(tmp_path, capsys, monkeypatch):
    import workbench.data.streamed as streamed

    qrels, _, shuffled = _campaign_files(tmp_path, seed=7)
    common = ["eval", "--gold", str(qrels), "--run", str(shuffled), "-m", "AP", "--extra", "ignore", "--format", "csv"]
    assert cli_main(common) == 0
    whole = capsys.readouterr()
    monkeypatch.setattr(streamed, "_available_memory", lambda: 0)  # every file is too large now
    assert cli_main(common) == 0
    chosen = capsys.readouterr()
    assert chosen.out == whole.out and "not grouped by topic" in chosen.err and "not grouped" not in whole.err


@pytest.mark.parametrize("args, status, says", [
    (["eval", "--gold", "{qrels}", "--run", "-", "-m", "AP", "--stream"], 2, "standard input is read whole"),
    (["eval", "--gold", "{qrels}", "--run", "{run}", "-m", "AP", "--stream", "--costs", "{qrels}"], 2, "--costs"),
    (["trec_eval", "--stream", "-R", "qrels_jg", "{qrels}", "{run}"], 1, "-R qrels"),
    (["trec_eval", "--stream-block", "0", "{qrels}", "{run}"], 1, "--stream-block 0"),
])
def test_what_is_not_streamed_is_refused_in_one_line(tmp_path, capsys, args, status, says):
    qrels, run, _ = _campaign_files(tmp_path, seed=8)
    assert cli_main([a.format(qrels=qrels, run=run) for a in args]) == status
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


# --------------------------------------------------------- a run proven not grouped before any block is scored
def _halves(folder: Path, topics: int = 40, docs: int = 10) -> tuple[Path, Path]:
    """Qrels and a run with each topic's first half of documents, then every topic's second half (the benchmark's
    file, small)."""
    judged = [f"q{t} 0 d{d} {(t + d) % 3}\n" for t in range(topics) for d in range(0, 12, 3)]
    (folder / "qrels").write_text("".join(judged))
    lines = [[f"q{t} Q0 d{d} {d + 1} {1 - d / 10:.2f} sys\n" for d in range(docs)] for t in range(topics)]
    half = docs // 2
    (folder / "run").write_text("".join(line for t in lines for line in t[:half]) +
                                "".join(line for t in lines for line in t[half:]))
    return folder / "qrels", folder / "run"


def test_a_run_sampled_as_not_grouped_is_partitioned_before_any_block_is_scored(tmp_path, monkeypatch):
    import contextlib

    import workbench.data.streamed as streamed

    bars = []

    @contextlib.contextmanager
    def recorded(total, *, desc, shown=True):
        bars.append(desc.split(": ")[1])
        yield lambda done: None

    monkeypatch.setattr(streamed, "byte_progress", recorded)
    monkeypatch.setattr(streamed, "LONG_LINE", 32)  # the tiny file's lines are shorter
    qrels, run = _halves(tmp_path)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        expected = read_campaign(qrels, [run]).evaluate(MEASURES, progress=False)
        got = evaluate_files(qrels, [run], MEASURES, progress=False, block_bytes=1000)
    assert _same_bits(expected, got)
    assert bars == ["partitioning", "scoring"]  # no grouped pass: nothing scored twice
    note = next(str(w.message) for w in said if w.category is StreamWarning)
    topic, line = note.split("topic '")[1].split("'")[0], int(note.split("comes again on line ")[1].split(",")[0])
    text = run.read_text().splitlines()
    assert text[line - 1].split()[0] == topic and line > 200  # a line of the second half, the topic's own
    assert line in [i for i, row in enumerate(text, 1) if row.split()[0] == topic][5:]  # after other topics


def test_the_drop_in_and_eval_print_the_same_after_a_sampled_proof(tmp_path, capsysbinary, monkeypatch):
    import workbench.data.streamed as streamed

    monkeypatch.setattr(streamed, "LONG_LINE", 32)
    qrels, run = _halves(tmp_path, topics=30)
    for command in (["trec_eval", "-q", "-m", "all_trec", str(qrels), str(run)],
                    ["eval", "--gold", str(qrels), "--run", str(run), "-m", *MEASURES, "--per-topic", "--format",
                     "csv", "-q"]):
        assert cli_main([*command, "--no-stream"]) == 0
        expected = capsysbinary.readouterr().out
        assert cli_main([*command, "--stream", "--stream-block", "700"]) == 0
        out = capsysbinary.readouterr()
        assert out.out == expected and b"not grouped by topic" in out.err


@settings(max_examples=60, deadline=None)
@given(lines=lines_strategy, block_bytes=st.integers(1, 200))
def test_the_samples_prove_only_what_the_grouped_pass_would_find(lines, block_bytes):
    import workbench.data.streamed as streamed

    text = "".join(f"t{topic} Q0 d 1 1 s\n" if kind != "#c" else "# note\n" for topic, kind in lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run"
        path.write_text(text)
        saved, streamed.LONG_LINE = streamed.LONG_LINE, 32  # longer than these lines
        try:
            proof = streamed._scattered(path, len(text), block_bytes)
        finally:
            streamed.LONG_LINE = saved
        if proof is None:
            return
        topic, where = proof
        assert text.encode()[where:].split(b" ", 1)[0] == topic and text.encode()[where - 1:where] == b"\n"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StreamWarning)
            assert stream_run(path, _read_back, block_bytes=block_bytes, progress=False).partitioned


def test_a_topic_back_in_its_own_block_is_read_there_and_one_back_many_blocks_later_is_partitioned(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{t} 0 d{d} 1\n" for t in range(30) for d in (1, 4)))
    lines = _lines(300)
    near = lines[:20] + lines[25:30] + lines[20:25] + lines[30:]  # q2, q3, q2 again: one block holds all three
    far = lines + ["q0 Q0 d20 11 0.01 sys"]  # q0 again on the last line, 29 topics (and the samples) later
    for lines, partitioned in ((near, False), (far, True)):
        run = tmp_path / "run"
        run.write_text("".join(line + "\n" for line in lines))
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            expected = read_campaign(qrels, [run]).evaluate(MEASURES, progress=False)
            assert _same_bits(expected, evaluate_files(qrels, [run], MEASURES, progress=False, block_bytes=1000))
        notes = [str(w.message) for w in said if w.category is StreamWarning]
        assert len(notes) == partitioned
        assert all(note.startswith(f"{run}: not grouped by topic (topic 'q0' comes again on line 301, after other "
                                   f"topics): partitioned to disk first, about {run.stat().st_size:,} bytes in ")
                   for note in notes)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(st.booleans(), min_size=16, max_size=16), min_size=1, max_size=20))
def test_a_topics_width_is_its_first_space_as_argmax_finds_it(rows):
    """Issue 42: the partition finds where each line's topic ends (its first C whitespace or NUL among the first 16
    bytes, 16 where none) from the two words of its marks, as numpy's argmax along the row finds it."""
    from workbench.data import streamed

    marks = np.array(rows, dtype=bool)
    expected = np.where(marks.any(axis=1), marks.argmax(axis=1), 16)
    assert streamed._first_marked(marks).tolist() == expected.tolist()


_LINE_STARTS = [b"q1", b"q1", b"q12345", b"q1234567", b"q12345678", b"#c", b"", b" q1", b"\tq2", b"q1\x0b", b"\x00",
                b"        q3", b"        q4", b"\t \t \t \t q5"]


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from(_LINE_STARTS), st.sampled_from([b" Q0 d", b"\tQ0\td", b"", b"  "]),
                                st.sampled_from([b"1 1 0.5 r", b"22 2 0.1 r", b""])), min_size=1, max_size=30),
       end=st.sampled_from([b"\n", b""]), buckets=st.integers(2, 7))
def test_each_line_goes_to_its_topics_bucket_as_hashed_alone(lines, end, buckets):
    """Issue 42: the partition hashes only the lines whose first 8 bytes differ from the line before (or could end
    their topic beyond them): every line still goes to the bucket of its own topic hashed alone (-1 for a blank or
    # line), whatever the topics' lengths, separators, leading spaces and lines of one topic in a row."""
    from workbench.data import streamed

    chunk = b"\n".join(topic + middle + rest for topic, middle, rest in lines) + end
    starts, ends, which = streamed._bucketed(chunk, buckets)
    expected = []
    for start, stop in zip(starts.tolist(), ends.tolist(), strict=True):
        topic = streamed._topic(chunk[start:stop])
        expected.append(-1 if topic is None else int(streamed._key_hash(topic) % np.uint64(buckets)))
    assert which.tolist() == expected


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(1, 40), min_size=1, max_size=12), block_bytes=st.integers(1, 300),
       extra=st.sampled_from(["", "# note\n", "\n"]), end=st.booleans())
def test_a_grouped_run_is_cut_into_blocks_of_whole_topics_no_larger_than_a_topic_and_a_read(sizes, block_bytes,
                                                                                           extra, end):
    """Issue 42: the blocks of a run grouped by topic, cut in the bytes read (each byte copied once): together they
    are the file, each topic's lines lie in one block, each block's first line is numbered as in the file, and a
    block holds at most its first topic's lines and one read (block_bytes) more."""
    from workbench.data import streamed

    lines = [f"t{topic} Q0 d{i} 1 {i / 7:.3f} run\n" + (extra if i == 1 else "")
             for topic, size in enumerate(sizes) for i in range(size)]
    text = "".join(lines).encode()
    text = text if end else text.rstrip(b"\n")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run"
        path.write_bytes(text)
        blocks = list(streamed._grouped_blocks(path, block_bytes, lambda done: None))
    assert b"".join(block for block, _ in blocks) == text
    owner = {}
    for number, (block, first) in enumerate(blocks):
        assert first == text[:text.find(block) if block else len(text)].count(b"\n") + 1
        topics = [line.split()[0] for line in block.split(b"\n") if line.split() and not line.startswith(b"#")]
        for topic in topics:
            assert owner.setdefault(topic, number) == number
        if topics:
            first_topic = b"".join(line + b"\n" for line in block.split(b"\n") if line.split()[:1] == topics[:1])
            assert len(block) <= len(first_topic) + block_bytes + max(map(len, lines))


@pytest.mark.parametrize("packed", [False, True])
def test_the_largest_block_size_reads_a_small_file_with_a_buffer_of_its_size(tmp_path, packed):
    """Issue 42: the reading buffer (used again for every read) is no larger than the file's data, so that the
    largest block size the domain takes (2^40 bytes) streams a small run, plain or gzip (its last topic a block of
    its own, as always)."""
    import gzip

    from workbench.data import streamed

    text = b"q1 Q0 d1 1 0.5 r\nq2 Q0 d1 1 0.5 r\n"
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(text) if packed else text)
    assert list(streamed._grouped_blocks(path, 1 << 40, lambda done: None)) == [(text[:17], 1), (text[17:], 2)]

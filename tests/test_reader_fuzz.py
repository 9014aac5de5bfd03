"""Reader fuzzing: random bytes and mutated real files (flipped, inserted, deleted bytes, cut lines, gzip, broken
gzip, odd encodings) through every reader and the command line. A reader returns its result or raises a
WorkbenchError — never a library's exception (expat's LookupError, a codec's UnicodeError, zlib.error...).

Seeds: small files written here, plus the head of the real campaign files in ../shared/datasets where present
(trec_eval's test files, WePS-1 and WePS-2 truth, the RepLab 2013 gold standards and system outputs).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import Organization, WorkbenchError
from workbench.cli import main
from workbench.data.replab import LABELS, read_replab
from workbench.data.trec import (
    read_trec_eval_output,
    read_trec_qrels,
    read_trec_qrels_frame,
    read_trec_run,
    read_trec_run_frame,
)
from workbench.data.weps import read_weps_clustering, read_weps_file
from workbench.datasets import shared

# what the TREC readers say of odd values read as trec_eval reads them is expected here: only errors count
pytestmark = pytest.mark.filterwarnings("ignore::workbench.data.trec.errors.TrecReadingWarning")

HEAD = 3000  # bytes of each real file used as a seed (cut at a line end): enough lines, quick to mutate


def _real(*parts: str) -> list[bytes]:
    path = shared(*parts)
    if path is None:
        return []
    files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
    heads = []
    for file in files[:3]:
        data = file.read_bytes()
        heads.append(data if len(data) <= HEAD else data[: data.rfind(b"\n", 0, HEAD) + 1])
    return heads


SEEDS = {
    "qrels": [b"q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n", *_real("trec_eval_test", "qrels.test"),
              *_real("trec_eval_test", "qrels.rel_level")],
    "run": [b"q1 Q0 d1 1 2.5 sysA\nq1 Q0 d2 2 2.5 sysA\nq2 Q0 d3 1 -1 sysA\n",
            *_real("trec_eval_test", "results.test"), *_real("trec_eval_test", "results.trunc")],
    "trec_eval": [b"map                   \tall\t0.25\nrunid                 \tall\tsysA\n",
                  *_real("trec_eval_test", "out.test.aq"), *_real("trec_eval_test", "out.test")],
    "weps": [b'<?xml version="1.0" encoding="utf-8"?>\n<clustering name="A_B">\n\t<entity id="0">\n'
             b'\t\t<doc rank="0" />\n\t\t<doc rank="3" />\n\t</entity>\n\t<discarded>\n\t\t<doc rank="7" />\n'
             b'\t</discarded>\n</clustering>\n',
             *_real("weps2007", "truth_files"), *_real("weps2", "gold_standard")],
    "replab": ['"entity_id"\t"tweet_id"\t"topic"\n"E1"\t"t1"\t"Coupé"\n"E1"\t"t2"\t"B"\n'.encode("latin-1"),
               b'"entity_id"\t"tweet_id"\t"filtering"\n"E1"\t"t1"\t"RELATED"\n"E1"\t"t2"\t"UNRELATED"\n',
               b'"entity_id"\t"tweet_id"\t"priority"\n"E1"\t"t1"\t"ALERT"\n"E1"\t"t2"\t"0.5"\n',
               *_real("replab2013_filtering", "goldstandard_filtering.dat"),
               *_real("replab2013_topic_detection", "replab2013_topic_detection_goldstandard.dat"),
               *_real("replab2013_topic_detection", "system-outputs")],
}

# Byte strings a careless or hostile file holds: separators, quotes, numbers a parser chokes on, byte-order
# marks, gzip's magic, XML that declares an unknown or multi-byte encoding, entities, comments.
AWKWARD = [b"\t", b"\n", b"\r\n", b" ", b'"', b'""', b"nan", b"inf", b"-inf", b"1e999", b"-1", b"\x00", b"\xff",
           b"\xef\xbb\xbf", b"\xff\xfe", b"\x1f\x8b", b"#", b"rest:", b"<", b">", b"&", b"&bogus;", b"</entity>",
           b'<doc rank="1"/>', b"<entity>", b'<?xml version="1.0" encoding="bogus-enc"?>',
           b'<?xml version="1.0" encoding="shift_jis"?>', b'<?xml version="1.0" encoding="utf-16"?>',
           b'<?xml version="1.0" encoding="idna"?>', b"<!DOCTYPE c [<!ENTITY a \"aa\">]>", b"<!-- -->",
           "é".encode(), "é".encode("latin-1"), "\u2028".encode()]


# What a file may start with: nothing new (most often), a byte-order mark, an XML declaration (replacing the
# file's own) naming an encoding Python lacks, one expat cannot use, or one that does not match the bytes.
STARTS = [b""] * 6 + [b"\xef\xbb\xbf", b"\xff\xfe", *(f'<?xml version="1.0" encoding="{name}"?>'.encode()
                                                for name in ("bogus-enc", "shift_jis", "utf-16", "idna", "rot13",
                                                             "latin-1", "utf-7", "zlib", ""))]


@st.composite
def mutated(draw, seeds: list[bytes]) -> bytes:
    """A seed with a few random edits, then possibly gzip-compressed (whole or cut short)."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 5))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["set", "insert", "delete", "cut", "repeat line"]))
        if edit == "set" and data:
            data[min(at, len(data) - 1)] = draw(st.integers(0, 255))
        elif edit == "insert":
            data[at:at] = draw(st.one_of(st.sampled_from(AWKWARD), st.binary(min_size=1, max_size=8)))
        elif edit == "delete":
            del data[at:at + draw(st.integers(1, 40))]
        elif edit == "cut":
            del data[at:]
        elif edit == "repeat line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            data[start:start] = data[start:len(data) if end < 0 else end + 1]
    start = draw(st.sampled_from(STARTS))
    if start:
        declaration = re.match(rb"<\?xml[^>]*\?>", data)
        data[: declaration.end() if declaration and start.startswith(b"<?xml") else 0] = start
    packed = draw(st.sampled_from(["plain", "plain", "plain", "gzip", "broken gzip"]))
    if packed == "plain":
        return bytes(data)
    compressed = gzip.compress(bytes(data))
    return compressed if packed == "gzip" else compressed[: draw(st.integers(0, len(compressed) - 1))]


def inputs(kind: str):
    return st.one_of(st.binary(max_size=600), mutated(SEEDS[kind]))


def readers(kind: str) -> list:
    """Every public reader of one format, as functions of the path."""
    if kind == "qrels":
        return [read_trec_qrels, read_trec_qrels_frame, lambda path: read_trec_qrels(path, encoding="latin-1")]
    if kind == "run":
        return [read_trec_run, lambda path: read_trec_run(path, ties="levels"), read_trec_run_frame]
    if kind == "trec_eval":
        return [read_trec_eval_output]
    if kind == "weps":
        return [read_weps_clustering, lambda path: read_weps_file(path).organization]
    return [lambda path, label=label, encoding=encoding: read_replab(path, label=label, encoding=encoding)
            for label, encoding in itertools.product((None, *LABELS), ("utf-8", "latin-1"))]


def organizations_in(result) -> list[Organization]:
    if isinstance(result, Organization):
        return [result]
    if isinstance(result, dict):
        return [org for value in result.values() for org in organizations_in(value)]
    return []


def only_results_or_workbench_errors(kind: str, data: bytes, folder) -> None:
    path = folder / ("input.xml" if kind == "weps" else "input")
    path.write_bytes(data)
    for read in readers(kind):  # each on its own: one reader's error must not hide another's crash
        try:
            result = read(path)
        except WorkbenchError as error:
            assert len(str(error)) < 1000, f"the message quotes too much input ({len(str(error))} characters)"
            continue
        for org in organizations_in(result):
            assert Organization.parse(org.format()) == org


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.data_too_large])
FUZZ_LONG = settings(FUZZ, max_examples=3000)


@pytest.mark.parametrize("kind", list(SEEDS))
def test_readers_give_results_or_workbench_errors(kind, folder):
    @FUZZ
    @given(inputs(kind))
    def check(data):
        only_results_or_workbench_errors(kind, data, folder)

    check()


@pytest.mark.parametrize("kind", list(SEEDS))
def test_readers_give_results_or_workbench_errors_long(kind, folder):
    @FUZZ_LONG
    @given(inputs(kind))
    def check(data):
        only_results_or_workbench_errors(kind, data, folder)

    check()


CLI_PAIRS = {"trec": ("qrels", "run", ["P@10", "AP"]), "replab": ("replab", "replab", ["R∼(missing=replab)"]),
             "weps": ("weps", "weps", ["Purity", "BCubed-F"])}


@pytest.mark.parametrize("pair", list(CLI_PAIRS))
def test_the_command_line_exits_0_or_2_on_any_input(pair, folder):
    gold_kind, run_kind, measures = CLI_PAIRS[pair]
    suffix = ".xml" if pair == "weps" else ""

    @settings(FUZZ, max_examples=40)
    @given(inputs(gold_kind), inputs(run_kind))
    def check(gold, run):
        (folder / f"gold{suffix}").write_bytes(gold)
        (folder / f"run{suffix}").write_bytes(run)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["eval", "--gold", str(folder / f"gold{suffix}"), "--run", str(folder / f"run{suffix}"),
                           "-m", *measures, "-q"])
        assert status in (0, 2)
        if status == 2:
            assert err.getvalue().startswith("workbench: error: ") and err.getvalue().count("\n") == 1

    check()

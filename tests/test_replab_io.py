"""RepLab TSV reader and writer: the real RepLab 2013 files, malformed lines, round trips, fuzzing."""

import csv
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import shared_dataset
from workbench.data.replab import ReplabEncodingError, ReplabFormatError, read_replab, write_replab
from workbench.errors import ParameterError
from workbench.model import Organization

TOPIC = "replab2013_topic_detection"
HEADER = '"entity_id"\t"tweet_id"\t"{}"\n'


def write(tmp_path: Path, text: str, name: str = "f.tsv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def lines(label: str, *rows: tuple[str, str, str]) -> str:
    return HEADER.format(label) + "".join(f'"{e}"\t"{t}"\t"{v}"\n' for e, t, v in rows)


# ------------------------------------------------------------------------------------------- real files
def test_topic_gold_is_latin1_and_utf8_reading_names_the_line():
    gold = shared_dataset(TOPIC, "replab2013_topic_detection_goldstandard.dat")
    with pytest.raises(ReplabEncodingError) as info:
        read_replab(gold)
    # line 56 holds "New products: M6 Gran Coupé" with é as the Latin-1 byte 0xe9
    assert info.value.line == 56 and info.value.path == str(gold)
    assert "0xe9" in str(info.value) and "latin-1" in str(info.value) and "Gran Coup" in str(info.value)
    orgs = read_replab(gold, encoding="latin-1")
    # the shared README: 2 entities, 1,440 tweets; the topic counts are those of the file's third column
    assert list(orgs) == ["RL2013D01E001", "RL2013D03E124"]
    assert sum(len(o.documents) for o in orgs.values()) == 1440
    assert [len(o.levels[0]) for o in orgs.values()] == [50, 44]
    assert all(o.finite and not o.rest and len(o.levels) == 1 for o in orgs.values())


def test_filtering_gold_gives_two_level_organizations():
    orgs = read_replab(shared_dataset("replab2013_filtering", "goldstandard_filtering.dat"))
    with open(shared_dataset("replab2013_filtering", "goldstandard_filtering.dat"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for entity, org in orgs.items():
        mine = [r for r in rows if r["entity_id"] == entity]
        related = {r["tweet_id"] for r in mine if r["filtering"] == "RELATED"}
        unrelated = {r["tweet_id"] for r in mine if r["filtering"] == "UNRELATED"}
        assert org.prioritised == related and org.rest == unrelated
        assert all(len(cluster) == 1 for cluster in org.levels[0])
    assert sum(len(o.prioritised) for o in orgs.values()) == 916  # RELATED lines in the file
    assert sum(len(o.rest) for o in orgs.values()) == 526  # UNRELATED lines


def test_filtering_gold_through_the_campaign_with_the_all_related_baseline(tmp_path):
    """The shared README's baseline for the filtering sample: every tweet RELATED. Its accuracy is the share of
    RELATED lines per entity (683 of 744 and 233 of 698 in goldstandard_filtering.dat), and its precision the
    same; recall is 1. Written with write_replab, read back, scored through Campaign and the registry."""
    from workbench.data.campaign import Campaign

    gold = read_replab(shared_dataset("replab2013_filtering", "goldstandard_filtering.dat"))
    baseline = {entity: Organization.from_filtering(sorted(org.documents), []) for entity, org in gold.items()}
    write_replab(baseline, tmp_path / "all_related", label="filtering")
    runs = {"all_related": read_replab(tmp_path / "all_related")}
    results = Campaign(gold, runs).evaluate(["Accuracy", "Precision", "Recall"], progress=False)
    scores = results.set_index(["topic", "measure"])["value"]
    for entity, share in (("RL2013D01E001", 683 / 744), ("RL2013D03E124", 233 / 698)):
        assert scores[(entity, "Accuracy")] == pytest.approx(share)
        assert scores[(entity, "Precision")] == pytest.approx(share)
        assert scores[(entity, "Recall")] == 1.0


def _official_rs(gold: Organization, output: Organization) -> tuple[float, float]:
    """The official RepLab R&S script as the shared README describes it, written naively over documents."""
    gold_topic = {d: c for c in gold.levels[0] for d in c}
    out_cluster = {d: c for c in output.levels[0] for d in c}
    r_sum = s_sum = 0.0
    for d, topic in gold_topic.items():
        mine = out_cluster.get(d)
        s_sum += 0.0 if mine is None else len(topic & mine) / len(topic)
        mine_gold = [x for x in (mine or ()) if x in gold_topic]
        r_sum += 1.0 if mine is None else sum(gold_topic[x] == topic for x in mine_gold) / len(mine_gold)
    return r_sum / len(gold_topic), s_sum / len(gold_topic)


def test_read_organizations_reproduce_the_official_rs_script():
    """What read_replab builds, scored by a naive transcription of the official script, gives the values of
    reference_RS_per_entity.tsv (official RepLab topic-detection R&S) to 1e-9."""
    folder = shared_dataset(TOPIC)
    gold = read_replab(folder / "replab2013_topic_detection_goldstandard.dat", encoding="latin-1")
    with open(folder / "reference_RS_per_entity.tsv", newline="") as f:
        reference = list(csv.DictReader(f, delimiter="\t"))
    assert len(reference) == 6
    for row in reference:
        run = read_replab(folder / "system-outputs" / Path(row["system"]).name)
        r, s = _official_rs(gold[row["entity"]], run[row["entity"]])
        assert r == pytest.approx(float(row["Reliability"]), abs=1e-9)
        assert s == pytest.approx(float(row["Sensitivity"]), abs=1e-9)


# ------------------------------------------------------------------------------------- the three labels
def test_topic_labels_give_clusters_in_order_of_first_appearance_with_overlap(tmp_path):
    rows = [("E", "t1", "B"), ("E", "t2", "A"), ("E", "t3", "B"), ("E", "t2", "B"), ("F", "t9", "A")]
    path = write(tmp_path, lines("topic", *rows))
    orgs = read_replab(path)
    assert orgs["E"] == Organization.from_clustering([["t1", "t3", "t2"], ["t2"]])
    assert orgs["F"].format() == "t9\nrest:"


def test_priority_labels_give_graded_levels_over_an_empty_rest(tmp_path):
    path = write(tmp_path, lines("priority", ("E", "t1", "UNIMPORTANT"), ("E", "t2", "ALERT"),
                                 ("E", "t3", "mildly_important"), ("E", "t4", "ALERT")))
    org = read_replab(path)["E"]
    assert org.format() == "[2] t2 t4\n[1] t3\n[0] t1\nrest:"
    numeric = write(tmp_path, lines("level", ("E", "a", "0.5"), ("E", "b", "3")), name="n.tsv")
    assert read_replab(numeric, label="priority")["E"].format() == "[3] b\n[0.5] a\nrest:"


def test_label_given_overrides_the_header_and_unknown_header_asks_for_it(tmp_path):
    path = write(tmp_path, lines("class", ("E", "t1", "RELATED")))
    with pytest.raises(ReplabFormatError, match=r"line 1: cannot tell the task .*'class'.*label="):
        read_replab(path)
    assert read_replab(path, label="filtering")["E"].format() == "t1\nrest:"
    with pytest.raises(ParameterError, match="read_replab: label must be one of"):
        read_replab(path, label="ranking")


def test_header_only_file_is_an_empty_campaign_and_blank_lines_are_skipped(tmp_path):
    assert read_replab(write(tmp_path, HEADER.format("topic") + "\n\n")) == {}
    crlf = write(tmp_path, lines("topic", ("E", "t1", "A")).replace("\n", "\r\n") + "\r\n", name="crlf.tsv")
    assert read_replab(crlf)["E"].format() == "t1\nrest:"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", None, "empty file"),
        ("\n  \n", None, "empty file"),
        ('"E"\t"t1"\t"RELATED"\n', 1, "the first line must be the header"),
        (HEADER.format("filtering") + '"E"\t"t1"\n', 2, "expected 3 tab-separated fields"),
        (HEADER.format("filtering") + '"E"\t"t1"\t"RELATED"\t"x"\n', 2, "got 4"),
        (HEADER.format("filtering") + '"E"\t"t1\t"RELATED"\n', 2, "text after the closing quote"),
        (HEADER.format("filtering") + '"E"\t"t1"\t"RELATED\n', 2, "never closed on its line"),
        (HEADER.format("filtering") + '"E"\t"t"1"\t"RELATED"\n', 2, "is written twice"),
        (HEADER.format("filtering") + 'E\tt"1\tRELATED\n', 2, "inside an unquoted field"),
        (HEADER.format("filtering") + '"E"\t"t1"\t"MAYBE"\n', 2, "RELATED or UNRELATED, got 'MAYBE'"),
        (HEADER.format("filtering") + '"E"\t"t1"\t"RELATED"\n"E"\t"t1"\t"UNRELATED"\n', 3, "on line 2"),
        (HEADER.format("topic") + '"E"\t"t1"\t"A"\n\n"E"\t"t1"\t"A"\n', 4, "topic 'A' is already on line 2"),
        (HEADER.format("topic") + '"E"\t"t1"\t""\n', 2, "empty topic label"),
        (HEADER.format("topic") + '"E"\t""\t"A"\n', 2, "empty entity_id or tweet_id"),
        (HEADER.format("priority") + '"E"\t"t1"\t"URGENT"\n', 2, "a priority label is one of"),
        (HEADER.format("priority") + '"E"\t"t1"\t"nan"\n', 2, "a finite number"),
        (HEADER.format("priority") + '"E"\t"t1"\t"ALERT"\n"E"\t"t1"\t"ALERT"\n', 3, "already on line 2"),
    ],
)
def test_malformed_files_raise_with_file_line_and_text(tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(ReplabFormatError, match=message) as info:
        read_replab(path)
    assert info.value.line == line and info.value.path == str(path)
    assert str(path) in str(info.value)
    if line is not None:
        assert info.value.text == text.split("\n")[line - 1]


def test_unreadable_file_and_unknown_encoding_are_named_errors(tmp_path):
    with pytest.raises(ReplabFormatError, match="cannot read the file"):
        read_replab(tmp_path / "absent.tsv")
    with pytest.raises(ParameterError, match="read_replab: encoding must be an encoding Python knows.*got 'klingon'"):
        read_replab(write(tmp_path, lines("topic", ("E", "t", "A"))), encoding="klingon")


# ------------------------------------------------------------------------------------------------ writing
def test_writer_refuses_what_the_format_cannot_hold(tmp_path):
    out = tmp_path / "out.tsv"
    with pytest.raises(ReplabFormatError, match="unlimited tail"):
        write_replab({"E": Organization.parse("{a b}")}, out)
    with pytest.raises(ReplabFormatError, match="filtering needs at most one level"):
        write_replab({"E": Organization.parse("a\nb\nrest: c")}, out, label="filtering")
    with pytest.raises(ReplabFormatError, match="topics need one level"):
        write_replab({"E": Organization.parse("{a b}\nrest: c")}, out, label="topic")
    with pytest.raises(ReplabFormatError, match="priority needs levels of single tweets"):
        write_replab({"E": Organization.parse("{a b}\nrest:")}, out, label="priority")
    with pytest.raises(ReplabFormatError, match="no tab, line break or NUL"):
        write_replab({"E\tF": Organization.parse("a\nrest:")}, out)
    with pytest.raises(ReplabEncodingError, match="cannot be written in ascii"):
        write_replab({"Coupé": Organization.parse("a\nrest:")}, out, encoding="ascii")
    assert not out.exists()


def test_latin1_gold_round_trips_through_utf8(tmp_path):
    path = shared_dataset(TOPIC, "replab2013_topic_detection_goldstandard.dat")
    gold = read_replab(path, encoding="latin-1")
    write_replab(gold, tmp_path / "gold.tsv")
    assert read_replab(tmp_path / "gold.tsv") == gold


# "No" (², ½…) is left out: workbench.model.natural_key, which orders documents, fails on them (reported).
ids = st.text(st.characters(blacklist_categories=("Cs", "No"), blacklist_characters="\t\r\n\0"), min_size=1,
              max_size=6)
tweet_ids = st.lists(ids, min_size=1, max_size=12, unique=True)


@st.composite
def organizations(draw, kind: str) -> Organization:
    tweets = draw(tweet_ids)
    if kind == "filtering":
        cut = draw(st.integers(0, len(tweets)))
        return Organization.from_filtering(tweets[:cut], tweets[cut:])
    if kind == "topic":
        labels = draw(st.lists(st.integers(0, 3), min_size=len(tweets), max_size=len(tweets)))
        clusters: dict[int, list[str]] = {}
        for tweet, label in zip(tweets, labels, strict=True):
            clusters.setdefault(label, []).append(tweet)
        return Organization.from_clustering(clusters.values())
    grade = st.sampled_from([2.0, 1.0, 0.0, 7.5, -1.0])
    grades = draw(st.lists(grade, min_size=len(tweets), max_size=len(tweets)))
    by_grade: dict[float, list[str]] = {}
    for tweet, grade in zip(tweets, grades, strict=True):
        by_grade.setdefault(grade, []).append(tweet)
    order = sorted(by_grade, reverse=True)
    return Organization(tuple(tuple(frozenset([t]) for t in by_grade[g]) for g in order), frozenset(), order)


@pytest.mark.parametrize("kind", ["filtering", "topic", "priority"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_write_then_read_is_lossless(tmp_path, kind, data):
    orgs = data.draw(st.dictionaries(ids, organizations(kind), min_size=1, max_size=3))
    path = tmp_path / f"{kind}.tsv"
    write_replab(orgs, path, label=kind)
    assert read_replab(path) == orgs
    first = path.read_bytes()
    write_replab(read_replab(path), path, label=kind)
    assert path.read_bytes() == first


field = st.one_of(
    st.sampled_from(['"E"', '"t1"', '"t2"', '"RELATED"', '"UNRELATED"', '"A"', "E", '""', '"', '"a""b"']),
    st.text(max_size=5),
)
line = st.lists(field, min_size=1, max_size=4).map("\t".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(label=st.sampled_from(["filtering", "topic", "priority"]), body=st.lists(line, max_size=6),
       encoding=st.sampled_from(["utf-8", "latin-1"]))
def test_fuzzed_lines_either_read_or_raise_the_named_error(tmp_path, label, body, encoding):
    path = tmp_path / "fuzz.tsv"
    path.write_bytes((HEADER.format(label) + "\n".join(body)).encode("utf-8", errors="surrogatepass"))
    try:
        orgs = read_replab(path, encoding=encoding)
    except ReplabFormatError as error:
        assert str(path) in str(error)
    else:
        assert all(isinstance(org, Organization) and org.finite for org in orgs.values())

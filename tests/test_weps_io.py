"""WePS clustering XML: both dialects, discarded documents, directories, runs, writer, round trip, errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import shared_dataset
from workbench.data.weps import (
    WepsFormatError,
    align_topics,
    read_weps_clustering,
    read_weps_discarded,
    read_weps_file,
    read_weps_runs,
    read_weps_topics,
    topic_key,
    write_weps_clustering,
    write_weps_topic,
)
from workbench.errors import ParameterError
from workbench.model import Organization

WEPS1 = """<clustering name="Jane Doe">
\t<entity id="0">
\t\t<doc rank="0" />
\t\t<doc rank="5" />
\t</entity>
\t<entity id="1">
\t\t<doc rank="1" />
\t\t<doc rank="5" />
\t</entity>
\t<discarded>
\t\t<doc rank="8" />
\t</discarded>
</clustering>
"""


def test_weps2007_truth_files():
    """weps2007 README: Michael_Howard has 8 documents in two entities; discarded documents kept apart."""
    topics = read_weps_topics(shared_dataset("weps2007", "truth_files"))
    assert sorted(topics) == ["Abby_Watkins", "Andrew_Powell", "Cathie_Ely", "Charlotte_Bergeron",
                              "Michael_Howard"]
    mh = topics["Michael_Howard"]
    clusters = mh.organization.levels[0]
    assert len(clusters) == 32 and len(mh.organization.prioritised) == 91
    assert mh.organization.n_occurrences == 101
    in_two = [d for d in mh.organization.prioritised if sum(d in c for c in clusters) > 1]
    assert len(in_two) == 8
    assert mh.discarded == frozenset({"25", "31", "41", "63", "74", "85", "71", "93"})
    assert not mh.discarded & mh.organization.prioritised
    assert mh.dialect == "weps2007" and mh.entity_ids[:3] == ("0", "1", "2")
    assert read_weps_discarded(shared_dataset("weps2007", "truth_files"))["Michael_Howard"] == mh.discarded


def test_weps2_one_line_dialect():
    topics = read_weps_topics(shared_dataset("weps2", "gold_standard"))
    amanda = topics["AMANDA_LENTZ"]
    assert amanda.dialect == "weps2" and amanda.declared_name == "AMANDA LENTZ"
    assert len(amanda.organization.levels[0]) == 20 and len(amanda.discarded) == 46
    assert amanda.entity_ids[0] == "19"


def test_systems_dir_runs_and_topic_matching():
    runs = read_weps_runs(shared_dataset("weps2007", "systemsDir"))
    assert list(runs) == ["TEAM_A"] and len(runs["TEAM_A"]) == 5
    gold = read_weps_clustering(shared_dataset("weps2007", "truth_files"))
    renamed = {name.upper().replace("_", " "): org for name, org in runs["TEAM_A"].items()}
    assert align_topics(gold, renamed) == runs["TEAM_A"]
    assert topic_key("Michael  Howard") == topic_key("MICHAEL_HOWARD")
    with pytest.raises(WepsFormatError, match="'Nobody' matches no gold topic"):
        align_topics(gold, {"Nobody": Organization.from_clustering([["1"]])})


@pytest.mark.parametrize("folder", [("weps2007", "truth_files"), ("weps2007", "systemsDir", "TEAM_A"),
                                    ("weps2", "gold_standard")])
def test_real_files_round_trip(tmp_path, folder):
    """Read, write back in the file's own dialect with its entity ids and name, read again: equal."""
    for name, topic in read_weps_topics(shared_dataset(*folder)).items():
        path = write_weps_topic(tmp_path / f"{name}.clust.xml", topic)
        assert read_weps_file(path) == topic


clusterings = st.lists(st.lists(st.integers(0, 40).map(str), min_size=1, max_size=6, unique=True),
                       max_size=6)


@settings(max_examples=100, deadline=None)
@given(clusterings, st.lists(st.integers(100, 120).map(str), unique=True, max_size=4),
       st.sampled_from(["weps2007", "weps2"]))
def test_writer_round_trip_is_lossless(tmp_path_factory, clusters, discarded, dialect):
    org = Organization.from_clustering(clusters)
    folder = tmp_path_factory.mktemp("weps")
    files = write_weps_clustering(folder, {"Some_Name": org}, discarded={"Some_Name": discarded},
                                  dialect=dialect)
    assert [f.name for f in files] == ["Some_Name.clust.xml"]
    assert read_weps_clustering(folder) == {"Some_Name": org}
    assert read_weps_discarded(folder) == {"Some_Name": frozenset(discarded)}


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.one_of(st.sampled_from(["../x", "/abs", "a/b", "..", ".", "", "a\\b", "ok", "Jane_Doe"]),
                                 st.text(max_size=8)), clusterings, min_size=1, max_size=4))
def test_topics_are_plain_file_names_and_folders_are_written_whole(tmp_path_factory, topics):
    """A topic that would be written outside the folder (a path, '..', empty) is refused and nothing is written,
    not even the other topics' files; otherwise every topic reads back equal."""
    organizations = {name: Organization.from_clustering(clusters) for name, clusters in topics.items()}
    folder = tmp_path_factory.mktemp("weps") / "out"
    plain = all(name and name not in (".", "..") and not any(c in name for c in "/\\\0") for name in topics)
    if not plain:
        with pytest.raises(WepsFormatError, match="not a plain file name|which an XML file cannot carry"):
            write_weps_clustering(folder, organizations)
        assert sorted(p.name for p in folder.parent.iterdir()) == []
        return
    try:
        written = write_weps_clustering(folder, organizations)
    except WepsFormatError as error:  # a name the format itself cannot hold (a control character, say)
        assert "which an XML file cannot carry" in str(error)
        assert sorted(p.name for p in folder.parent.iterdir()) == []
        return
    assert sorted(p.name for p in written) == sorted(p.name for p in folder.iterdir())
    assert [p.name for p in folder.parent.iterdir()] == ["out"]  # no temporary folder left
    assert read_weps_clustering(folder) == organizations


def test_single_file_write_and_read(tmp_path):
    path = tmp_path / "Jane_Doe.clust.xml"
    path.write_text(WEPS1)
    topic = read_weps_file(path)
    assert topic.topic == "Jane_Doe" and topic.declared_name == "Jane Doe"
    assert topic.organization == Organization.from_clustering([["0", "5"], ["1", "5"]])
    assert topic.discarded == {"8"}
    out = tmp_path / "out.xml"
    write_weps_clustering(out, topic.organization, topic="Jane Doe", discarded=["8"])
    assert read_weps_file(out).organization == topic.organization


def bad(tmp_path, text, name="bad.clust.xml"):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(WepsFormatError) as info:
        read_weps_file(path)
    return info.value


def test_errors_name_file_line_and_text(tmp_path):
    error = bad(tmp_path, WEPS1.replace('<doc rank="1" />', '<doc rank="1 />'))
    assert error.line == 8 and "not well-formed XML" in str(error) and "bad.clust.xml, line 8, column" in str(error)
    assert error.text.strip() == '<doc rank="5" />'
    error = bad(tmp_path, WEPS1.replace('<doc rank="1" />', '<doc rank="1" >'))
    assert error.line == 8 and "unexpected <doc> nested in <doc>" in str(error)
    error = bad(tmp_path, WEPS1.replace('<doc rank="5" />\n\t</entity>\n\t<entity id="1">',
                                        '<doc />\n\t</entity>\n\t<entity id="1">'))
    assert error.line == 4 and "without a rank" in str(error) and "<doc />" in str(error)
    assert "root element is <html>" in str(bad(tmp_path, "<html><body/></html>"))
    assert "unexpected <person>" in str(bad(tmp_path, WEPS1.replace("entity", "person")))
    assert "unexpected <note>" in str(bad(tmp_path, WEPS1.replace('<doc rank="8" />', "<note/>")))
    error = bad(tmp_path, WEPS1.replace('<doc rank="1" />', '<doc rank="5" />'))
    assert "document '5' twice in entity '1'" in str(error) and error.line == 8
    assert "both in an entity and discarded" in str(bad(tmp_path, WEPS1.replace('rank="8"', 'rank="0"')))
    assert "has no <doc>" in str(bad(tmp_path, "<clustering><entity id='3'></entity></clustering>"))
    assert "empty file" in str(bad(tmp_path, "  \n"))
    latin1 = tmp_path / "latin1.clust.xml"
    latin1.write_bytes(WEPS1.replace('name="Jane Doe"', 'name="Jos\xe9"').encode("latin-1"))
    with pytest.raises(WepsFormatError, match=r"latin1.clust.xml, line 1, column \d+: not well-formed XML"):
        read_weps_file(latin1)
    with pytest.raises(WepsFormatError, match="no such file or directory"):
        read_weps_clustering(tmp_path / "missing")
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    with pytest.raises(WepsFormatError, match="no .xml WePS clustering files"):
        read_weps_clustering(empty)
    with pytest.raises(WepsFormatError, match="holds no team folder"):
        read_weps_runs(empty)


def test_duplicate_topics_in_a_directory(tmp_path):
    (tmp_path / "Jane_Doe.clust.xml").write_text(WEPS1)
    (tmp_path / "jane doe.xml").write_text(WEPS1)
    with pytest.raises(WepsFormatError, match="also read from"):
        read_weps_clustering(tmp_path)


def test_writer_refuses_what_the_format_cannot_hold(tmp_path):
    with pytest.raises(WepsFormatError, match="one level of entities"):
        write_weps_clustering(tmp_path / "x.xml", Organization.parse("d1\nd2"))
    with pytest.raises(WepsFormatError, match="both clustered and discarded"):
        write_weps_clustering(tmp_path / "x.xml", Organization.from_clustering([["1"]]), discarded=["1"])
    with pytest.raises(ParameterError, match="write_weps_clustering: dialect must be one of weps2007, weps2"):
        write_weps_clustering(tmp_path / "x.xml", Organization.from_clustering([["1"]]), dialect="weps3")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, WEPS1.count("\n")), st.text(max_size=40))
def test_fuzzed_lines_raise_only_the_named_error(tmp_path_factory, position, line):
    """Insert an arbitrary line anywhere: the reader either reads it (and the result round-trips) or raises
    WepsFormatError naming the file; never an XML parser or decoding traceback."""
    lines = WEPS1.split("\n")
    lines.insert(position, line)
    path = tmp_path_factory.mktemp("fuzz") / "f.clust.xml"
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    try:
        topic = read_weps_file(path)
    except WepsFormatError as error:
        assert error.path == str(path)
    else:
        again = read_weps_file(write_weps_topic(path.with_name("again.clust.xml"), topic))
        assert (again.organization, again.discarded) == (topic.organization, topic.discarded)

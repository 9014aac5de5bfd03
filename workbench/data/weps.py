"""WePS clustering XML (WePS-1 2007 and WePS-2 dialects): read into Organizations, write back.

A file holds one topic (a person name)::

    <clustering name="Michael_Howard">              WePS-1 (pretty-printed; ``name=`` optional)
      <entity id="0"><doc rank="0"/><doc rank="5"/></entity>
      <discarded><doc rank="8"/></discarded>
    </clustering>

WePS-2 writes it on one line, with ``searchString=`` on ``<clustering>`` and ``name``/``notes`` attributes
on entities and documents. Each entity is a cluster of documents (named by their ``rank``); a document may
be in several entities (overlap). ``<discarded>`` documents are kept apart, out of the Organization, and so
out of evaluation (WePS data README: "Discarded pages are not taken into account for the evaluation").

    >>> topics = read_weps_clustering("truth_files/")          # doctest: +SKIP
    >>> runs = read_weps_runs("systemsDir/")       # {team: {topic: Organization}}  # doctest: +SKIP

A directory is a set of topics (its ``*.xml`` files, gzip-compressed ``*.xml.gz`` too; topic = file name without
``.clust.xml``/``.xml``);
``systemsDir/<TEAM>/`` holds one run per team. Topic names match case- and ``_``/space-insensitively
(:func:`topic_key`, :func:`align_topics`). Every malformed input raises :class:`WepsFormatError` naming the
file, line and offending text, never an XML parser traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from xml.parsers import expat
from xml.sax.saxutils import quoteattr

from workbench.data.files import write_folder, write_whole
from workbench.errors import InputError
from workbench.model import Organization, OrganizationError, natural_key
from workbench.reading.positions import LineIndex
from workbench.reading.sources import file_path, read_input
from workbench.validation import AnyOf, Choices, FilePath, Instance, ListOf, MappingOf, Text, validate

__all__ = ["DIALECTS", "DIALECT", "WepsFormatError", "WepsTopic", "topic_key", "read_weps_file", "read_weps_topics",
           "read_weps_clustering", "read_weps_discarded", "read_weps_runs", "align_topics", "write_weps_clustering",
           "write_weps_topic"]

DIALECTS = ("weps2007", "weps2")
DIALECT = Choices(DIALECTS)
"""The WePS file layouts written (``dialect=``): WePS-1's (2007) and WePS-2's."""
_DECLARED_ENCODING = re.compile(rb"""<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']""")


class WepsFormatError(InputError):
    """Malformed WePS clustering input: ``path``, ``line`` (1-based), ``column`` and the offending ``text``."""


@dataclass(frozen=True)
class WepsTopic:
    """One WePS file: its topic, clustering, discarded documents, entity ids and declared name."""

    topic: str
    organization: Organization
    discarded: frozenset[str]
    entity_ids: tuple[str, ...]
    declared_name: str | None = None
    dialect: str = "weps2007"


def topic_key(name: str) -> str:
    """How topic names are matched: case-, ``_``- and space-insensitively (``"Amanda Lentz"`` ≡
    ``"AMANDA_LENTZ"``).

    >>> topic_key("Amanda  Lentz") == topic_key("AMANDA_LENTZ")
    True
    """
    return re.sub(r"[\s_]+", "_", name.strip()).casefold()


def _topic_of(path: Path) -> str:
    name = path.name
    for suffix in (".clust.xml.gz", ".xml.gz", ".clust.xml", ".xml"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


# --------------------------------------------------------------------------------------- reading
def read_weps_file(path: str | Path) -> WepsTopic:
    """Read one WePS clustering file (either dialect) into a :class:`WepsTopic`."""
    path = Path(file_path(path))
    return _parse(read_input(path, WepsFormatError), path)


def _parse(data: bytes, path: Path) -> WepsTopic:
    lines = LineIndex(data)

    def fail(message: str, line: int | None, column: int | None = None):
        text = lines.line(line).strip() if line and 0 < line <= len(lines) else None
        raise WepsFormatError(message, path=path, line=line, column=column, text=text or None)

    if not data.strip():
        fail("empty file: expected a WePS <clustering> document", None)
    parser = expat.ParserCreate()
    stack: list[str] = []
    entities: list[tuple[str, list[str], int]] = []
    discarded: list[str] = []
    state: dict[str, object] = {"declared": None, "dialect": "weps2007", "root_seen": False}

    def start(tag: str, attrs: dict[str, str]) -> None:
        line = parser.CurrentLineNumber
        column = parser.CurrentColumnNumber + 1
        depth = len(stack)
        if depth == 0:
            if tag != "clustering":
                fail(f"not a WePS clustering file: root element is <{tag}>, expected <clustering>", line, column)
            state["root_seen"] = True
            if "searchString" in attrs:
                state["declared"], state["dialect"] = attrs["searchString"], "weps2"
            elif "name" in attrs:
                state["declared"] = attrs["name"]
        elif depth == 1:
            if tag == "entity":
                entities.append((attrs.get("id", str(len(entities))), [], line))
                if "notes" in attrs:
                    state["dialect"] = "weps2"
            elif tag != "discarded":
                fail(f"unexpected <{tag}> in <clustering>: expected <entity> or <discarded>", line, column)
        elif depth == 2:
            if tag != "doc":
                fail(f"unexpected <{tag}> in <{stack[-1]}>: expected <doc rank=...>", line, column)
            rank = attrs.get("rank", "").strip()
            if not rank:
                fail("<doc> without a rank attribute", line, column)
            if stack[-1] == "entity":
                members = entities[-1][1]
                if rank in members:
                    fail(f"document {rank!r} twice in entity {entities[-1][0]!r}", line, column)
                members.append(rank)
            else:
                discarded.append(rank)
        else:
            fail(f"unexpected <{tag}> nested in <{stack[-1]}>", line, column)
        stack.append(tag)

    def end(tag: str) -> None:
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        fail(f"not well-formed XML: {expat.ErrorString(error.code)}", error.lineno, error.offset + 1)
    except WepsFormatError:
        raise
    except (LookupError, ValueError) as error:  # an encoding Python lacks, or expat cannot use (multi-byte)
        declared = _DECLARED_ENCODING.search(data[:200])
        name = declared.group(1).decode("ascii", "replace") if declared else "?"
        fail(f"cannot read the encoding {name!r} the XML declaration names ({error}); save the file as UTF-8",
             1 if declared else None)
    empty = [(eid, line) for eid, members, line in entities if not members]
    if empty:
        fail(f"entity {empty[0][0]!r} has no <doc>", empty[0][1])
    clustered = {doc for _, members, _ in entities for doc in members}
    both = sorted(clustered & set(discarded), key=natural_key)
    if both:
        fail(f"document {both[0]!r} is both in an entity and discarded", None)
    try:
        organization = Organization.from_clustering([members for _, members, _ in entities])
    except OrganizationError as error:  # pragma: no cover - the checks above catch what it checks
        fail(str(error), None)
    return WepsTopic(_topic_of(path), organization, frozenset(discarded),
                     tuple(eid for eid, _, _ in entities), state["declared"], state["dialect"])


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.name.lower().endswith((".xml", ".xml.gz")))
        if not files:
            raise WepsFormatError("directory holds no .xml WePS clustering files", path=path)
        return files
    if not path.exists():
        raise WepsFormatError("no such file or directory", path=path)
    return [path]


def read_weps_topics(path: str | Path) -> dict[str, WepsTopic]:
    """Every topic of a file or directory, as :class:`WepsTopic` (clustering, discarded, ids)."""
    topics: dict[str, WepsTopic] = {}
    keys: dict[str, Path] = {}
    for file in _files(Path(file_path(path))):
        topic = read_weps_file(file)
        key = topic_key(topic.topic)
        if key in keys:
            raise WepsFormatError(f"topic {topic.topic!r} also read from {keys[key].name}", path=file)
        keys[key] = file
        topics[topic.topic] = topic
    return topics


@validate(path=FilePath())
def read_weps_clustering(path: str | Path) -> dict[str, Organization]:
    """``{topic: Organization}`` from a WePS file (one topic) or a directory of them (discarded left out).

    Documents are named by their ``rank``; see :func:`read_weps_discarded` for the discarded ones.
    """
    return {name: t.organization for name, t in read_weps_topics(path).items()}


def read_weps_discarded(path: str | Path) -> dict[str, frozenset[str]]:
    """``{topic: discarded documents}`` of a WePS file or directory (the companion of
    :func:`read_weps_clustering`)."""
    return {name: t.discarded for name, t in read_weps_topics(path).items()}


@validate(systems_dir=FilePath())
def read_weps_runs(systems_dir: str | Path) -> dict[str, dict[str, Organization]]:
    """``{team: {topic: Organization}}`` from the scorer's ``systemsDir/<TEAM>/<topic>.clust.xml`` layout."""
    root = Path(file_path(systems_dir, "systems_dir"))
    if not root.is_dir():
        raise WepsFormatError("not a directory of team folders (systemsDir/<TEAM>/)", path=root)
    teams = sorted(p for p in root.iterdir() if p.is_dir())
    if not teams:
        raise WepsFormatError("holds no team folder (systemsDir/<TEAM>/<topic>.clust.xml)", path=root)
    return {team.name: read_weps_clustering(team) for team in teams}


def align_topics(gold: Mapping[str, object], run: Mapping[str, Organization]) -> dict[str, Organization]:
    """The run keyed by the gold's topic names, matching with :func:`topic_key`.

    Run topics absent from the gold raise :class:`WepsFormatError`; gold topics absent from the run are
    simply absent from the result (the campaign's missing-topic policy decides).
    """
    by_key = {topic_key(name): name for name in gold}
    aligned: dict[str, Organization] = {}
    for name, organization in run.items():
        key = topic_key(name)
        if key not in by_key:
            raise WepsFormatError(f"run topic {name!r} matches no gold topic")
        if by_key[key] in aligned:
            raise WepsFormatError(f"run topics {name!r} and another both match gold topic {by_key[key]!r}")
        aligned[by_key[key]] = organization
    return aligned


# --------------------------------------------------------------------------------------- writing
TOPIC, ENTITY, DOCUMENT = "topic", "entity id", "document"  # what an attribute holds, for messages
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _attribute(value: str, what: str) -> str:
    """The value as a quoted XML attribute; refused when it holds a character XML 1.0 cannot carry."""
    found = _NOT_XML.search(value)
    if found:
        raise WepsFormatError(f"{what} {value!r} holds {found.group()!r}, which an XML file cannot carry")
    return quoteattr(value)


def _format(organization: Organization, topic: str | None, discarded: Iterable[str], dialect: str,
            entity_ids: Iterable[str] | None) -> str:
    if len(organization.levels) > 1:
        raise WepsFormatError(f"a WePS clustering has one level of entities; topic {topic!r} has "
                              f"{len(organization.levels)}")
    clusters = list(organization.levels[0]) if organization.levels else []
    ids = list(entity_ids) if entity_ids is not None else [str(i) for i in range(len(clusters))]
    if len(ids) != len(clusters):
        raise WepsFormatError(f"{len(ids)} entity ids for {len(clusters)} entities of topic {topic!r}")
    discarded = sorted(discarded, key=natural_key)
    clash = sorted(set(discarded) & organization.prioritised, key=natural_key)
    if clash:
        raise WepsFormatError(f"document {clash[0]!r} of topic {topic!r} is both clustered and discarded")
    if dialect == "weps2":
        named = f" searchString={_attribute(topic, TOPIC)}" if topic is not None else ""
        head = f'<?xml version="1.0" encoding="UTF-8"?><clustering{named}>'
        body = "".join(
            f'<entity id={_attribute(eid, ENTITY)} name= "" notes= "">'
            + "".join(f"\t<doc rank={_attribute(d, DOCUMENT)} notes= \"\" />" for d in sorted(c, key=natural_key))
            + "</entity>"
            for eid, c in zip(ids, clusters, strict=True))
        tail = ("<discarded>" + "".join(f"\t<doc rank={_attribute(d, DOCUMENT)} />" for d in discarded) + "</discarded>"
                if discarded else "")
        return head + body + tail + "</clustering>"
    named = f" name={_attribute(topic, TOPIC)}" if topic is not None else ""
    out = ['<?xml version="1.0" encoding="utf-8"?>', f"<clustering{named}>"]
    for eid, cluster in zip(ids, clusters, strict=True):
        out.append(f"\t<entity id={_attribute(eid, ENTITY)}>")
        out += [f"\t\t<doc rank={_attribute(d, DOCUMENT)} />" for d in sorted(cluster, key=natural_key)]
        out.append("\t</entity>")
    if discarded:
        out.append("\t<discarded>")
        out += [f"\t\t<doc rank={_attribute(d, DOCUMENT)} />" for d in discarded]
        out.append("\t</discarded>")
    out.append("</clustering>")
    return "\n".join(out) + "\n"


@validate(path=FilePath(), organizations=AnyOf(Instance((Organization,), "an Organization"), MappingOf(
    values=Instance((Organization,), "an Organization"), what="a mapping topic → Organization")),
          topic=Text(optional=True), discarded=AnyOf(ListOf(Text(empty=True)), MappingOf(
              values=ListOf(Text(empty=True)), what="a mapping topic → discarded documents"),
              what="discarded documents (a set), or a mapping topic → set"), dialect=DIALECT)
def write_weps_clustering(path: str | Path, organizations: Organization | Mapping[str, Organization], *,
                          topic: str | None = None,
                          discarded: Iterable[str] | Mapping[str, Iterable[str]] = (),
                          dialect: str = "weps2007") -> list[Path]:
    """Write one topic to ``path`` (an Organization), or a ``{topic: Organization}`` mapping as
    ``path/<topic>.clust.xml`` files; returns the files written. ``discarded`` is a set (one topic) or a
    ``{topic: set}`` mapping. ``read_weps_clustering`` reads back equal Organizations (the round trip).

    All or nothing: every file is formatted first, so that a refusal (a topic name that is not a plain file name,
    ``../x`` or ``a/b``, or what a WePS file cannot hold) leaves the target untouched; then the files are written
    beside it and moved into place."""
    path = Path(file_path(path))
    if isinstance(organizations, Organization):
        name = topic or _topic_of(path)
        docs = discarded if not isinstance(discarded, Mapping) else discarded.get(name, ())
        write_whole(path, _format(organizations, name, docs, dialect, None).encode("utf-8"))
        return [path]
    texts = {}
    for name, organization in organizations.items():
        docs = discarded.get(name, ()) if isinstance(discarded, Mapping) else ()
        texts[f"{_plain_file_name(name)}.clust.xml"] = _format(organization, name, docs, dialect, None).encode("utf-8")
    write_folder(path, texts)
    return [path / file for file in texts]


def _plain_file_name(topic) -> str:
    """The topic as a file name in its folder, refused when it would name another place (a path, ``..``)."""
    text = str(topic)
    if not text or text in (".", "..") or any(c in text for c in "/\\\0") or Path(text).name != text:
        raise WepsFormatError(f"topic {text!r} is not a plain file name (no '/', '\\', '..' or empty name): its file "
                              "would be written outside the folder; rename the topic")
    return text


def write_weps_topic(path: str | Path, topic: WepsTopic) -> Path:
    """Write a :class:`WepsTopic` back in its own dialect, entity ids kept."""
    path = Path(file_path(path))
    write_whole(path, _format(topic.organization, topic.declared_name, topic.discarded, topic.dialect,
                              topic.entity_ids).encode("utf-8"))
    return path

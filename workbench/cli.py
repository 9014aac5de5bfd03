"""``python -m workbench``: evaluate runs against a gold standard, compare systems, print the Table 9 demo.

    python -m workbench eval --gold qrels.test --run results.test -m AP nDCG@10 P@10 RR
    python -m workbench eval --gold gold.dat --gold-encoding latin-1 --run sysA sysB -m "R∼(missing=replab)"
    python -m workbench eval --encoding latin-1 --gold qrels.gz --run run.gz -m AP
    python -m workbench compare --gold qrels --run a.run b.run -m P@10 RR
    zcat run.gz | python -m workbench eval --gold qrels --run - -m RR --format jsonl
    python -m workbench demo

A gold topic a run lacks scores without credit (0 on ranking measures, each other measure's worst value), so a
mean is over every judged topic, as in ``Campaign.evaluate``
(``--missing skip`` averages over the topics each run has, trec_eval's own default). Scores are printed to 4
decimals; ``--per-topic`` adds one row per topic before the ``all`` rows (``-q``). ``--stream`` scores TREC run
files one block of whole topics at a time, for runs larger than memory (:mod:`workbench.data.streamed`). ``-``
as ``--gold`` or a ``--run`` reads standard input; ``--format json`` prints one object, ``jsonl`` one tidy row per line
(:mod:`workbench.shell`). Files may be gzip-compressed (any name). Bad arguments or files — any
:class:`~workbench.errors.WorkbenchError` — exit with status 2 (the trec_eval drop-in: trec_eval 10.0's own) and
a one-line message; output that cannot be written, with status 1; any other exception is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import re
import sys
import warnings

from workbench._version import __version__
from workbench.data.campaign import COLUMNS
from workbench.errors import OutputError, ParameterError, WorkbenchError, excerpt
from workbench.escape import latex_escape, markdown_escape
from workbench.heap import keep_freed_memory, small_pages
from workbench.shell import (
    JSON_FORMATS,
    Table,
    dumps,
    emit,
    eval_json,
    jsonl_rows,
    records,
    say,
    table_of,
    tables_json,
)

__all__ = ["FORMATS", "OUTPUTS", "CliError", "text_table", "render", "cmd_eval", "cmd_compare", "cmd_demo",
           "build_parser", "SIGPIPE_STATUS", "INTERRUPTED_STATUS", "main"]

FORMATS = ("auto", "trec", "replab", "weps")
OUTPUTS = ("table", "csv", "markdown", "latex", *JSON_FORMATS)


class CliError(ParameterError):
    """A problem with the command line's arguments or files: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage + message
        raise CliError(f"{message} (see {self.prog} --help)")

    def _print_message(self, message: str, file=None) -> None:  # help and usage: the shell's output rules
        if message and (file is None or file is sys.stdout):
            emit(message)
        elif message:
            say(message.rstrip("\n"))


# ----------------------------------------------------------------------------------------------- printing


def _wide(table: Table) -> Table:
    """The tidy rows as a system × measure table (system, topic × measure when there are several topics)."""
    by_topic = len({row[1] for row in table.rows}) > 1
    measures = list(dict.fromkeys(row[2] for row in table.rows))
    cells: dict[tuple, dict[str, float]] = {}
    for system, topic, measure, value in table.rows:
        cells.setdefault((system, topic) if by_topic else (system,), {})[measure] = value
    keys = ["system", "topic"] if by_topic else ["system"]
    return Table([*keys, *measures], [(*key, *(values.get(m, float("nan")) for m in measures))
                                      for key, values in cells.items()])


def _cell(value) -> str:
    return value if isinstance(value, str) else str(value) if isinstance(value, bool | int) else f"{value:.4f}"


def _csv_cell(value):
    """As pandas writes a CSV cell: NaN empty, numbers in full precision (the shortest round-tripping decimal)."""
    return "" if isinstance(value, float) and math.isnan(value) else value


def text_table(table: Table, fmt: str) -> str:
    """A table as CSV, an aligned table, markdown or LaTeX (floats to 4 decimals; names escaped so that they show
    as typed), a JSON array of row objects or JSON lines (NaN as null). CSV and JSON print every float at full
    precision, one rule for both: the shortest decimal that reads back as the same double (Python's ``repr``)."""
    if fmt in JSON_FORMATS:
        return jsonl_rows(table) if fmt == "jsonl" else dumps(records(table)) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows([_csv_cell(value) for value in row] for row in table.rows)
        return out.getvalue()
    header = [str(c) for c in table.columns]
    cells = [[_cell(v) for v in row] for row in table.rows]
    if fmt == "table":
        widths = [max(len(x) for x in column) for column in zip(header, *cells, strict=True)]
        return "".join("  ".join(x.rjust(w) for x, w in zip(row, widths, strict=True)).rstrip() + "\n"
                       for row in [header, *cells])
    if fmt == "markdown":
        lines = ["| " + " | ".join(map(markdown_escape, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(map(markdown_escape, row)) + " |" for row in cells]
        return "\n".join(lines) + "\n"

    numeric = [all(isinstance(row[i], int | float) and not isinstance(row[i], bool) for row in table.rows)
               for i in range(len(header))]
    lines = ["\\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}", "\\hline",
             " & ".join(map(latex_escape, header)) + r" \\", "\\hline"]
    lines += [" & ".join(map(latex_escape, row)) + r" \\" for row in cells]
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _counts_as_integers(table: Table) -> Table:
    """The value cells of counts (measures summed over topics: ``NumRet``...) as integers where they are whole,
    as trec_eval prints them."""
    from workbench.metrics.registry import aggregate

    counts = {measure for measure in {row[2] for row in table.rows} if aggregate(str(measure)) == "sum"}
    return Table(table.columns, [(*row[:3], int(row[3])) if row[2] in counts and isinstance(row[3], float)
                                 and row[3].is_integer() else row for row in table.rows])


def render(table: Table, fmt: str) -> str:
    """The tidy rows ``system, topic, measure, value``: long for CSV and the aligned table (trec_eval's layout;
    counts printed as integers) and JSON lines, a system × measure table for markdown and LaTeX."""
    if fmt == "table":
        table = _counts_as_integers(table)
    return text_table(table if fmt in ("csv", "table", *JSON_FORMATS) else _wide(table), fmt)


# ----------------------------------------------------------------------------------------------- commands
def _measures(args) -> list:
    """The ``-m`` measures with trec_eval's ``-l`` (their ``rel``) and ``-J`` (their ``judged_only``) applied
    where a name leaves the parameter at its default; ``-J`` on a measure without ``judged_only`` is refused."""
    from workbench.metrics.registry import parse, with_defaults

    settings = {"rel": args.level} if args.level is not None else {}
    if args.judged_only:
        lacking = [name for name in args.measures if "judged_only" not in parse(name).spec.params]
        if lacking:
            raise CliError(f"-J applies to the measures with a judged_only parameter (trec_eval's and "
                           f"ir_measures'); {', '.join(map(repr, lacking))} ha{'ve' if len(lacking) > 1 else 's'} "
                           "none")
        settings["judged_only"] = True
    return [with_defaults(name, **settings) for name in args.measures] if settings else args.measures


def _results(args):
    """The campaign's scores (:class:`~workbench.data.campaign.Scores`: plain columns, no pandas); what the readers
    and the campaign said is printed as ``note:`` lines when the command succeeds (a failing one prints its one
    error line only)."""
    from workbench.data.read import read_campaign
    from workbench.data.replab import ReplabEncodingError
    from workbench.data.trec.costs import read_cwl_costs
    from workbench.data.trec.errors import TrecEncodingError

    if args.complete and args.missing not in (None, "zero"):
        raise CliError(f"-c (--complete) scores the topics a run lacks, --missing {args.missing} does not: "
                       "give one of them")
    policy = args.missing or "zero"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        streamed = _streaming(args)
        try:
            if streamed:
                scores = _streamed_results(args, policy)
            else:
                campaign = read_campaign(args.gold, args.run, gold_format=args.gold_format,
                                         run_format=args.run_format, encoding=args.encoding,
                                         gold_encoding=args.gold_encoding, run_encoding=args.run_encoding,
                                         label=args.label, max_docs=args.max_docs,
                                         score_precision=args.score_precision,
                                         costs=None if args.costs is None else read_cwl_costs(args.costs))
        except (ReplabEncodingError, TrecEncodingError) as error:
            raise CliError(f"{error} (on the command line: --gold-encoding latin-1 or --run-encoding latin-1, or "
                           "--encoding for every file)") from None
        if not streamed:
            scores = campaign._score(_measures(args), missing_topics=policy, extra_topics=args.extra,
                                     progress=not args.quiet)
    for warning in caught:
        say(f"workbench: note: {warning.message}")
    return scores


def _streaming(args) -> bool:
    """Whether the runs are streamed (:mod:`workbench.data.streamed`): ``--stream``, or without ``--no-stream`` a
    run file too large for the memory available (:func:`~workbench.data.streamed.should_stream`); TREC runs and
    qrels from files only, without ``--costs`` (``--stream`` refuses the others)."""
    from workbench.data.read import sniff_format
    from workbench.data.streamed import should_stream

    if args.stream is False or (args.stream is None and not any(should_stream(run) for run in args.run)):
        return False
    files = [(args.gold, args.gold_format), *((run, args.run_format) for run in args.run)]
    why = ("--costs" if args.costs is not None else
           "standard input" if any(path == "-" for path, _ in files) else
           "a file that is not TREC's" if any((fmt if fmt != "auto" else sniff_format(path)) != "trec"
                                             for path, fmt in files) else "")
    if why and args.stream:
        raise CliError(f"--stream reads TREC run files against TREC qrels, one block of topics at a time ({why} "
                       "is read whole: give --no-stream)")
    return not why


def _streamed_results(args, policy: str):
    """:func:`_results` of runs streamed a block of whole topics at a time, with a progress bar over the bytes on
    a terminal."""
    from workbench.data.streamed import BLOCK_BYTES, stream_scores

    return stream_scores(args.gold, args.run, _measures(args), missing_topics=policy, extra_topics=args.extra,
                         progress=not args.quiet and sys.stderr is not None and sys.stderr.isatty(),
                         encoding=args.run_encoding or args.encoding,
                         gold_encoding=args.gold_encoding or args.encoding, max_docs=args.max_docs,
                         score_precision=args.score_precision, block_bytes=args.stream_block or BLOCK_BYTES)


def cmd_eval(args) -> int:
    from workbench.data.campaign import summaries, undefined_policy

    scores = _results(args)
    results = Table(list(COLUMNS), scores.rows)
    table = Table(list(COLUMNS), summaries(results.rows, undefined_policy(scores.attrs)))
    if args.format == "json":
        emit(eval_json(results, table, args.per_topic, scores.attrs))
        return 0
    if args.per_topic:
        table = Table(list(COLUMNS), results.rows + table.rows)
    emit(render(table, args.format))
    return 0


def _grouped(results, args):
    """The results with the systems ``--group-by`` names as one model (its seeds averaged, its folds joined)."""
    from workbench.analysis import aggregate_folds, group_systems

    if not args.group_by:
        return results
    grouped = aggregate_folds(group_systems(results, args.group_by), by="group", kind=args.group_kind)
    done = grouped.attrs["aggregated"]
    named = [v["group"] for v in done["values"] if v["group"]]
    labels = ", ".join(map(repr, named[:6])) + (" …" if len(named) > 6 else "")
    say(f"workbench: note: systems grouped by {args.group_by!r} ({labels}): "
        + ("folds joined" if done["kind"] == "folds" else f"the {done['how']} over the seeds"))
    return grouped


def _tukey_tables(results, measures, alpha):
    """Tukey's HSD of every measure as one table, and its report line with the homogeneous groups."""
    import pandas as pd

    from workbench.analysis import tukey_hsd

    frames, notes = [], []
    for measure in measures:
        frame = tukey_hsd(results, measure, alpha=alpha, missing="intersection")
        frames.append(frame.assign(measure=measure))
        groups = " ".join("{" + ", ".join(map(str, g)) + "}" for g in frame.attrs["groups"])
        notes.append(f"{measure}: groups {groups}")
    table = pd.concat(frames, ignore_index=True)
    shown = ["measure", "a", "b", "mean_difference", "statistic", "pvalue", "low", "high", "significant"]
    return table[shown], frames[0].attrs["report"].rsplit(" on ", 1)[0] + "; homogeneous groups (best first) " + \
        "; ".join(notes)


def _friedman_tables(results, measures, alpha, posthoc, correction):
    """Friedman's test of every measure with ``posthoc`` over every pair as one table, and its report line with
    the test and the homogeneous groups."""
    import pandas as pd

    from workbench.analysis import POSTHOCS, friedman

    frames, notes = [], []
    for measure in measures:
        frame = friedman(results, measure, posthoc=posthoc, correction=correction, alpha=alpha,
                         missing="intersection")
        frames.append(frame.assign(measure=measure))
        test = frame.attrs["friedman"]
        groups = " ".join("{" + ", ".join(map(str, g)) + "}" for g in frame.attrs["groups"])
        notes.append(f"{measure}: chi2 = {test['statistic']:.4g}, p = {test['pvalue']:.3g}, groups {groups}")
    table = pd.concat(frames, ignore_index=True)
    shown = ["measure", "a", "b", "rank_difference", "statistic", "pvalue", "low", "high", "significant"]
    how = f"{POSTHOCS[posthoc]}'s post-hoc" + (f", {correction} correction over the pairs" if posthoc == "conover"
                                                else "")
    return table[shown], (f"Friedman's test and {how} (alpha = {alpha:g}); homogeneous groups (best first) "
                          + "; ".join(notes))


def cmd_compare(args) -> int:
    from workbench.analysis import compare_report, significance, uir_matrix
    from workbench.data.campaign import means

    results = _grouped(_results(args).frame(), args)
    measures = list(dict.fromkeys(results["measure"]))
    if results["system"].nunique() < 2:
        raise CliError("compare needs at least two systems (give several --run files or systems)")
    report = compare_report(results, measures, baseline=args.baseline, test=args.test, correction=args.correction,
                            alpha=args.alpha, missing="intersection", win_tie_loss=args.wtl)
    body = {"csv": report.to_csv, "latex": report.to_latex}.get(args.format, report.to_markdown)()
    sections = [(f"means, best in bold, significance against the baseline {report.baseline}", body)]
    matrix = uir_matrix(results, measures, missing="intersection")
    if args.test == "tukey":
        pairs, title = _tukey_tables(results, measures, args.alpha)
    elif args.test in ("nemenyi", "conover"):
        pairs, title = _friedman_tables(results, measures, args.alpha, args.test, args.correction)
    else:
        tests = significance(results, measures, test=args.test, correction=args.correction, alpha=args.alpha,
                             missing="intersection")
        shown = ["measure", "system_a", "system_b", "difference", "statistic", "p_value", "p_adjusted",
                 "significant"]
        pairs, title = tests[shown], tests.attrs.get("report", "significance")
    if args.format in JSON_FORMATS:
        uir = matrix.stack().rename("uir").rename_axis(["system_a", "system_b"]).reset_index()
        pairs_name = {"tukey": "tukey", "nemenyi": "friedman", "conover": "friedman"}.get(args.test, "significance")
        tables = {"means": table_of(means(results)), "uir": table_of(uir), pairs_name: table_of(pairs)}
        if args.wtl:
            frame = report.to_frame()
            frame = frame[~frame["baseline"]][["system", "measure", "wins", "ties", "losses"]].astype(object)
            tables["win_tie_loss"] = table_of(frame)
        emit(tables_json(tables, args.format, report=title))
        return 0
    sections.append((f"UIR(a, b) over {', '.join(measures)} (Amigó et al., JAIR 2011; |UIR| >= 0.25 is robust)",
                     text_table(table_of(matrix.reset_index(allow_duplicates=True)), args.format)))
    sections.append((title, text_table(table_of(pairs), args.format)))
    comment = "%" if args.format == "latex" else "#"
    emit("\n".join(f"{comment} {_title(title, args.format)}\n{body}" for title, body in sections))
    return 0


def _title(text: str, fmt: str) -> str:
    """A section's title on one line (a name's line break would end a LaTeX comment), as Markdown shows it
    literally in ``markdown``."""
    line = " ".join(text.splitlines())
    return markdown_escape(line) if fmt == "markdown" else line


def cmd_demo(args) -> int:
    from workbench import datasets
    from workbench.metrics.reliability import RS_FIELDS, RS_MEASURES, reliability_sensitivity

    example = datasets.load("seed000-table9")
    n, wn = example.params.get("n"), example.params.get("wn")
    if not (isinstance(n, int | float) and isinstance(wn, int | float)):
        raise datasets.DatasetError(f"{example.name}: '@params' must give the numbers n and wn, got n={n!r}, "
                                    f"wn={wn!r}")
    fields = {name: RS_FIELDS[name] for name in RS_MEASURES}
    outputs = {"gold": example.gold, **example.outputs}
    width = max(map(len, outputs))
    lines = [example.title, example.source,
             f"computed with reliability_sensitivity(gold, output, n={n}, wn={wn}); the paper's printed value in "
             "parentheses", "",
             " " * width + "".join(f"{m:>17}" for m in fields)]
    differs = False
    for block, output in outputs.items():
        scores = reliability_sensitivity(example.gold, output, n=n, wn=wn)
        cells = []
        for measure, field in fields.items():
            value, printed = getattr(scores, field), example.printed[block][measure]
            mark = "*" if abs(value - printed) > 0.005 else " "
            differs |= mark == "*"
            cells.append(f"{value:.4f} ({printed:g}){mark}".rjust(17))
        lines.append(block.ljust(width) + "".join(cells))
    if differs:
        lines += ["", f"* differs from the printed value by more than its rounding (the errata: "
                      f"datasets.load({example.name!r}), {datasets.path(example.name)})"]
    emit("".join(line + "\n" for line in lines))
    return 0


def _positive(text: str) -> int:
    value = _integer(text)
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer ≥ 1, got {excerpt(text)}")
    return value


def _count(text: str) -> int:
    value = _integer(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer ≥ 0, got {excerpt(text)}")
    return value


def _integer(text: str) -> int | None:
    """An integer option's value, written in ASCII digits (any number of them: past a C long it reads as the
    largest one, as trec_eval's atol reads it), or None."""
    from workbench.reading.numbers import atol

    return atol(text.encode()) if re.fullmatch(r"\s*[+-]?[0-9]+\s*", text, re.ASCII) else None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="workbench", description="Evaluate runs against a gold standard, compare systems, "
                     "print the Table 9 demo.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{eval,compare,demo,trec_eval}", parser_class=_Parser)
    for name, help_text in (("eval", "score runs against a gold standard (trec_eval-like)"),
                            ("compare", "a comparison table (means, best in bold, significance against a "
                                        "baseline), the UIR matrix and all pairwise tests")):
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        cmd.add_argument("--gold", required=True, help="qrels, RepLab TSV, or WePS XML file/directory "
                         "(- reads standard input)")
        cmd.add_argument("--run", required=True, nargs="+", help="run files, WePS team folders or a systemsDir "
                         "(- reads standard input)")
        cmd.add_argument("-m", "--measures", required=True, nargs="+", metavar="MEASURE",
                         help='registered measure names, e.g. AP nDCG@10 "RBP(p=0.8)"')
        cmd.add_argument("--gold-format", choices=FORMATS, default="auto")
        cmd.add_argument("--run-format", choices=FORMATS, default="auto")
        cmd.add_argument("--label", choices=("filtering", "topic", "priority"),
                         help="RepLab label kind (default: the header's third column)")
        cmd.add_argument("--encoding", default="utf-8",
                         help="encoding of the TREC and RepLab files (default utf-8; WePS XML declares its own)")
        cmd.add_argument("--gold-encoding", help="the gold's encoding, if not --encoding (RepLab gold: latin-1)")
        cmd.add_argument("--run-encoding", help="the runs' encoding, if not --encoding")
        cmd.add_argument("--missing", choices=("zero", "skip", "error"),
                         help="a gold topic a run lacks: scored without credit (zero, the default, as "
                              "Campaign.evaluate scores it: ranking measures on an empty ranking as trec_eval -c "
                              "does, counts of the judgements such as NumRel kept, every other measure at its "
                              "worst value; means over every judged topic), skipped (trec_eval 9.x without -c) or "
                              "an error")
        cmd.add_argument("-c", "--complete", action="store_true",
                         help="--missing zero (trec_eval -c; the default); refused beside another --missing")
        cmd.add_argument("--extra", choices=("error", "ignore"), default="error",
                         help="run topics the gold lacks: an error (default) or ignored")
        cmd.add_argument("-M", "--max-docs", type=_count, metavar="N",
                         help="TREC runs: keep the first N documents of each topic (trec_eval -M)")
        cmd.add_argument("-l", "--level", type=_positive, metavar="N",
                         help="relevance level: a grade ≥ N is relevant for the binary measures (trec_eval -l; "
                              "sets their rel where the name leaves it at 1)")
        cmd.add_argument("-J", "--judged-only", action="store_true",
                         help="TREC runs: score only the judged documents, unjudged ones removed from the "
                              "ranking (trec_eval -J; sets the measures' judged_only)")
        cmd.add_argument("--costs", metavar="FILE",
                         help="cwl_eval's cost file (lines 'element_type cost'): each TREC run document costs what "
                              "its element type, the run's second column, costs (the C/W/L measures' columns EC, "
                              "ETC and their user models read it; a type without a cost costs 1)")
        cmd.add_argument("--score-precision", choices=("float64", "float32"), default="float64",
                         help="TREC runs: compare scores as doubles, as trec_eval 10.0 does (default), or as "
                              "32-bit floats, as trec_eval 9.x, pytrec_eval and ir_measures do")
        cmd.add_argument("--format", choices=OUTPUTS, default="table",
                         help="table (default), markdown, latex: 4 decimals; csv, json (one object), jsonl (one "
                              "tidy row per line) for scripts: every value in full, the shortest decimal that reads "
                              "back as the same double (0.1 + 0.2 prints 0.30000000000000004), NaN empty in csv and "
                              "null in json")
        cmd.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                         help="TREC runs: read and score each run file one block of whole topics at a time, for "
                              "runs larger than memory (the same results); a run not grouped by topic is "
                              "partitioned to disk first, in the temporary folder (as much space as the file). "
                              "Default: streamed when a run file would take more than half the memory available")
        cmd.add_argument("--stream-block", type=_positive, metavar="BYTES",
                         help="the bytes of run file read at a time when streaming (default 64 MiB)")
        cmd.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        if name == "eval":
            cmd.add_argument("--per-topic", action="store_true", help="rows per topic, then the 'all' rows")
        else:
            cmd.add_argument("--test", default="t", help="t, wilcoxon, randomization, bootstrap or sign (default t) "
                             "against the baseline, corrected by --correction; tukey: Tukey's HSD over every pair, "
                             "with the homogeneous groups; nemenyi or conover: Friedman's test and that post-hoc "
                             "over every pair (conover's corrected by --correction), with the groups")
            cmd.add_argument("--wtl", action="store_true",
                             help="a W/T/L column per measure: topics won, tied and lost against the baseline")
            cmd.add_argument("--group-by", metavar="REGEX",
                             help="systems whose names match REGEX are one model, named by its first group, e.g. "
                                  "'(.*)_seed[0-9]+' or '(.*)[.]fold[0-9]+': seeds averaged, folds joined, before "
                                  "testing")
            cmd.add_argument("--group-kind", choices=("auto", "folds", "seeds"), default="auto",
                             help="what --group-by's runs are: folds (each topic in one), seeds (each topic in "
                                  "every one), or auto (read from the results)")
            cmd.add_argument("--baseline", help="the system the others are tested against (default: the first)")
            cmd.add_argument("--correction", default="holm", help="holm, bonferroni or none (default holm)")
            cmd.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
        cmd.set_defaults(handler=cmd_eval if name == "eval" else cmd_compare)
    demo = sub.add_parser("demo", help="Table 9 of Amigó et al., SIGIR 2013 computed beside the printed values")
    demo.set_defaults(handler=cmd_demo)
    sub.add_parser("trec_eval", help="trec_eval 10.0 drop-in: trec_eval's options, its output byte for byte "
                   "(python -m workbench trec_eval -h)", add_help=False)
    return parser


SIGPIPE_STATUS = 141  # what a shell reports for a C program ended by SIGPIPE (128 + 13): trec_eval | head
INTERRUPTED_STATUS = 130  # 128 + SIGINT (Ctrl-C)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status: 0; 2 on bad arguments or files (a WorkbenchError, one line
    on standard error), the trec_eval drop-in's as trec_eval 10.0's (1 for its command line, 2 for its files, 4
    for what it cannot calculate, 255 for a -Z file: :data:`workbench.trec_eval.EXIT_STATUSES`); 1 when the
    output cannot be written (a full disk, a closed standard output: one line, whatever Python still held for it
    discarded, so that nothing more is said at exit); 130 on Ctrl-C (one line); a closed pipe (``... | head -1``)
    ends it quietly, with status 141 as SIGPIPE ends a C program.
    Without ``argv`` the command line is the whole process: malloc keeps freed memory for reuse
    (:func:`workbench.heap.keep_freed_memory`)."""
    if argv is None:
        keep_freed_memory()
    try:
        with small_pages():
            return _run(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:
        _discard_standard_output()
        return SIGPIPE_STATUS
    except KeyboardInterrupt:
        say("workbench: interrupted")
        return INTERRUPTED_STATUS


def _discard_standard_output() -> None:
    """Point standard output at the null device, so that Python's last flush at exit finds no closed pipe."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def _run(argv: list[str]) -> int:
    parser = build_parser()
    try:
        if argv[:1] == ["trec_eval"]:  # trec_eval's own getopt syntax (-mP.5,10, -M100): its module parses it
            from workbench.trec_eval import main as trec_eval_main

            return trec_eval_main(argv[1:])
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        return args.handler(args)
    except WorkbenchError as error:
        say(f"workbench: error: {' '.join(str(error).split())}")
        if isinstance(error, OutputError):  # what Python still holds for it goes nowhere: no second error at exit
            _discard_standard_output()
        return error.exit_status

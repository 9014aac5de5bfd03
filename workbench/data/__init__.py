"""Readers and writers for evaluation campaign files."""

from workbench.data.trec import (
    TrecFormatError,
    qrels_grades,
    read_trec_eval_output,
    read_trec_qrels,
    read_trec_qrels_frame,
    read_trec_run,
    read_trec_run_frame,
    run_scores,
    write_trec_eval_output,
    write_trec_qrels,
    write_trec_run,
)

__all__ = [
    "TrecFormatError",
    "qrels_grades",
    "read_trec_eval_output",
    "read_trec_qrels",
    "read_trec_qrels_frame",
    "read_trec_run",
    "read_trec_run_frame",
    "run_scores",
    "write_trec_eval_output",
    "write_trec_qrels",
    "write_trec_run",
]

"""``citeaudit eval``: audit a dataset, aggregate, gate and report."""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from citeaudit._files import refuse_inputs, write_atomically
from citeaudit._version import __version__
from citeaudit.cli._common import (
    IO,
    ExitCode,
    UsageError,
    config_of,
    config_options,
    gate,
    positive,
    shard,
    support_options,
    threshold_options,
    write_json,
)
from citeaudit.eval import (
    DATASET_FORMATS,
    Aggregate,
    Dataset,
    Gate,
    Options,
    Summary,
    default_jobs,
    detect_format,
    evaluate,
    gate_line,
    gate_results,
    load_evaluators,
    progress_for,
    worst_records,
)
from citeaudit.report import html_report, junit, markdown, one_line, table

__all__ = ["add_parser", "run", "show"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "eval", help="audit a dataset of logged answers, aggregate and gate",
        description="Audit every record of a dataset (JSONL, a JSON array or Parquet; records"
        " {id, sources, answer, relevant?, answerable?, tags?, grammar?}), write one result per"
        " record in"
        " input order, print the aggregate and gate on it. Exit 0: every gate holds; 1: a gate"
        " fails; 2: a record or the input could not be read (the other records are still"
        " audited and written).")
    parser.add_argument("dataset", metavar="DATASET", help="the dataset file; - reads"
                        " standard input (JSONL)")
    parser.add_argument("--dataset-format", choices=tuple(DATASET_FORMATS),
                        help="jsonl, json (an array) or parquet (default: by extension)")
    parser.add_argument("-o", "--out", type=Path, metavar="FILE",
                        help="write one result per record here (JSONL, input order; as"
                        " FILE.partial, renamed to FILE when the run is complete)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the complete results already written for --out (when"
                        " they match this dataset and these options) and audit the rest")
    parser.add_argument("-j", "--jobs", type=positive, metavar="N",
                        help="worker processes (default: all cores)")
    parser.add_argument("--engine", choices=("local", "spark"), default="local",
                        help="local: worker processes on this machine (default); spark: a"
                        " Spark session (the spark extra), reading any path Spark reads and"
                        " writing the results as a folder of part files (JSONL lines, or"
                        " Parquet when --out ends in .parquet)")
    parser.add_argument("--spark-master", metavar="URL",
                        help="the Spark master for --engine spark (default: local[N] with"
                        " --jobs N, else local[*]; or the session a notebook already has)")
    parser.add_argument("--shard", type=shard, metavar="I/N",
                        help="audit only every N-th record from the I-th (1-based), so that"
                        " N machines split a run; join the results with citeaudit merge")
    parser.add_argument("--grammar", action="append", metavar="NAME",
                        help="marker grammar for records that name none (repeat to chain)")
    parser.add_argument("--refusal", metavar="TEXT", action="append",
                        help="an accepted refusal string (repeatable; compared after"
                        " normalising white space, case, quotes and final punctuation)")
    threshold_options(parser, ", by the citation_coverage evaluator")
    parser.add_argument("--check", action="append", metavar="NAME", dest="checks",
                        help="also run this installed check (repeatable)")
    support_options(parser)
    parser.add_argument("--gate", action="append", default=[], type=gate,
                        metavar="METRIC>=VALUE",
                        help="a condition on the aggregate, e.g. pass_rate>=0.95 or"
                        " mean_precision>=0.9 (repeatable; default: pass_rate>=1)")
    parser.add_argument("--evaluator", action="append", metavar="NAME",
                        help="run only these installed evaluators (repeatable; default:"
                        " all of them)")
    parser.add_argument("--no-evaluators", action="store_true",
                        help="run no custom evaluator")
    parser.add_argument("--format", choices=("table", "json", "markdown", "junit"),
                        default="table", help="how to print the aggregate (default: table;"
                        " junit: one test case per record)")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="write a self-contained HTML report")
    parser.add_argument("--max-bytes", type=positive, metavar="N",
                        help="records larger than N bytes are unreadable (default 1000000)")
    config_options(parser)


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out, err, stdin = io
    config = config_of(args)
    if args.report is not None and args.dataset == "-":
        raise UsageError("citeaudit eval: error: --report reads the dataset twice: give a"
                         " file, not -")
    if args.resume and args.out is None:
        raise UsageError("citeaudit eval: error: --resume needs --out")
    if args.report is not None:
        refuse_inputs(args.report, [args.dataset, *([args.out] if args.out else [])])
    evaluators = () if args.no_evaluators else tuple(load_evaluators(args.evaluator, config))
    options = Options(config, evaluators, junit=args.format == "junit")
    dataset = Dataset(args.dataset, format=detect_format(args.dataset, args.dataset_format),
                      max_bytes=config.max_bytes, stdin=stdin)
    unreadable = 0

    def report_unreadable(summary: Summary) -> None:
        nonlocal unreadable
        unreadable += 1
        err.write(one_line(f"citeaudit: error: {args.dataset}: {summary.place}:"
                           f" {summary.reason or ''}") + "\n")

    spark_worst: list[Any] | None = None
    with tempfile.TemporaryFile("w+", encoding="utf-8") as cases:
        if args.engine == "spark":
            spark_worst = [] if args.report is not None else None
            aggregate = _on_spark(args, dataset, options, err=err, worst=spark_worst,
                                  cases=cases if options.junit else None)
            for summary in _unreadable_of(aggregate):
                report_unreadable(summary)
        else:
            progress = progress_for(dataset, err)
            try:
                aggregate = evaluate(dataset, options, jobs=args.jobs or default_jobs(),
                                     out=args.out, resume=args.resume,
                                     junit=cases if options.junit else None,
                                     on_unreadable=report_unreadable, progress=progress,
                                     shard=args.shard)
            except KeyboardInterrupt:
                if args.out is None:
                    raise
                # The results so far are kept beside the target: say how to go on from them.
                raise KeyboardInterrupt(f"the results so far are kept in {args.out}.partial;"
                                        " run the same command with --resume to go on"
                                        ) from None
            finally:
                if progress is not None:
                    progress.close()
        data = show(aggregate, args.format, args.gate, cases, out)
    if args.report is not None:
        run = {"version": __version__,
               "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
               "dataset": args.dataset, "gates": data["gates"],
               "options": {"grammar": ", ".join(config.grammar) or "inferred",
                           "refusal": " | ".join((config.refusal,) if isinstance(
                               config.refusal, str) else config.refusal),
                           "refusal regex": config.refusal_regex,
                           "thresholds": _thresholds_shown(aggregate.thresholds),
                           "rules": ", ".join(sorted(config.enabled)),
                           "claim policy": config.claim_policy,
                           "claims": config.claims + (
                               f" (required: {', '.join(sorted(config.require))})"
                               if config.require else ""),
                           "support judge": config.support,
                           "evaluators": ", ".join(e.name for e in evaluators) or "none"}}
        local = spark_worst is None or Path(args.dataset).is_file()
        worst = worst_records(dataset, aggregate, options) if local else spark_worst or []
        html = html_report(aggregate, worst,
                           title=f"citeaudit: {Path(args.dataset).name}", run=run)
        write_atomically(args.report, html, what="the report")
    if args.engine == "spark" and aggregate.all.unreadable > unreadable:
        err.write(one_line(f"citeaudit: error: {args.dataset}: and"
                           f" {aggregate.all.unreadable - unreadable} more") + "\n")
        unreadable = aggregate.all.unreadable
    if unreadable:
        err.write(one_line(f"citeaudit: error: {unreadable} record"
                           f"{'s' if unreadable != 1 else ''} of {args.dataset} could not be"
                           " audited") + "\n")
        return ExitCode.INPUT_ERROR
    return ExitCode.OK if all(g["holds"] for g in data["gates"]) else ExitCode.FAILED


def _on_spark(args: argparse.Namespace, dataset: Dataset, options: Options, *,
              cases: TextIO | None, worst: list[Any] | None, err: TextIO) -> Aggregate:
    for flag, given in (("--resume", args.resume), ("--shard", args.shard is not None)):
        if given:
            raise UsageError(f"citeaudit eval: error: {flag} is for the local engine (Spark"
                             " splits and retries the run itself)")
    if args.dataset == "-":
        raise UsageError("citeaudit eval: error: --engine spark reads a path, not -")
    try:
        from citeaudit.integrations.spark import spark_eval  # noqa: PLC0415 - the spark extra
    except ImportError:
        raise UsageError("citeaudit eval: error: --engine spark needs PySpark: pip install"
                         " 'citeaudit[spark]'") from None
    master = args.spark_master or (f"local[{args.jobs}]" if args.jobs else None)
    return spark_eval(args.dataset, form=dataset.format, options=options, master=master,
                      out=args.out, junit=cases, progress=err.isatty(), worst=worst)


def _unreadable_of(aggregate: Aggregate) -> list[Summary]:
    """The unreadable records the aggregate kept (the first hundred), to report."""
    return [Summary(0, place, None, "unreadable", False, 0, None, None, None, None, None,
                    None, (), (), (), reason) for place, reason in aggregate.unreadable]


def show(aggregate: Aggregate, form: str, gates: list[Gate], cases: TextIO,
         out: TextIO) -> dict[str, Any]:
    """Print the aggregate in ``form`` with its gates (JUnit: with the test ``cases``); the
    aggregate's JSON form with the gates' results.
    """
    data = aggregate.to_dict()
    data["gates"] = gate_results(data, gates)
    if form == "junit":
        junit(data, cases, out)
    elif form == "json":
        write_json(out, data)
    else:
        out.write(table(data) if form == "table" else markdown(data))
        for gate in data["gates"]:
            out.write(one_line(gate_line(gate)) + "\n")
    return data


def _thresholds_shown(thresholds: tuple[float | None, float | None]) -> str:
    precision, recall = thresholds
    if precision is None or recall is None:
        return "none (citation_coverage not run)"
    return f"precision >= {precision:g}, recall >= {recall:g} (citation_coverage)"

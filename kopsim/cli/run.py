"""Command-line face of `kopsim run`.

Only argparse is imported here: the parser is built on every `kopsim` call, and the experiment
machinery (polars, joblib, numba) is imported by the handlers when they run.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from . import args as cliargs
from ..errors import InputError, Problem
from ..terminal import clean


def add_parser(sub) -> None:
    r = sub.add_parser(
        "run", help="play an experiment file (variants x bots x deals) in parallel, to Parquet",
        description="Play every deal of an experiment file under each variant, in chunks, in "
                    "parallel, and write Parquet results (docs/experiments.md, docs/results.md). "
                    "Running the same command again resumes an interrupted run.")
    r.add_argument("experiment", metavar="EXPERIMENT.toml")
    r.add_argument("--jobs", type=cliargs.jobs, default=None,
                   help="parallel jobs (default: every core; with --scheduler: every worker)")
    r.add_argument("--backend", choices=["loky", "dask"], default=None,
                   help="loky processes on this machine (default), or dask.distributed")
    r.add_argument("--scheduler", metavar="ADDRESS",
                   help="a dask scheduler, e.g. tcp://host:8786 (implies --backend dask); "
                        "without it --backend dask starts a local cluster")
    r.add_argument("--out", metavar="DIR", type=cliargs.output_folder,
                   help="results folder (default: results/NAME)")
    r.add_argument("--deals", type=cliargs.count(), help="override the file's deals")
    r.add_argument("--seed", type=cliargs.seed, help="override the file's seed")
    r.add_argument("--chunk", type=cliargs.count(), help="deals per chunk (override)")
    r.add_argument("--log", action="store_true",
                   help="also keep every hand record (logs/VARIANT/*.jsonl, HAND-RECORD.md)")
    r.add_argument("--check", action="store_true",
                   help="validate the file and show the plan, play nothing")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args) -> int:
    from ..experiments.spec import load_experiment, plan_text
    from ..experiments.run import ExperimentFailed, check_out_folder, default_out, run_experiment

    backend = args.backend or ("dask" if args.scheduler else "loky")
    if args.scheduler and backend != "dask":
        raise InputError([Problem("command line", "--scheduler",
                                  "a scheduler address needs --backend dask")])
    exp = load_experiment(args.experiment, deals=args.deals, seed=args.seed, chunk=args.chunk)
    out = default_out(exp) if args.out is None else Path(args.out)
    check_out_folder(out)
    from ..experiments.parallel import default_jobs

    if args.check:
        from ..experiments.run import pending_calibrations
        print(clean(plan_text(exp, out, args.log)))
        for line in pending_calibrations(exp, args.jobs or default_jobs()):
            print(clean(line))
        return 0

    from ..engine.kernel import _play_batch
    from ..terminal import compile_notice

    jobs = args.jobs or (None if backend == "dask" else default_jobs())
    print(clean(plan_text(exp, out, args.log)), file=sys.stderr)
    compile_notice(_play_batch)
    try:
        s = run_experiment(exp, out, jobs=jobs, backend=backend, scheduler=args.scheduler,
                           log=args.log, progress=False if args.no_progress else None)
    except ExperimentFailed as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the results folder cannot be written (permissions, a full disk)
        raise InputError([Problem(str(out), "", f"cannot write the results: {e}")]) from e
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished chunks are kept in {out}; run the same command again "
              "to resume", file=sys.stderr)
        return 130
    report = f"kopsim report {shlex.quote(str(out))}"
    if s.chunks_before == s.chunks_total:  # nothing left to play
        print(f"{clean(exp.name)}: already complete ({s.chunks_total} chunks in {out}); "
              f"next: {report}")
        return 0
    if s.chunks_before:
        print(f"resumed: {s.chunks_before} of {s.chunks_total} chunks were already finished")
    where = f"{backend}" + (f" at {args.scheduler}" if args.scheduler else "")
    nv, nj = len(exp.variants), s.jobs or s.workers
    print(f"{clean(exp.name)}: {s.deals_played:,} deals played ({nv} variant{'s' * (nv != 1)}) in "
          f"{s.seconds:.1f} s, {s.hands_per_s:,.0f} hands/s, {nj} job{'s' * (nj != 1)} "
          f"({where})")
    print(f"results: {out} ({s.hands_written:,} hand rows written by this run; "
          f"manifest.json, hands/, {'sessions/, ' if any(v.session for v in exp.variants) else ''}"
          f"{'logs/' if args.log else ''})".replace(", )", ")"))
    print(f"next: {report}   (the comparison report, in reports/{Path(out).name}/)")
    return 0

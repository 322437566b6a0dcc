"""`kopsim bench`: hands/s and peak memory (kopsim.bench.engine measures, this prints)."""

from __future__ import annotations

import json

from . import args as cliargs


def add_parser(sub) -> None:
    b = sub.add_parser("bench", help="hands/s and peak memory per ruleset and engine")
    b.add_argument("rulesets", nargs="*", help="default: every bundled ruleset")
    b.add_argument("--hands", type=cliargs.count(), default=2_000_000,
                   help="hands for the batch kernel")
    b.add_argument("--reference-hands", type=cliargs.count(), default=5_000)
    b.add_argument("--heuristic-hands", type=cliargs.count(), default=None,
                   help="hands for four heuristic bots in the batch kernel (default: hands / 4)")
    b.add_argument("--ev-deals", type=cliargs.bounded_int(1_000, 10_000_000, "a number of deals"),
                   default=None, help="deals per round of the ev line-up's calibration "
                                      "(default: the ev bot's own, 100,000; fewer is quicker "
                                      "to learn, and times the same kernel)")
    b.add_argument("--learnt", action="store_true",
                   help="also four learnt bots in the batch kernel (their models trained first "
                        "where not cached: minutes per ruleset)")
    b.add_argument("--learnt-deals", type=cliargs.bounded_int(10, 10_000_000, "a number of deals"),
                   default=None, help="teacher deals of the learnt line-up's training (default: "
                                      "the learnt bot's own, 20,000; fewer is quicker to learn, "
                                      "and times the same kernel)")
    b.add_argument("--bots", action="store_true",
                   help="also the solver's and pimc's decision times (medians) and four pimc "
                        "seats' hands/s")
    b.add_argument("--jobs", type=cliargs.jobs_list, default=None, metavar="N,N",
                   help="also time `kopsim run` (Parquet written) at these job counts, "
                        "e.g. --jobs 1,2, with the speed-up over the first")
    b.add_argument("--run-deals", type=cliargs.count(), default=2_000_000,
                   help="deals per `kopsim run` timing (default 2,000,000)")
    b.add_argument("--lineups", default="random,heuristic",
                   help="line-ups timed with --jobs (default random,heuristic)")
    b.add_argument("--json", action="store_true")


def run(args) -> int:
    from ..bench.engine import bots_bench, run_bench, run_jobs_bench
    from ..rules.load import bundled_names, load_ruleset

    names = args.rulesets or bundled_names()
    for name in names:  # a misspelt name is a located error here, not a failed subprocess
        load_ruleset(name)
    results = run_bench(names, args.hands, args.reference_hands, args.heuristic_hands,
                        args.ev_deals, args.learnt, args.learnt_deals)
    bots = bots_bench(names[0] if args.rulesets else "kop") if args.bots else []
    runs = []
    if args.jobs:
        lineups = [x.strip() for x in args.lineups.split(",") if x.strip()]
        runs = run_jobs_bench(args.rulesets[0] if args.rulesets else "kop", lineups, args.jobs,
                              args.run_deals)
    if args.json:
        print(json.dumps(results + bots + runs, indent=2))
        return 0
    print(f"{'ruleset':<20}{'engine':<11}{'line-up':<11}{'hands':>11}{'hands/s':>14}"
          f"{'peak RSS MB':>13}")
    for r in results:
        print(f"{r['ruleset']:<20}{r['engine']:<11}{r['lineup']:<11}{r['hands']:>11,}"
              f"{r['hands_per_s']:>14,.0f}{r['peak_rss_mb']:>13.1f}")
    for r in bots:
        if r["bench"] == "solver_full_position":
            print(f"\n{r['ruleset']}: solver, full position: median {r['median_ms']} ms, 90th "
                  f"percentile {r['p90_ms']} ms")
            continue
        print(f"\n{r['ruleset']}: four pimc seats: {r['hands_per_s']:,.0f} hands/s in the batch "
              f"kernel, {r['reference_hands_per_s']:,.0f} through the reference engine; a card "
              f"decision ({r['samples']} samples) median {r['median_ms']} ms, 90th percentile "
              f"{r['p90_ms']} ms; a call ({r['auction_samples']} samples) median "
              f"{r['call_median_ms']} ms, 90th percentile {r['call_p90_ms']} ms")
    if runs:
        print(f"\n`kopsim run` (Parquet written, one variant, {args.run_deals:,} deals)")
        print(f"{'ruleset':<20}{'line-up':<11}{'jobs':>5}{'hands/s':>14}{'speed-up':>10}"
              f"{'main MB':>9}{'worker MB':>11}")
        for r in runs:
            print(f"{r['ruleset']:<20}{r['lineup']:<11}{r['jobs']:>5}{r['hands_per_s']:>14,.0f}"
                  f"{r['speedup']:>9.2f}x{r['peak_rss_mb']:>9.1f}{r['worker_peak_rss_mb']:>11.1f}")
    return 0

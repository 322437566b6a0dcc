"""`kopsim rules list|show|validate|diff`."""

from __future__ import annotations

from ..errors import InputError
from ..terminal import clean


def add_parser(sub) -> None:
    rules = sub.add_parser("rules", help="list, show and validate rulesets")
    rsub = rules.add_subparsers(dest="rules_command", required=True)
    rsub.add_parser("list", help="the bundled rulesets")
    s = rsub.add_parser("show", help="card orders, contracts, payout table, session scoring")
    s.add_argument("ruleset", help="a bundled name (kop, baska, ...) or a path to a TOML file")
    v = rsub.add_parser("validate", help="check ruleset files; exit code 2 on any problem")
    v.add_argument("paths", nargs="+")
    rd = rsub.add_parser("diff", help="the rule differences from ruleset A to ruleset B, "
                         "in plain words")
    rd.add_argument("a", metavar="A", help="a bundled name or a path to a TOML file")
    rd.add_argument("b", metavar="B", help="a bundled name or a path to a TOML file")


def run(args) -> int:
    return {"list": _list, "show": _show, "validate": _validate,
            "diff": _diff}[args.rules_command](args)


def _list(args) -> int:
    from ..rules.load import BUNDLED_DIR, bundled_names, load_ruleset
    from ..rules.show import table

    rows = []
    for name in bundled_names():
        r = load_ruleset(name)
        rows.append([name, r.description, r.source.split(";")[0]])
    print(clean(table(["name", "description", "source"], rows)))
    print(f"\n(bundled rulesets live in {BUNDLED_DIR}; any TOML file path works too)")
    return 0


def _show(args) -> int:
    from ..rules.load import load_ruleset
    from ..rules.show import show

    print(clean(show(load_ruleset(args.ruleset))))
    return 0


def _validate(args) -> int:
    from ..rules.load import load_ruleset

    problems = []
    for path in args.paths:
        try:
            notes: list[str] = []
            r = load_ruleset(path, notes)
            print(clean(f"{path}: ok ({r.name}, sha256 {r.sha256()[:12]})"))
            for note in notes:
                print(clean(f"  note: {note}"))
        except InputError as e:
            problems += e.problems
    if problems:
        raise InputError(problems)
    return 0


def _diff(args) -> int:
    from ..rules.diff import diff_rules, format_diff
    from ..rules.load import load_ruleset
    from ..rules.notes import notes as surprises

    problems, rules = [], []
    for name in (args.a, args.b):
        try:
            rules.append(load_ruleset(name))
        except InputError as e:
            problems += e.problems
    if problems:
        raise InputError(problems)
    a, b = rules
    print(clean(format_diff(a, b, diff_rules(a, b))))
    for note in (n for n in surprises(b) if n not in surprises(a)):
        print(clean(f"\nnote ({b.name}): {note}"))
    return 0

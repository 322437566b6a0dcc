"""`kopsim solve`: a deal typed on the command line, solved double-dummy, printed readably."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError, Problem
from ..terminal import clean
from . import args as cliargs

if TYPE_CHECKING:
    from ..rules.compile import CompiledRules

SYMBOL_SUITS = {"♣": "C", "♠": "S", "♥": "H", "♦": "D"}


def parse_hands(cr: CompiledRules, text: str) -> list[list[int]]:
    """'AH 10H QC QS | 10C AC JD JH | ...' (a hand a seat of the ruleset's table) -> card
    indices per seat; InputError if malformed."""
    problems: list[Problem] = []
    index = {c.upper(): i for i, c in enumerate(cr.cards)}
    parts = text.split("|")
    n = cr.tables.n_seats
    hs = cr.n_cards // n
    if len(parts) != n:
        raise InputError([Problem("command line", "--hands",
                                  f"expected {n} hands (a seat each of {cr.rules.name}'s table) "
                                  f"separated by '|', found {len(parts)}")])
    hands: list[list[int]] = []
    owner: dict[int, int] = {}
    for s, part in enumerate(parts):
        cards: list[int] = []
        for tok in part.replace(",", " ").split():
            key = tok.upper()
            for sym, letter in SYMBOL_SUITS.items():
                key = key.replace(sym, letter)
            if key not in index:
                problems.append(Problem("command line", "--hands",
                                        f"seat {s}: {tok!r} is not a card of the deck "
                                        f"({' '.join(cr.cards)})"))
                continue
            c = index[key]
            if c in owner:
                where = "twice in seat" if owner[c] == s else f"in seats {owner[c]} and"
                problems.append(Problem("command line", "--hands",
                                        f"{cr.cards[c]} is dealt {where} {s}"))
                continue
            owner[c] = s
            cards.append(c)
        hands.append(cards)
    if not problems:
        for s, cards in enumerate(hands):
            if len(cards) != hs:
                problems.append(Problem("command line", "--hands",
                                        f"seat {s} holds {len(cards)} cards; a deal of this deck "
                                        f"gives each seat {hs}"))
    if problems:
        raise InputError(problems)
    return hands


def add_parser(sub) -> None:
    sv = sub.add_parser("solve", help="exact double-dummy value and best line of a deal")
    sv.add_argument("ruleset")
    sv.add_argument("--hands", required=True,
                    help='a hand a seat (four at most tables), seat 0 first, separated by "|": '
                         '"AH 10H QC QS | ..."')
    sv.add_argument("--contract", required=True)
    sv.add_argument("--declarer", type=cliargs.seat,
                    help="the declarer's seat (alone/called contracts)")
    sv.add_argument("--dealer", type=cliargs.seat, default=0)
    sv.add_argument("--leader", type=cliargs.seat, help="default: the dealer's left (forehand)")


def run(args) -> int:
    from ..bots.roots import solve_position
    from ..bots.solver import Dealt, solve
    from ..engine.reference import Deal, called_card_of, card_orders, old_side_of
    from ..rules.cache import compiled
    from ..rules.load import load_ruleset
    from ..rules.show import pretty_card
    from ..terminal import compile_notice

    rules = load_ruleset(args.ruleset)
    cr = compiled(rules)
    compile_notice(solve_position)
    problems: list[Problem] = []
    if args.contract not in cr.contract_names:
        problems.append(Problem("command line", "--contract",
                                f"{args.contract!r} is not a contract of {rules.name} "
                                f"({', '.join(cr.contract_names)})"))
    dealer, declarer, leader = args.dealer, args.declarer, args.leader  # seats: cliargs.seat
    n = cr.tables.n_seats
    problems += cliargs.seats_at_table(n, {"--dealer": dealer, "--declarer": declarer,
                                           "--leader": leader})
    try:
        hands = parse_hands(cr, args.hands)
    except InputError as e:
        problems += e.problems
    if problems:
        raise InputError(problems)
    names = cr.cards
    deal = Deal(dealer, tuple(tuple(names[c] for c in h) for h in hands))
    contract = rules.contracts[args.contract]
    if contract.team != "holders" and declarer is None:
        cands = [s for s in range(n)
                 if contract.eligible is not None
                 and contract.eligible.holds(rules.holding_of(deal.hands[s]),
                                                  deal.position(s))]
        if len(cands) == 1:
            declarer = cands[0]
        else:
            raise InputError([Problem("command line", "--declarer",
                                      f"contract {args.contract!r} is played by a declarer "
                                      f"({contract.team}): name his seat")])
    old_side = old_side_of(rules, deal, args.contract, declarer)
    old_mask = sum(1 << s for s in old_side)
    if leader is None:
        leader = (dealer + 1) % n
    k = cr.contract_names.index(args.contract)
    masks = [sum(1 << c for c in h) for h in hands]
    called = called_card_of(rules, deal, args.contract, declarer)  # on duty from the first lead
    res = solve(cr, k, old_mask, masks, leader,
                dealt=Dealt(masks, None if called is None else names.index(called)))
    pc = lambda c: pretty_card(names[c])  # noqa: E731
    young = [s for s in range(n) if s not in old_side]
    print(clean(f"{rules.name}: contract {args.contract}")
          + (f", declarer seat {declarer}" if declarer is not None else "")
          + f", dealer seat {dealer}, seat {leader} leads")
    print(f"old side: seats {', '.join(map(str, old_side))}; "
          f"young side: seats {', '.join(map(str, young)) or '-'}")
    print(f"value: {res.value:+g} (what a seat of the old side gains minus what a seat of the "
          "young side gains, both sides playing perfectly; the payouts: the outcome below)")
    if contract.instant:
        print("an instant contract: won at once, no play")
        return 0
    print("best line:")
    order = card_orders(rules)[contract.order]
    pts = [0.0] * n
    trk = [0] * n
    lead = leader
    line = res.best_line
    for i in range(0, len(line), n):
        cards = line[i:i + n]
        w = (lead + order.winner_index([names[c] for c in cards])) % n
        gain = sum(rules.points_of(names[c]) for c in cards)
        pts[w] += gain
        trk[w] += 1
        side = "old" if w in old_side else "young"
        print(f"  trick {i // n + 1}: seat {lead} leads  "
              + "  ".join(f"{pc(c):>3}" for c in cards)
              + f"   -> seat {w} ({side}) wins {gain:g} points")
        lead = w
    op = sum(pts[s] for s in old_side)
    yp = sum(pts[s] for s in young)
    ot = sum(trk[s] for s in old_side)
    print(f"  result: old {op:g} points in {ot} tricks, young {yp:g} points in "
          f"{sum(trk) - ot} tricks")
    from ..engine.scoring import score

    out = score(rules, args.contract, old_side, [], pts, trk, deal.hands)  # Laufende too
    print(f"  outcome: {out.winner or 'nobody'} wins ({out.tier}); payouts "
          + " ".join(f"{p:+g}" for p in out.payouts))
    print(f"opening cards (seat {leader}):")
    for c, v in sorted(res.move_values.items(), key=lambda kv: -kv[1] if leader in old_side
                       else kv[1]):
        print(f"  {pc(c):>3}  {v:+g}")
    return 0

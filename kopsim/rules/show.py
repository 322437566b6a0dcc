"""`kopsim rules show`: a ruleset as readable tables."""

from __future__ import annotations

from .model import Predicate, Ruleset

SUIT_SYMBOLS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
# whose points a talon counts in (`TalonPoints`), as the descriptions say it
TALON_WORDS = {"old_side": "the old side", "last_trick": "the last trick's winner",
               "nobody": "nobody"}
# who picks a talon up (`TalonPickUp`), as the descriptions say it
PICKUP_WORDS = {"never": "nobody picks it up",
                "declarer_may": "the declarer picks it up and lays as many away, or plays hand",
                "declarer_must": "the declarer picks it up and lays as many away"}


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def pretty_card(card: str) -> str:
    return card[:-1] + SUIT_SYMBOLS.get(card[-1], card[-1])


def describe(p: Predicate | None) -> str:
    if p is None:
        return "anyone"
    k = p.kind
    cards = lambda cs: " ".join(pretty_card(c) for c in cs)  # noqa: E731
    if k == "holds_all":
        return f"holds {cards(p.holds_all)}"
    if k == "holds_any":
        return f"holds one of {cards(p.holds_any)}"
    if k == "holds_none":
        return f"holds none of {cards(p.holds_none)}"
    if k == "holds_count":
        hc = p.holds_count
        hi = "" if hc.max is None else f" and at most {hc.max}"
        return f"holds at least {hc.min}{hi} of {cards(hc.cards)}"
    if k == "position":
        return f"sits {p.position}" if p.position != "dealer" else "is the dealer"
    if k == "all_of":
        return "(" + " and ".join(describe(x) for x in p.all_of) + ")"
    if k == "any_of":
        return "(" + " or ".join(describe(x) for x in p.any_of) + ")"
    return f"not {describe(p.not_)}"


def tie_name(r: Ruleset) -> str:
    """A tie as players say it: half of the deck's card points each, "52:52" in Kop."""
    half = number(r.total_points() / 2)
    return f"{half}:{half}"


def each_alone_text(c) -> str:
    """How a hand played each for himself (Ramsch) is settled, in words."""
    from .model import Ramsch

    x = c.ramsch or Ramsch()
    tie = ("the one who played the highest trump" if x.loser == "highest_trump"
           else "the one with the most tricks, then the highest trump")
    text = (f"the most points pay each of the others {number(c.payout.lost.value('out'))}; of "
            f"seats tied on them {tie} loses")
    if x.jungfrau == "double":
        text += "; each seat without a trick doubles it (Jungfrau)"
    if x.durchmarsch is not None:
        how = ("every trick" if x.durchmarsch == "all_tricks"
               else f"{number(x.durchmarsch)}+ points")
        text += (f"; a seat taking {how} (Durchmarsch) receives "
                 f"{number(c.payout.won.value('out'))} from each instead")
    return text


def number(x: float) -> str:
    """A number as the rules write it: 3, not 3.0."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _multiplier(r: Ruleset, contract: str, when: str) -> float:
    """The product of the scoring multipliers that apply to `contract` on result `when`."""
    factor = 1.0
    for m in r.scoring.multipliers:
        if m.when == when and (m.contracts is None or contract in m.contracts):
            factor *= m.factor
    return factor


def _first_double(r: Ruleset) -> str:
    """Who may not say the first double (the game engine's _may_double, in words)."""
    excepted = [n for n, c in r.contracts.items() if c.declarer_may_double_first]
    text = ("the first double may not come from the declarer of the bid in force (with no bid: "
            "from the player the no-bid contract makes declarer, e.g. a would-be cicha)")
    if excepted:
        text += f", except in {', '.join(excepted)}, whose declarer may double first"
    young = [n for n, c in r.contracts.items() if c.first_double_young_only]
    if young:
        text += f"; in {', '.join(young)} only the young side may say the first double"
    if not r.doubling.without_bid:
        text += "; no doubles while no bid is in force"
    return text


def show(r: Ruleset) -> str:
    """The ruleset as a player reads it: deck, card orders, contracts, auction, payouts, sessions."""
    parts = (_deck_lines, _order_lines, _contract_lines, _auction_lines, _payout_lines,
             _session_lines)
    return "\n".join(line for part in parts for line in part(r))


def _deck_lines(r: Ruleset) -> list[str]:
    """Name, source, hash and the deck."""
    out: list[str] = []
    out.append(f"{r.name} — {r.description}" if r.description else r.name)
    if r.source:
        out.append(f"source: {r.source}")
    out.append(f"sha256: {r.sha256()}")
    d = r.deck
    out.append("")
    talon = (f", {r.talon_cards()} to the talon (its points count for "
             f"{TALON_WORDS[r.talon.points]}; {PICKUP_WORDS[r.talon.pick_up]}; unless a "
             "contract says otherwise)"
             if r.talon is not None else "")
    out.append(f"Deck: {len(r.cards())} cards, {d.players} players, "
               f"{r.hand_size()} cards each{talon}; card points "
               + ", ".join(f"{k}={number(v)}" for k, v in d.points.items())
               + f" ({number(r.total_points())} in all); a side wins with {number(r.win_points())}")
    return out


def _order_lines(r: Ruleset) -> list[str]:
    """The card orders and the play obligations."""
    out: list[str] = []
    out.append("")
    out.append("Card orders (high to low)")
    for name, o in r.orders.items():
        users = [n for n, c in r.contracts.items() if c.order == name]
        tag = f"   used by: {', '.join(users)}" if users else "   (not used by any contract)"
        out.append(f"  {name}:{tag}")
        out.append(f"    trumps ({len(o.trumps)}): " + " ".join(pretty_card(c) for c in o.trumps))
        for g, cards in o.plain.items():
            out.append(f"    {SUIT_SYMBOLS.get(g, g)} plain: " + " ".join(pretty_card(c) for c in cards))
    p = r.play
    rules = [("follow the suit led (trumps are one suit)", p.follow_suit),
             ("trump when void", p.trump_when_void),
             ("beat the winning card when able", p.must_beat)]
    out.append("  play: " + "; ".join(t for t, on in rules if on) if any(on for _, on in rules)
               else "  play: no obligations")
    return out


def _contract_lines(r: Ruleset) -> list[str]:
    """One row per contract: how it comes about, who plays it, its goal."""
    out: list[str] = []
    out.append("")
    out.append("Contracts")
    rows = []
    for name, c in r.contracts.items():
        if c.bid_rank is not None:
            how = (f"bid (rank {c.bid_rank}" + ("" if c.bid_class is None else
                                                f", class {c.bid_class}") + ")"
                   + (", first call only" if c.first_call_only else ""))
        elif name in r.auction.dealt:
            how = "dealt: wins before the auction"
        elif name in r.auction.no_bid:
            how = "nobody bid"
        else:
            how = "-"
        if c.team == "each":
            team = "each for himself"
        elif c.team == "holders":
            team = "holders of " + " ".join(pretty_card(x) for x in c.team_cards)
        elif c.team == "called":
            team = "declarer + holder of the first he lacks of " + " ".join(
                pretty_card(x) for x in c.team_cards)
        else:
            team = f"alone vs {r.deck.players - 1}"
        goal = "wins at once" if c.instant else {
            "all_tricks": "all tricks", "no_tricks": "no trick",
            "fewest_points": "not the most points"}.get(
            c.goal, f"{number(r.win_points_of(name))}+ points")
        if c.open_hand:
            team += ", played open"
        rows.append([name, how, describe(c.eligible), team, goal, "-" if c.order is None else c.order,
                     str(r.max_doubles(name))])
    out.append(table(["contract", "how", "who", "team", "goal", "order", "max doubles"], rows))
    return out


def _auction_lines(r: Ruleset) -> list[str]:
    """The auction, its restrictions and doubling."""
    out: list[str] = []
    a = r.auction
    out.append("")
    style = {"open": "open: clockwise from forehand; pass, a higher bid, or the next double",
             "ask": f"forehand opens with a bid or {a.ask_call!r}, then clockwise; "
                    "pass, a higher bid, or the next double",
             "single": "only seats that may bid speak, once each: a bid or pass",
             "value": "bidding by value: each seat after forehand in turn bids to the senior "
                      f"left standing, who holds ({r.hold_call()!r}) or passes"}[a.style]
    out.append(f"Auction: {style}")
    if a.style == "value":
        values = a.values or []
        out.append(f"  values {', '.join(map(str, values[:6]))}, ... {values[-1]}; the seat "
                   "left standing declares a contract that can reach his bid")
    elif a.style != "single":
        out.append(f"  ends after {a.end_after_passes} passes in a row after a call, "
                   f"{a.end_after_passes_without_call} if nobody called")
    elif a.doubles_after_single_round:
        out.append("  then a doubling round on the bid in force, from forehand: pass or the next "
                   f"double, until {a.end_after_passes} passes follow a double or four none")
    if a.reopen_after_silent_round is not None:
        announce = " or ".join(a.reopen_after_silent_round.announce)
        out.append("  reopened once after a first round without bid or double: from forehand, "
                   f"pass or announce {announce};")
        out.append("    an announcement is in force as the auction restarts from forehand "
                   "(it ends once all four have spoken)")
    out.append(f"  nobody bid: first of {', '.join(a.no_bid)} that applies")
    if a.dealt:
        out.append(f"  dealt contracts (no auction): {', '.join(a.dealt)}")
    for res in a.restrictions:
        cond = []
        if res.holding is not None:
            cond.append("to a seat that " + describe(res.holding))
        if res.first_call is not None:
            cond.append("at the first call" if res.first_call else "after the first call")
        if res.bid_in_force is not None:
            cond.append("with a bid in force" if res.bid_in_force else "with no bid in force")
        if res.asked is not None:
            cond.append(f"after saying {a.ask_call!r}" if res.asked
                        else f"before saying {a.ask_call!r}")
        out.append(f"  forbidden: {', '.join(res.forbid)} — {'; '.join(cond) or 'always'}"
                   + (f"  [{res.note}]" if res.note else ""))
    dbl = r.doubling
    if dbl.names:
        out.append(f"Doubling: {' → '.join(dbl.names)}, each counted double ×{number(dbl.factor)}; "
                   f"before any bid: {r.cap_without_bid()} allowed; {OWN_SIDE_DOUBLE[dbl.own_side or 'ignored']}; "
                   "a higher bid cancels them")
        out.append("  " + _first_double(r))
    else:
        out.append("Doubling: none")
    return out


OWN_SIDE_DOUBLE = {
    "ignored": "only doubles alternating between the sides count (one on one's own side's double "
               "may be said but does not count)",
    "forbidden": "a side may not double its own side's double",
}


def _payout_lines(r: Ruleset) -> list[str]:
    """What each contract pays, tiers, ties and multipliers."""
    out: list[str] = []
    dbl = r.doubling
    s = r.scoring
    out.append("")
    who_pays = {"zero_sum": "each loser pays it, each winner receives it",
                "winners_only": "each winner receives it, losers pay nothing",
                "old_side_only": "gained by each old-side seat when it wins, lost when it "
                                 "loses; nobody else is scored (a score sheet)"}[s.style]
    lone = ("" if s.style == "old_side_only" else " (a lone player: from or to each of the "
            "others)" if s.lone_settlement != "once" else
            " (a lone player: once in all, shared by the others)")
    out.append(f"Payouts: the value of a hand, {who_pays}{lone}"
               + ("; the multipliers listed below are included" if s.multipliers else ""))
    levels = ["-"] + dbl.names
    rows = []
    for name, c in r.contracts.items():
        cap = r.max_doubles(name)
        for result, price in (("won", c.payout.won), ("lost", c.payout.lost)):
            if price is None:
                continue
            factor = _multiplier(r, name, "old_side_won" if result == "won" else "old_side_lost")
            tiers = ["out", "schneider", "schwarz"] if price.tiered else ["—"]
            for tier in tiers:
                base = price.value(tier if tier != "—" else "out") * factor
                row = [name, result, tier]
                for lvl in range(len(levels)):
                    row.append(number(base * dbl.factor ** lvl) if lvl <= cap else "x")
                rows.append(row)
    out.append(table(["contract", "result", "tier"] + levels, rows))
    out.append("  (result: of the old side — the declarer's side, or the holders of the team "
               "cards)")
    per_side = ("" if s.old_side_schneider_max_points is None else
                f" ({number(s.old_side_schneider_max_points)} for the old side)")
    out.append(f"  tiers of the losing side: schneider at most {number(s.schneider_max_points)} "
               f"points{per_side} with a trick, schwarz no trick")
    if s.tie == "nobody_wins":
        out.append(f"  {tie_name(r)}: nobody wins, nothing is paid")
    elif s.tie == "old_side_loses":
        out.append(f"  {tie_name(r)}: the old side loses, whatever was doubled")
    else:
        tv = ("" if s.tie_value_without_double is None
              else f"; with no double the value is {number(s.tie_value_without_double)}")
        out.append(f"  {tie_name(r)}: the side of the last counted double loses; with none, the "
                   "old side"
                   f"{tv}")
    for name, c in r.contracts.items():
        if c.add_on_to is not None:
            out.append(f"  {name}: an add-on to {c.add_on_to}: its bidder may add it and keep "
                       "the doubles said")
        if c.called_card_rules is not None:
            out.append(f"  {name}: the called card's holder plays it when its suit is led, never "
                       "on another suit, and leads the suit only with it (unless he holds "
                       f"{c.called_card_rules.run_away_with} of it), until the suit is first led")
        if c.team == "each":
            out.append(f"  {name}: {each_alone_text(c)}")
        if c.laufende is not None:
            out.append(f"  {name}: Laufende from {c.laufende.from_} add {number(c.laufende.value)}"
                       " each (top cards one side holds without a gap, of "
                       + " ".join(pretty_card(x) for x in c.laufende_cards(r.orders)) + ")")
    for m in s.multipliers:
        which = ", ".join(m.contracts) if m.contracts else "every contract"
        applied = (f"applied only at {tie_name(r)}" if m.when == "tie"
                   else f"included in the '{'won' if m.when == 'old_side_won' else 'lost'}' rows"
                   " above")
        out.append(f"  ×{number(m.factor)} when {m.when.replace('_', ' ')} ({which}; {applied})"
                   + (f"  [{m.note}]" if m.note else ""))
    if s.revoke_penalty:
        out.append(f"  revoke: offender {number(s.revoke_penalty.offender)}, "
                   f"each other player +{number(s.revoke_penalty.others)} (cannot happen between bots)")
    return out


def _session_lines(r: Ruleset) -> list[str]:
    """How hands add up to a session."""
    out: list[str] = []
    out.append("")
    ss = r.session
    if ss is None:
        out.append("Session scoring: none (each hand stands alone)")
    elif ss.kind == "series":
        opts = f" (options: {', '.join(map(str, ss.hands_options))})" if ss.hands_options else ""
        out.append(f"Session scoring: a series of {ss.hands} hands{opts}; places score "
                   + "/".join(number(x) for x in ss.placement_points)
                   + " (tied places share)" + positive_bonus_text(ss, "; "))
    else:
        out.append(f"Session scoring: a bankroll of {number(ss.start)} each; the session ends after "
                   "the hand in which a player reaches 0; most wins, ties stand")
    if ss is not None and ss.tournament is not None:
        out.append("  " + tournament_text(ss.tournament))
    return out


def positive_bonus_text(ss, sep: str) -> str:
    """The series' bonus for ending positive, after `sep`; nothing where there is none."""
    if not ss.positive_bonus:
        return ""
    return f"{sep}{number(ss.positive_bonus)} bonus points shared by players ending positive"


RANKING_WORDS = {"placement_points": "placement points", "total": "total points",
                 "places": "the number of 1st, then 2nd, ... places"}


def tournament_text(t) -> str:
    seating = ("seats drawn afresh each round" if t.seating == "random" else
               "seats by the plan " + ", ".join("".join(map(str, row)) for row in t.plan))
    forfeit = ""
    if t.forfeit_placement_points is not None or t.forfeit_total is not None:
        forfeit = (f"; a missed round scores {number(t.forfeit_placement_points or 0)} placement "
                   f"points and {number(t.forfeit_total or 0)} points")
    teams = "" if t.team_best is None else (f"; teams count their best {t.team_best} players' "
                                             "placement points")
    return (f"Tournament: {t.rounds} series as rounds, {seating}; ranked by "
            + ", then ".join(RANKING_WORDS[k] for k in t.ranking) + teams + forfeit)

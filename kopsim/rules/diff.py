"""`kopsim rules diff A B`: what changes, in plain words, when the rules of A become those of B.

The diff is semantic, not textual: it compares what the rules *do*. A contract that points at a
new card order is described by how the cards move ("10♣ 10♠ moved into trumps, between A♥ and
10♥"), a price by what is paid ("zolo du lost pays 4 instead of 10"), and effective values are
compared rather than the keys that set them (a doubling cap given explicitly and the same cap
given by default are no difference). Names, descriptions and sources are not rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Contract, Order, Price, Ruleset
from .show import (SUIT_SYMBOLS, PICKUP_WORDS, TALON_WORDS, describe, each_alone_text, number,
                   positive_bonus_text, pretty_card, tie_name, tournament_text)

SECTIONS = ("deck", "card order", "play", "contracts", "auction", "doubling", "scoring", "session")


@dataclass(frozen=True)
class Change:
    section: str  # one of SECTIONS
    text: str

    def __str__(self) -> str:
        return f"{self.section}: {self.text}"


def _cards(cs) -> str:
    return " ".join(pretty_card(c) for c in cs)


def _suit(g: str) -> str:
    return SUIT_SYMBOLS.get(g, g)


def _names(xs) -> str:
    return ", ".join(xs) if xs else "none"


# ------------------------------------------------------------------------------------ card orders


def _runs(seq: list[str], members: set[str]) -> list[tuple[int, int]]:
    """Maximal index ranges [i, j] of consecutive entries of seq that are in members."""
    out, i = [], 0
    while i < len(seq):
        if seq[i] in members:
            j = i
            while j + 1 < len(seq) and seq[j + 1] in members:
                j += 1
            out.append((i, j))
            i = j + 1
        else:
            i += 1
    return out


def _where(seq: list[str], i: int, j: int) -> str:
    above = seq[i - 1] if i > 0 else None
    below = seq[j + 1] if j + 1 < len(seq) else None
    if above and below:
        return f"between {pretty_card(above)} and {pretty_card(below)}"
    if below:
        return f"at the top, above {pretty_card(below)}"
    if above:
        return f"at the bottom, below {pretty_card(above)}"
    return "as the only trumps"


def order_facts(a: Order, b: Order) -> list[str]:
    """How order b differs from order a, one plain sentence per fact."""
    facts: list[str] = []
    ta, tb = list(a.trumps), list(b.trumps)
    into = [c for c in tb if c not in ta]
    out = [c for c in ta if c not in tb]
    group_b = {c: g for g, cs in b.plain.items() for c in cs}
    for i, j in _runs(tb, set(into)):
        facts.append(f"{_cards(tb[i:j + 1])} moved into trumps, {_where(tb, i, j)}")
    if out:
        by_group: dict[str, list[str]] = {}
        for c in out:
            by_group.setdefault(group_b.get(c, "?"), []).append(c)
        facts.append("; ".join(f"{_cards(cs)} no longer trumps (now plain {_suit(g)})"
                               for g, cs in by_group.items()))
    common_a = [c for c in ta if c in tb]
    common_b = [c for c in tb if c in ta]
    if len(ta) != len(tb):
        count = f"{len(tb)} trumps instead of {len(ta)}"
        if facts:
            facts[-1] += f" ({count})"
        else:
            facts.append(count)
    if common_a != common_b:
        facts.append(f"trumps ranked {_cards(tb)} (high to low) instead of {_cards(ta)}")
    moved = set(into) | set(out)
    for g in list(a.plain) + [g for g in b.plain if g not in a.plain]:
        ga, gb = a.plain.get(g), b.plain.get(g)
        explained_b = [c for c in (ga or []) if c not in moved]
        if gb is None:
            if ga and any(c not in into for c in ga):
                facts.append(f"no plain suit {_suit(g)} any more (was {_cards(ga)})")
            continue
        if ga is None:
            facts.append(f"new plain suit {_suit(g)}: {_cards(gb)}")
            continue
        if gb == explained_b:
            continue  # only the cards that moved to or from the trumps
        if [c for c in gb if c not in moved] == explained_b and not [c for c in gb if c in into]:
            continue  # cards that left the trumps joined this suit; said above
        facts.append(f"plain {_suit(g)} is {_cards(gb)} (high to low) instead of {_cards(ga)}")
    return facts


def _order_key(o: Order) -> tuple:
    return (tuple(o.trumps), tuple(sorted((g, tuple(cs)) for g, cs in o.plain.items())))


def _order_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    groups: dict[tuple[str, str], list[str]] = {}
    played_both = []
    for name, cb in b.contracts.items():
        ca = a.contracts.get(name)
        if ca is None or ca.instant or cb.instant or not ca.order or not cb.order:
            continue
        if ca.order not in a.orders or cb.order not in b.orders:
            continue
        played_both.append(name)
        if _order_key(a.orders[ca.order]) != _order_key(b.orders[cb.order]):
            groups.setdefault((ca.order, cb.order), []).append(name)
    out = []
    for (oa, ob), names in groups.items():
        if len(names) == len(played_both) and len(groups) == 1:
            who = "trump order" if len(names) > 1 else f"trump order of {names[0]}"
        else:
            who = f"trump order of {', '.join(names)}"
        renamed = f" ({oa} → {ob})" if oa != ob else ""
        facts = order_facts(a.orders[oa], b.orders[ob]) or ["the same cards, differently grouped"]
        for f in facts:
            out.append(Change("card order", f"{who}{renamed}: {f}"))
    added: dict[str, list[str]] = {}
    for name, cb in b.contracts.items():
        if name not in a.contracts and not cb.instant and cb.order in b.orders:
            added.setdefault(cb.order, []).append(name)
    for ob, names in added.items():
        out += _added_contracts_order(a, b.orders[ob], ob, names)
    return out


def _main_order(r: Ruleset) -> tuple[str, list[str]] | None:
    """The card order most of r's played contracts use, and those contracts."""
    users: dict[str, list[str]] = {}
    for name, c in r.contracts.items():
        if not c.instant and c.order in r.orders:
            users.setdefault(c.order, []).append(name)
    return max(users.items(), key=lambda kv: len(kv[1])) if users else None


def order_text(o: Order) -> str:
    plain = "; ".join(f"plain {_suit(g)} {_cards(cs)}" for g, cs in o.plain.items())
    return f"trumps {_cards(o.trumps)} ({len(o.trumps)}, high to low)" + (f"; {plain}" if plain
                                                                         else "")


def _added_contracts_order(a: Ruleset, order: Order, order_name: str,
                           names: list[str]) -> list[Change]:
    """New contracts with the card order they are played in: that of A's main order, or their
    own, described in full and by how it differs from A's main order."""
    who = ", ".join(names) + (" (new contract)" if len(names) == 1 else " (new contracts)")
    main = _main_order(a)
    if main is not None and _order_key(a.orders[main[0]]) == _order_key(order):
        return [Change("card order", f"{who}: played in the {main[0]} order, as "
                                     f"{', '.join(main[1])}")]
    out = [Change("card order", f"{who}: played in their own order {order_name}: "
                                f"{order_text(order)}")]
    if main is not None:
        # the plain suits are listed in full above; what moved out of or into the trumps is news
        trump_facts = [f for f in order_facts(a.orders[main[0]], order)
                       if "plain suit" not in f and not f.startswith("plain ")]
        if trump_facts:
            out.append(Change("card order", f"{who}: unlike {', '.join(main[1])} ({main[0]}): "
                                            + "; ".join(trump_facts)))
    return out


# ------------------------------------------------------------------------------------- contracts


def price_text(p: Price | None) -> str:
    if p is None:
        return "nothing"
    if p.flat is not None:
        return number(p.flat)
    return f"{number(p.out)}/{number(p.schneider)}/{number(p.schwarz)} (out/schneider/schwarz)"


def _team(c: Contract) -> str:
    if c.team == "holders":
        return f"the holders of {_cards(c.team_cards)}"
    if c.team == "called":
        return f"the declarer and the holder of the first he lacks of {_cards(c.team_cards)}"
    if c.team == "each":
        return "each for himself"
    return "alone against three"


def _how(r: Ruleset, name: str) -> str:
    c = r.contracts[name]
    if name in r.auction.dealt:
        return "dealt (won before the auction)"
    if c.bid_rank is not None:
        return "bid in the auction"
    if name in r.auction.no_bid:
        return "played when nobody bids"
    return "never played"


def _goal(r: Ruleset, c: Contract) -> str:
    if c.instant:
        return "wins at once"
    return {"all_tricks": "all tricks", "no_tricks": "no trick",
            "fewest_points": "not the most card points"}.get(
        c.goal, f"{number(r.win_points())}+ card points")


def contract_summary(r: Ruleset, name: str) -> str:
    c = r.contracts[name]
    bits = [_how(r, name), f"who: {describe(c.eligible)}", _team(c), _goal(r, c),
            f"won pays {price_text(c.payout.won)}"]
    if c.payout.lost is not None:
        bits.append(f"lost pays {price_text(c.payout.lost)}")
    return "; ".join(bits)


def _price_changes(name: str, result: str, pa: Price | None, pb: Price | None) -> list[str]:
    if pa == pb:
        return []
    if pa is not None and pb is not None and pa.tiered and pb.tiered:
        return [f"{name} {result} {t} pays {number(pb.value(t))} instead of {number(pa.value(t))}"
                for t in ("out", "schneider", "schwarz") if pa.value(t) != pb.value(t)]
    return [f"{name} {result} pays {price_text(pb)} instead of {price_text(pa)}"]


def _contract_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    out: list[Change] = []
    add = lambda t: out.append(Change("contracts", t))  # noqa: E731
    for name in a.contracts:
        if name not in b.contracts:
            add(f"{name} removed (was: {contract_summary(a, name)})")
    for name in b.contracts:
        if name not in a.contracts:
            add(f"{name} added: {contract_summary(b, name)}")
    for name, cb in b.contracts.items():
        ca = a.contracts.get(name)
        if ca is None:
            continue
        if _how(a, name) != _how(b, name):
            add(f"{name}: {_how(b, name)} instead of {_how(a, name)}")
        if ca.eligible != cb.eligible:
            add(f"{name}: who may play it: {describe(cb.eligible)} instead of "
                f"{describe(ca.eligible)}")
        if ca.first_call_only != cb.first_call_only:
            add(f"{name}: only as a player's first call" if cb.first_call_only
                else f"{name}: no longer only as a player's first call")
        if (ca.team, ca.team_cards) != (cb.team, cb.team_cards):
            add(f"{name}: played by {_team(cb)} instead of {_team(ca)}")
        if _goal(a, ca) != _goal(b, cb):
            add(f"{name}: goal {_goal(b, cb)} instead of {_goal(a, ca)}")
        if a.max_doubles(name) != b.max_doubles(name) and not (
                ca.max_doubles is None and cb.max_doubles is None and ca.instant == cb.instant):
            # (both by default: the doubling chain changed, which is said once under doubling)
            n = b.max_doubles(name)
            add(f"{name}: at most {n} double{'' if n == 1 else 's'} instead of "
                f"{a.max_doubles(name)}")
        if ca.add_on_to != cb.add_on_to:
            add(f"{name}: an add-on to {cb.add_on_to} (its bidder keeps the doubles)"
                if cb.add_on_to else f"{name}: no longer an add-on")
        if bool(ca.first_double_young_only) != bool(cb.first_double_young_only):
            add(f"{name}: only the young side may give the first double"
                if cb.first_double_young_only else
                f"{name}: the old side may give the first double too")
        if ca.declarer_may_double_first != cb.declarer_may_double_first:
            add(f"{name}: the declarer may give the first double" if cb.declarer_may_double_first
                else f"{name}: the declarer may no longer give the first double")
        for result in ("won", "lost"):
            for t in _price_changes(name, result, getattr(ca.payout, result),
                                    getattr(cb.payout, result)):
                add(t)
        if ca.called_card_rules != cb.called_card_rules:
            duty = lambda c: ("none" if c.called_card_rules is None else  # noqa: E731
                              f"running away with {c.called_card_rules.run_away_with}")
            add(f"{name}: called-card duties {duty(cb)} instead of {duty(ca)}")
        if ca.team == cb.team == "each" and each_alone_text(ca) != each_alone_text(cb):
            add(f"{name}: {each_alone_text(cb)} instead of: {each_alone_text(ca)}")
        if (ca.laufende, ca.laufende_cards(a.orders)) != (cb.laufende, cb.laufende_cards(b.orders)):
            add(f"{name}: Laufende {_laufende(b, cb)} instead of {_laufende(a, ca)}")
    return out


def _laufende(r: Ruleset, c: Contract) -> str:
    if c.laufende is None:
        return "none"
    return (f"from {c.laufende.from_}, {number(c.laufende.value)} each, of "
            + " ".join(pretty_card(x) for x in c.laufende_cards(r.orders)))


# ----------------------------------------------------------------------------- auction & scoring


def _restriction_text(r: Ruleset, res) -> str:
    cond = []
    if res.holding is not None:
        cond.append(f"to a player who {describe(res.holding)}")
    if res.first_call is not None:
        cond.append("at his first call" if res.first_call else "after his first call")
    if res.bid_in_force is not None:
        cond.append("with a bid in force" if res.bid_in_force else "with no bid in force")
    if res.asked is not None:
        ask = r.auction.ask_call
        cond.append(f"after he said {ask!r}" if res.asked else f"before he said {ask!r}")
    return f"{', '.join(res.forbid)} forbidden {', '.join(cond) or 'always'}"


def _listdiff(old: list, new: list) -> tuple[list, list]:
    removed = [x for x in old if x not in new]
    added = [x for x in new if x not in old]
    return removed, added


def _auction_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    out: list[Change] = []
    add = lambda t: out.append(Change("auction", t))  # noqa: E731
    x, y = a.auction, b.auction
    styles = {"open": "open", "ask": "ask (forehand bids or asks first)",
              "single": "single call per seat", "value": "bidding by value"}
    if x.style != y.style:
        add(f"style {styles[y.style]} instead of {styles[x.style]}")
    if (x.values or []) != (y.values or []) and x.style == y.style == "value":
        add(f"bid values {', '.join(map(str, y.values or []))} instead of "
            f"{', '.join(map(str, x.values or []))}")
    if bool(x.doubles_after_single_round) != bool(y.doubles_after_single_round):
        add("a doubling round follows the declarations" if y.doubles_after_single_round
            else "no doubling round after the declarations")
    announce = [[] if r is None else r.announce
                for r in (x.reopen_after_silent_round, y.reopen_after_silent_round)]
    if announce[0] != announce[1]:
        add(f"a silent first round reopens the auction for {' or '.join(announce[1])}"
            if announce[1] else "a silent first round ends the auction (no reopening)")
    if y.style == "ask" and x.style == "ask" and x.ask_call != y.ask_call:
        add(f"the ask call is named {y.ask_call!r} instead of {x.ask_call!r}")
    if x.end_after_passes != y.end_after_passes:
        add(f"ends after {y.end_after_passes} passes in a row after a call instead of "
            f"{x.end_after_passes}")
    if x.end_after_passes_without_call != y.end_after_passes_without_call:
        add(f"ends after {y.end_after_passes_without_call} passes in a row when nobody called "
            f"instead of {x.end_after_passes_without_call}")
    common = [n for n in b.bids() if n in a.bids()]
    if b.bids() != a.bids() and (common != [n for n in a.bids() if n in b.bids()]
                                 or len(b.bids()) != len(common) or len(a.bids()) != len(common)):
        add(f"bids, lowest first: {_names(b.bids())} instead of {_names(a.bids())}")
    classes = lambda r: [(n, r.contracts[n].bid_class) for n in r.bids()  # noqa: E731
                         if r.contracts[n].bid_class is not None]
    if classes(a) != classes(b):
        text = lambda r: (", ".join(f"{n} {k}" for n, k in classes(r))  # noqa: E731
                          or "none: a higher bid beats a lower")
        add(f"bid classes (a bid beats only a lower class): {text(b)} instead of {text(a)}")
    if x.no_bid != y.no_bid:
        add(f"when nobody bids: first of {_names(y.no_bid)} that applies instead of "
            f"{_names(x.no_bid)}")
    if x.dealt != y.dealt:
        add(f"contracts dealt before the auction: {_names(y.dealt)} instead of {_names(x.dealt)}")
    old = [_restriction_text(a, res) for res in x.restrictions]
    new = [_restriction_text(b, res) for res in y.restrictions]
    removed, added = _listdiff(old, new)
    for t in removed:
        add(f"restriction dropped: {t}")
    for t in added:
        add(f"new restriction: {t}")
    return out


def _doubling_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    out: list[Change] = []
    add = lambda t: out.append(Change("doubling", t))  # noqa: E731
    x, y = a.doubling, b.doubling
    chain = lambda d: " → ".join(d.names) if d.names else "no doubling"  # noqa: E731
    if x.names != y.names:
        add(f"chain {chain(y)} instead of {chain(x)}")
    if x.factor != y.factor:
        add(f"each counted double ×{number(y.factor)} instead of ×{number(x.factor)}")
    if a.cap_without_bid() != b.cap_without_bid():
        add(f"{b.cap_without_bid()} doubles allowed before any bid instead of "
            f"{a.cap_without_bid()}")
    if (x.own_side or "ignored") != (y.own_side or "ignored"):
        add("a side may not double its own side's double" if y.own_side == "forbidden" else
            "a side may double its own side's double (it does not count)")
    return out


def _multiplier_text(m) -> str:
    which = ", ".join(m.contracts) if m.contracts else "every contract"
    return f"×{number(m.factor)} when {m.when.replace('_', ' ')} ({which})"


def _scoring_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    out: list[Change] = []
    add = lambda t: out.append(Change("scoring", t))  # noqa: E731
    x, y = a.scoring, b.scoring
    styles = {"zero_sum": "zero-sum (losers pay winners)",
              "winners_only": "winners only (nothing taken from losers)",
              "old_side_only": "the old side only (a score sheet: nobody else is scored)"}
    if x.style != y.style:
        add(f"{styles[y.style]} instead of {styles[x.style]}")
    if a.win_points() != b.win_points():
        add(f"a side wins with {number(b.win_points())} card points instead of "
            f"{number(a.win_points())}")
    if x.schneider_max_points != y.schneider_max_points:
        add(f"schneider at {number(y.schneider_max_points)} points or fewer instead of "
            f"{number(x.schneider_max_points)}")
    if x.old_side_schneider_max_points != y.old_side_schneider_max_points:
        old = lambda s: ("as the young side" if s.old_side_schneider_max_points is None  # noqa
                         else f"at {number(s.old_side_schneider_max_points)} points or fewer")
        add(f"the old side schneider {old(y)} instead of {old(x)}")
    if (x.lone_settlement or "each_opponent") != (y.lone_settlement or "each_opponent"):
        add("a lone player settled once, a third with each opponent" if y.lone_settlement ==
            "once" else "a lone player settled with each opponent")
    ties = {"last_double_loses": "the side of the last counted double loses",
            "nobody_wins": "nobody wins, nothing is paid",
            "old_side_loses": "the old side loses, whatever was doubled"}
    if x.tie != y.tie:
        add(f"{tie_name(b)}: {ties[y.tie]} instead of {ties[x.tie]}")
    if x.tie_value_without_double != y.tie_value_without_double:
        val = lambda v: "the contract's value" if v is None else number(v)  # noqa: E731
        add(f"{tie_name(b)} with no double is worth {val(y.tie_value_without_double)} instead of "
            f"{val(x.tie_value_without_double)}")
    removed, added = _listdiff([_multiplier_text(m) for m in x.multipliers],
                               [_multiplier_text(m) for m in y.multipliers])
    for t in removed:
        add(f"multiplier dropped: {t}")
    for t in added:
        add(f"new multiplier: {t}")
    if x.revoke_penalty != y.revoke_penalty:
        rp = lambda p: ("none" if p is None  # noqa: E731
                        else f"offender {number(p.offender)}, others +{number(p.others)}")
        add(f"revoke penalty {rp(y.revoke_penalty)} instead of {rp(x.revoke_penalty)}")
    return out


def session_text(r: Ruleset) -> str:
    s = r.session
    if s is None:
        return "none (each hand stands alone)"
    if s.kind == "series":
        return (f"a series of {s.hands} hands, places score "
                + "/".join(number(p) for p in s.placement_points)
                + positive_bonus_text(s, ", "))
    return f"a bankroll of {number(s.start)} each, played until a player reaches 0"


def _session_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    x, y = a.session, b.session
    if x == y:
        return []
    if x is None or y is None or x.kind != y.kind:
        return [Change("session", f"{session_text(b)} instead of {session_text(a)}")]
    out: list[Change] = []
    add = lambda t: out.append(Change("session", t))  # noqa: E731
    if x.hands != y.hands:
        add(f"{y.hands} hands per series instead of {x.hands}")
    if x.hands_options != y.hands_options:
        add(f"series lengths offered: {_names([str(h) for h in y.hands_options])} instead of "
            f"{_names([str(h) for h in x.hands_options])}")
    if x.placement_points != y.placement_points:
        pp = lambda s: "/".join(number(p) for p in s.placement_points)  # noqa: E731
        add(f"places score {pp(y)} instead of {pp(x)}")
    if x.tournament != y.tournament:
        add(tournament_text(y.tournament) if y.tournament is not None else "no tournament")
    if x.positive_bonus != y.positive_bonus:
        add(f"bonus for ending positive {number(y.positive_bonus)} instead of "
            f"{number(x.positive_bonus)}")
    if x.start != y.start:
        add(f"each player starts with {number(y.start)} instead of {number(x.start)}")
    return out


def _deck_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    out: list[Change] = []
    x, y = a.deck, b.deck
    if len(a.cards()) != len(b.cards()):
        out.append(Change("deck", f"{len(b.cards())} cards instead of {len(a.cards())}"))
    if x.ranks != y.ranks:
        out.append(Change("deck", f"ranks {' '.join(y.ranks)} instead of {' '.join(x.ranks)}"))
    if x.suits != y.suits:
        out.append(Change("deck", f"suits {' '.join(_suit(s) for s in y.suits)} instead of "
                          f"{' '.join(_suit(s) for s in x.suits)}"))
    for rank in y.ranks:
        if rank in x.points and x.points[rank] != y.points.get(rank):
            out.append(Change("deck", f"{rank} worth {number(y.points[rank])} card points instead "
                              f"of {number(x.points[rank])}"))
    if a.total_points() != b.total_points():
        out.append(Change("deck", f"{number(b.total_points())} card points in all instead of "
                          f"{number(a.total_points())}"))
    return out + _talon_changes(a, b)


def _talon_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    """The talon's size, and whose points it counts in for each contract both rulesets play."""
    if a.talon_cards() != b.talon_cards():
        return [Change("deck", f"{b.talon_cards()} cards to the talon instead of "
                       f"{a.talon_cards()}")]
    both = [name for name in b.contracts if name in a.contracts]
    words = TALON_WORDS
    out = [Change("deck", f"{name}: the talon's points count for "
                  f"{words[b.talon_points_of(name)]} instead of {words[a.talon_points_of(name)]}")
           for name in both if a.talon_points_of(name) != b.talon_points_of(name)]
    return out + [Change("deck", f"{name}: {PICKUP_WORDS[b.talon_pick_up_of(name)]} (was: "
                         f"{PICKUP_WORDS[a.talon_pick_up_of(name)]})")
                  for name in both if a.talon_pick_up_of(name) != b.talon_pick_up_of(name)]


def _play_changes(a: Ruleset, b: Ruleset) -> list[Change]:
    words = {"follow_suit": "follow the suit led", "trump_when_void": "trump when void",
             "must_beat": "beat the winning card when able"}
    out = []
    for key, text in words.items():
        va, vb = getattr(a.play, key), getattr(b.play, key)
        if va != vb:
            out.append(Change("play", f"must {text}" if vb else f"no longer must {text}"))
    both = [name for name in b.contracts if name in a.contracts]
    return out + [Change("play", f"{name}: " + ("played open, the declarer's cards face up"
                                                 if b.contracts[name].open_hand else
                                                 "no longer played open"))
                  for name in both
                  if bool(a.contracts[name].open_hand) != bool(b.contracts[name].open_hand)]


def diff_rules(a: Ruleset, b: Ruleset) -> list[Change]:
    """Every rule difference from a to b, in SECTIONS order."""
    return (_deck_changes(a, b) + _order_changes(a, b) + _play_changes(a, b)
            + _contract_changes(a, b) + _auction_changes(a, b) + _doubling_changes(a, b)
            + _scoring_changes(a, b) + _session_changes(a, b))


def format_diff(a: Ruleset, b: Ruleset, changes: list[Change]) -> str:
    head = f"{a.name} → {b.name}"
    if a.sha256() == b.sha256():
        return f"{head}: identical rulesets (sha256 {a.sha256()[:12]})"
    if not changes:
        return f"{head}: no rule differences (only names, descriptions or sources differ)"
    lines = [f"{head}: {len(changes)} rule difference{'s' if len(changes) != 1 else ''}"]
    for section in SECTIONS:
        items = [c.text for c in changes if c.section == section]
        if items:
            lines.append("")
            lines.append(section)
            lines += [f"  - {t}" for t in items]
    return "\n".join(lines)

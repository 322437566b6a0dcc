"""The semantic checks of a ruleset the models accepted, and the bounds derived from it."""

from __future__ import annotations

from ..errors import Problem, did_you_mean, dotted
from .model import (COPY_MARK, Ramsch, MAX_AUCTION_CALLS, MAX_CARDS, MAX_CONTRACTS,
                    MAX_HAND_VALUE, MAX_PREDICATE_NODES, Predicate, Ruleset, positions)


# ------------------------------------------------------------------------------------- semantics


def check_semantics(r: Ruleset, source: str) -> list[Problem]:
    probs: list[Problem] = []

    def bad(where: str, msg: str) -> None:
        probs.append(Problem(source, where, msg))

    _check_deck(r, bad)
    if probs:
        return probs  # nothing below makes sense without a sound deck
    cards = r.deck.cards()
    _check_orders(r, cards, bad)
    _check_doubling(r, bad)
    _check_call_names(r, bad)
    _check_contracts(r, cards, bad)
    _check_auction(r, cards, bad)
    _check_multipliers(r, bad)
    _check_talon(r, bad)
    _check_game_value(r, bad)
    if probs:
        return probs  # the bounds below read contracts, chain and orders as sound
    _check_bounds(r, bad)
    _check_session(r, bad)
    return probs


def _check_deck(r: Ruleset, bad) -> None:
    deck = r.deck
    for key, seq in (("deck.ranks", deck.ranks), ("deck.suits", deck.suits)):
        for x in {x for x in seq if seq.count(x) > 1}:
            bad(key, f"{x!r} is listed more than once")
    for rank in deck.ranks:
        if rank not in deck.points:
            bad("deck.points", f"no card points for rank {rank!r}")
    for rank in deck.points:
        if rank not in deck.ranks:
            bad(f"deck.points.{rank}", f"{rank!r} is not a rank of the deck")
    if len(deck.cards()) != len(set(deck.cards())):
        bad("deck", "two rank+suit combinations spell the same card name")
    cards = deck.dealt_cards()
    if len(cards) != len(set(cards)):
        bad("deck.copies", f"a copy's name ({COPY_MARK} and its number after a card) spells "
            "another card's name: rename the suits or ranks")
    talon = r.talon_cards()
    if talon >= len(cards):
        bad("talon.cards", f"{talon} cards to the talon leave none of the {len(cards)} for the "
            "players")
    elif (len(cards) - talon) % deck.players:
        less = f" less the talon's {talon}" if talon else ""
        bad("deck", f"{len(cards)} cards{less} cannot be dealt evenly to {deck.players} players")
    if len(cards) > MAX_CARDS:
        bad("deck", f"{len(cards)} cards: at most {MAX_CARDS} are supported")
    if len(r.contracts) > MAX_CONTRACTS:
        bad("contracts", f"{len(r.contracts)} contracts: at most {MAX_CONTRACTS} are supported")


def _check_talon(r: Ruleset, bad) -> None:
    """A talon's points go where a contract has someone to take them, and what the engines read
    of the dealt hands does not miss the cards lying in it."""
    for cname, c in r.contracts.items():
        where = f"contracts.{dotted([cname])}"
        if r.talon is None:
            for key in ("talon_points", "talon_pick_up"):
                if getattr(c, key) is not None:
                    bad(f"{where}.{key}", "the rules deal no talon (add a [talon] table)")
            continue
        if c.talon_pick_up not in (None, "never") and (c.team == "each" or c.instant):
            bad(f"{where}.talon_pick_up", f"contract {cname!r} has no declarer to pick the talon "
                "up (it is played each for himself, or not played): \"never\"")
        if c.instant:
            continue  # nobody plays: the talon stays where it lies
        if c.team in ("holders", "called"):
            bad(f"{where}.team", f"a {c.team!r} side is formed by who holds its team cards, and "
                "with a talon one may lie there, unheld: with a talon a contract is played "
                "`alone` or `each` for himself")
        where_points = f"{where}.talon_points" if c.talon_points is not None else "talon.points"
        if c.laufende is not None and r.talon_points_of(cname) != "old_side":
            bad(f"{where}.laufende", "Laufende count a card lying in the talon with the old side "
                "(Skat's matadors): the talon's points must go to it as well "
                "(talon_points = \"old_side\")")
        if c.team == "each" and r.talon_points_of(cname) == "old_side":
            bad(where_points, f"contract {cname!r} is played each for himself: it has no old side "
                "to take the talon's points (\"last_trick\" or \"nobody\")")


def _check_cards(where: str, seq: list[str], cards: list[str], bad) -> None:
    """Every entry of `seq` is one of the deck's `cards`."""
    for i, c in enumerate(seq):
        if c not in cards:
            bad(f"{where}[{i}]", f"{c!r} is not a card of the deck{did_you_mean(c, cards)} "
                f"({', '.join(cards)})")


def _check_orders(r: Ruleset, cards: list[str], bad) -> None:
    for oname, order in r.orders.items():
        where = f"orders.{dotted([oname])}"
        if not order.trumps and not order.plain:
            bad(where, "an order needs trumps or plain suits")
        seq = list(order.trumps) + [c for g in order.plain.values() for c in g]
        _check_cards(f"{where}.trumps", order.trumps, cards, bad)
        for g, group in order.plain.items():
            _check_cards(f"{where}.plain.{dotted([g])}", group, cards, bad)
        for c in sorted({c for c in seq if seq.count(c) > 1}):
            bad(where, f"card {c} appears more than once")
        missing = [c for c in cards if c not in seq]
        if missing:
            bad(where, f"the order misses {', '.join(missing)} (every card must appear once)")
    if not r.orders:
        bad("orders", "at least one card order is needed")


def _check_doubling(r: Ruleset, bad) -> None:
    chain = r.doubling.names
    for x in {x for x in chain if chain.count(x) > 1}:
        bad("doubling.names", f"{x!r} is listed more than once")
    if r.doubling.cap_without_bid is not None and r.doubling.cap_without_bid > len(chain):
        bad("doubling.cap_without_bid",
            f"cap {r.doubling.cap_without_bid} is beyond the doubling chain ({len(chain)} names)")


def _check_contracts(r: Ruleset, cards: list[str], bad) -> None:
    reserved = {"pass", r.auction.ask_call, "double", *r.doubling.names}
    ranks_seen: dict[int, str] = {}
    for cname, c in r.contracts.items():
        where = f"contracts.{dotted([cname])}"
        if cname in reserved:
            bad(where, f"a contract cannot be named {cname!r}: that is a call of the auction")
        if c.bid_rank is not None:
            if c.bid_rank in ranks_seen:
                bad(f"{where}.bid_rank",
                    f"rank {c.bid_rank} is also the rank of {ranks_seen[c.bid_rank]!r}")
            ranks_seen[c.bid_rank] = cname
        _check_contract_play(r, cname, c, where, bad)
        _check_contract_team(r, c, where, cards, bad)
        _check_laufende(r, c, where, cards, bad)
        _check_called_card_rules(r, c, where, bad)
        _check_add_on(r, c, where, bad)
        _check_thrown_in(c, where, bad)
        _check_contract_doubles(r, c, where, bad)
        _check_each_alone(r, cname, c, where, bad)
        _check_with_copies(r, c, where, bad)
    _check_bid_classes(r, bad)


def _check_with_copies(r: Ruleset, c, where: str, bad) -> None:
    """With copies, a card the rules name stands for every copy of it; the rules that single
    out one card (a called card, Laufende, Ramsch's tie broken on the highest trump) have no
    reading for equal cards yet, and are refused rather than guessed."""
    if not r.deck.copies or r.deck.copies == 1:
        return
    with_copies = f"with deck.copies = {r.deck.copies}"
    if c.team == "called":
        bad(f"{where}.team", f"a called card is one card: not {with_copies} (holders, alone "
            "and each are)")
    if c.laufende is not None:
        bad(f"{where}.laufende", f"Laufende count single cards: not {with_copies}")
    if c.team == "each":  # both of its tie-breaks end on the highest trump played
        bad(f"{where}.team", f"a hand played each for himself breaks ties on the highest "
            f"trump, which two can play {with_copies}")


def _check_bid_classes(r: Ruleset, bad) -> None:
    """Classes, if given, are given to every bid and rise with the ranks (the canonical order
    of the calls), so that "a higher class" and "a later call" agree."""
    bids = r.bids()
    classed = [n for n in bids if r.contracts[n].bid_class is not None]
    if not classed:
        return
    for n in bids:
        if r.contracts[n].bid_class is None:
            bad(f"contracts.{dotted([n])}.bid_class", "every biddable contract needs a bid_class "
                f"once one has ({classed[0]!r} has one)")
    for lower, higher in zip(classed, classed[1:]):
        if r.contracts[higher].bid_class < r.contracts[lower].bid_class:
            bad(f"contracts.{dotted([higher])}.bid_class", f"class {r.contracts[higher].bid_class}"
                f" is below {lower!r}'s ({r.contracts[lower].bid_class}) though its bid_rank is "
                "higher: classes must rise with the ranks")


def _check_contract_play(r: Ruleset, cname: str, c, where: str, bad) -> None:
    """The contract can be reached, and if it is played it has an order and a price for losing."""
    reachable = (c.bid_rank is not None or cname in r.auction.no_bid
                 or cname in r.auction.dealt)
    if not reachable:
        bad(where, "the contract can never be played: give it a bid_rank or list it in "
            "auction.no_bid or auction.dealt")
    if c.bid_class is not None and c.bid_rank is None:
        bad(f"{where}.bid_class", "a bid class orders bids: the contract needs a bid_rank "
            "(nobody can bid it)")
    if not c.instant:
        if c.order is None:
            bad(f"{where}.order", "missing: a played contract needs a card order")
        elif c.order not in r.orders:
            bad(f"{where}.order",
                f"no card order named {c.order!r}{did_you_mean(c.order, r.orders)} "
                f"(orders: {', '.join(r.orders)})")
        if c.payout.lost is None:
            bad(f"{where}.payout.lost", "missing: a played contract can be lost")


def _check_each_alone(r: Ruleset, cname: str, c, where: str, bad) -> None:
    """A hand played each for himself (Ramsch) is what nobody bids, and is priced flat: there
    is no declarer to bid it, double it, count Laufende for or call a card."""
    if (c.team == "each") != (c.goal == "fewest_points"):
        bad(f"{where}.goal" if c.team == "each" else f"{where}.team",
            'each for himself and the fewest points go together: team = "each" with goal = '
            '"fewest_points"')
    if c.ramsch is not None and c.team != "each":
        bad(f"{where}.ramsch", 'the Ramsch settings belong to a contract with team = "each"')
    if c.team != "each":
        return
    for key, given in (("bid_rank", c.bid_rank is not None), ("instant", c.instant),
                       ("team_cards", bool(c.team_cards)), ("laufende", c.laufende is not None),
                       ("called_card_rules", c.called_card_rules is not None)):
        if given:
            bad(f"{where}.{key}", "a hand played each for himself has no declarer: it is "
                "played when nobody bids (auction.no_bid), without team cards or Laufende")
    if cname not in r.auction.no_bid:
        bad(where, "a hand played each for himself is played when nobody bids: list it in "
            "auction.no_bid")
    if r.doubling.names and r.max_doubles(cname) != 0:
        bad(f"{where}.max_doubles", "a hand played each for himself has no sides to double "
            "between: give it max_doubles = 0")
    durch = (c.ramsch or Ramsch()).durchmarsch
    for key in ("won", "lost"):
        price = getattr(c.payout, key)
        if price is not None and price.tiered:
            bad(f"{where}.payout.{key}", "a hand played each for himself is priced flat: give "
                "a number")
    total = r.total_points()
    if isinstance(durch, float) and not total / 2 < durch <= total:
        bad(f"{where}.ramsch.durchmarsch", f"{durch:g} points: a Durchmarsch needs more than "
            f"half the deck's {total:g} points (so one seat alone can make it) and at most all")


def _check_thrown_in(c, where: str, bad) -> None:
    if not c.thrown_in:
        return
    if not c.instant:
        bad(f"{where}.thrown_in", "a hand thrown in is not played: it needs instant = true")
    if c.payout.won.tiered or c.payout.won.value("out") != 0 or c.payout.lost is not None:
        bad(f"{where}.payout", "a hand thrown in pays nothing: payout = { won = 0 }")


def _check_add_on(r: Ruleset, c, where: str, bad) -> None:
    if c.add_on_to is None:
        return
    base = r.contracts.get(c.add_on_to)
    if base is None:
        bad(f"{where}.add_on_to", f"no contract named {c.add_on_to!r}"
            f"{did_you_mean(c.add_on_to, r.contracts)}")
        return
    if base.instant or c.instant:
        bad(f"{where}.add_on_to", "an add-on raises a contract that is played: neither it nor "
            f"{c.add_on_to!r} can be instant (won at once, without play)")
    if c.bid_rank is None or base.bid_rank is None or r.bid_level(c.add_on_to) >= (
            c.bid_class if c.bid_class is not None else c.bid_rank):
        bad(f"{where}.add_on_to", f"an add-on is a bid above the bid {c.add_on_to!r} it adds "
            "on to: both need bid_rank, the add-on the higher")


def _check_called_card_rules(r: Ruleset, c, where: str, bad) -> None:
    if c.called_card_rules is None:
        return
    if c.team != "called":
        bad(f"{where}.called_card_rules", "duties around a called card need team = \"called\"")
        return
    order = r.orders.get(c.order) if c.order is not None else None
    if order is not None:
        for i, card in enumerate(c.team_cards):
            if card in order.trumps:
                bad(f"{where}.team_cards[{i}]", f"{card!r} is a trump in order {c.order!r}: the "
                    "called card's duties concern a plain suit")


def _check_laufende(r: Ruleset, c, where: str, cards: list[str], bad) -> None:
    if c.laufende is None:
        return
    _check_cards(f"{where}.laufende.cards", c.laufende.cards, cards, bad)
    counted = c.laufende_cards(r.orders) if c.order in r.orders or c.laufende.cards else []
    if len(set(counted)) != len(counted):
        bad(f"{where}.laufende.cards", "a card is listed more than once")
    if c.laufende.from_ > len(counted):
        bad(f"{where}.laufende.from", f"{c.laufende.from_} Laufende cannot be held: "
            f"{len(counted)} cards are counted")


def _check_contract_team(r: Ruleset, c, where: str, cards: list[str], bad) -> None:
    """The team cards and the `eligible` holding that decide who plays the contract."""
    _check_cards(f"{where}.team_cards", c.team_cards, cards, bad)
    if c.team in ("holders", "called") and not c.team_cards:
        bad(f"{where}.team_cards", f"team = {c.team!r} needs the cards that form the team")
    if c.team == "alone" and c.team_cards:
        bad(f"{where}.team_cards", "a contract played alone names no team cards")
    if c.eligible is not None:
        for rel, card in c.eligible.cards():
            if card not in cards:
                bad(f"{where}.eligible.{rel}", f"{card!r} is not a card of the deck"
                    f"{did_you_mean(card, cards)}")
        _check_predicate(r, c.eligible, f"{where}.eligible", bad)
    n = r.deck.players
    uneven = _uneven_sides(c, n)
    if uneven and r.scoring.style == "zero_sum":
        # each winner receives what each loser pays: sides of unequal size (neither a lone
        # player) would not add up to zero, and how they settle is no setting yet
        bad(f"{where}.team", f"at a table of {n} this team can be {uneven} against {n - uneven}, "
            "and a zero_sum settlement of unequal sides is not a setting yet: a team of one "
            "or of half the table")
    if c.team == "holders" and r.scoring.style == "zero_sum" and len(set(c.team_cards)) >= n:
        # Every deal is possible and every card is dealt, so with a team card for each seat
        # some deal gives one to each seat: the old side is then the whole table and nobody
        # pays what the winners receive.
        bad(f"{where}.team_cards", f"{len(set(c.team_cards))} cards can be held one by each "
            f"seat, putting all {n} players on the old side (no one to pay in a zero_sum "
            f"ruleset): a holders team needs at most {n - 1} team cards")


def _check_contract_doubles(r: Ruleset, c, where: str, bad) -> None:
    chain = r.doubling.names
    if c.instant and c.max_doubles:
        bad(f"{where}.max_doubles", "an instant contract cannot be doubled (it is never "
            "played, so nothing would price the doubles)")
    if c.max_doubles is not None and c.max_doubles > len(chain):
        bad(f"{where}.max_doubles",
            f"cap {c.max_doubles} is beyond the doubling chain ({len(chain)} names)")


def _check_auction(r: Ruleset, cards: list[str], bad) -> None:
    a = r.auction
    if not a.no_bid:
        bad("auction.no_bid", "name the contract(s) played when nobody bids")
    for key, lst in (("no_bid", a.no_bid), ("dealt", a.dealt)):
        for i, n in enumerate(lst):
            if n not in r.contracts:
                bad(f"auction.{key}[{i}]", f"no contract named {n!r}"
                    f"{did_you_mean(n, r.contracts)}")
            elif n in lst[:i]:  # tried in order: a second entry would never be reached
                bad(f"auction.{key}[{i}]", f"{n!r} is listed twice (first at "
                    f"auction.{key}[{lst.index(n)}])")
    if a.no_bid and all(n in r.contracts and r.contracts[n].eligible is not None
                        for n in a.no_bid):
        bad("auction.no_bid", "some deal would have no contract: at least one entry must have "
            "no `eligible` condition")
    _check_dealt_and_unbid(r, bad)
    _check_restrictions(r, cards, bad)
    if a.style == "single" and r.doubling.names and not a.doubles_after_single_round:
        bad("auction.style", "a single-call auction has no doubling: leave doubling.names empty, "
            "or let a doubling round follow it (auction.doubles_after_single_round = true)")
    if a.doubles_after_single_round and a.style != "single":
        bad("auction.doubles_after_single_round", "a doubling round follows a single "
            "declaration round: it needs style = \"single\" (the other styles double as they go)")
    if a.reopen_after_silent_round is not None:
        _check_reopening(r, bad)
    _check_value_auction(r, bad)


def _check_value_auction(r: Ruleset, bad) -> None:
    """Bidding by value: a ladder of values rising, each one some game can be worth, and calls
    of the other styles left out (what is not built for it is refused, never ignored)."""
    a = r.auction
    if a.style != "value":
        for key in ("values", "hold_call"):
            if getattr(a, key) is not None:
                bad(f"auction.{key}", "only bidding by value has it: style = \"value\"")
        return
    values = a.values or []
    if not values:
        bad("auction.values", "bidding by value needs the values that may be bid, low to high")
    for i in range(1, len(values)):
        if values[i] <= values[i - 1]:
            bad(f"auction.values[{i}]", f"{values[i]} after {values[i - 1]}: the values must "
                "rise")
    # (a contract whose order is missing is reported elsewhere: its Laufende cannot be read)
    known = [n for n in r.bids() if r.contracts[n].order is None
             or r.contracts[n].order in r.orders]
    top = max([r.top_value(n) for n in known] + [0])
    for i, v in enumerate(values):
        if v > top:
            bad(f"auction.values[{i}]", f"no contract with a bid_rank can be worth {v} (the most "
                f"is {top:g}): a declarer who bid it could declare nothing")
            break
    taken = {"pass", "double", *r.contracts, *r.doubling.names}
    for i, v in enumerate(values):
        if str(v) in taken:
            bad(f"auction.values[{i}]", f"the bid {v} is spelled as another call's name")
    if r.hold_call() in taken or r.hold_call() in map(str, values):
        bad("auction.hold_call", f"{r.hold_call()!r} is already the name of another call")
    for key, given in (("restrictions", a.restrictions), ("reopen_after_silent_round",
                                                          a.reopen_after_silent_round),
                       ("doubles_after_single_round", a.doubles_after_single_round)):
        if given:
            bad(f"auction.{key}", "not built for bidding by value yet")
    if r.doubling.names:
        bad("doubling.names", "doubling after a game declared by value (Kontra) is not built "
            "yet: leave the chain empty")
    for cname, c in r.contracts.items():
        if c.talon_pick_up is not None:
            bad(f"contracts.{dotted([cname])}.talon_pick_up", "in bidding by value the talon is "
                "picked up before the game is declared: only talon.pick_up says who does")
    if r.bids() and all(r.contracts[n].hand_only for n in r.bids()):
        bad("contracts", "a declarer who picked the talon up could declare nothing: at least "
            "one contract with a bid_rank must not be hand_only")


def _check_game_value(r: Ruleset, bad) -> None:
    """Skat's game value: a hand value needs a declarer who may choose to play hand, a hand-only
    contract and a base value a game declared by value, own winning points a points goal."""
    may_choose = r.talon is not None and r.talon.pick_up == "declarer_may"
    by_value = r.auction.style == "value"
    for cname, c in r.contracts.items():
        where = f"contracts.{dotted([cname])}"
        if c.hand_value is not None and not (
                r.talon_pick_up_of(cname) == "declarer_may" or (by_value and may_choose)):
            bad(f"{where}.hand_value", "counted in a hand game, where the declarer may choose "
                "not to pick the talon up: it needs talon.pick_up = \"declarer_may\"")
        if c.hand_only and not (by_value and may_choose and c.bid_rank is not None):
            bad(f"{where}.hand_only", "a game declared by value without picking the talon up: "
                "it needs auction.style = \"value\", talon.pick_up = \"declarer_may\" and "
                "a bid_rank")
        if c.open_hand and (c.team == "each" or c.instant):
            bad(f"{where}.open_hand", "a declarer lays his cards open: a contract played each "
                "for himself or won at once has none who does")
        if c.base_value is not None and not by_value:
            bad(f"{where}.base_value", "prices a game lost by overbidding: only with bidding "
                "by value (auction.style = \"value\")")
        if c.win_points is not None and c.goal != "points":
            bad(f"{where}.win_points", f"contract {cname!r} is won by tricks (goal = "
                f"{c.goal!r}), not by points")


def _check_reopening(r: Ruleset, bad) -> None:
    """The announcements of a reopened auction: bids a seat can still make after its first call."""
    a, where = r.auction, "auction.reopen_after_silent_round"
    if a.style == "single":
        bad(where, "a single declaration round has no silent round to reopen (every seat that "
            "may bid declares once): it needs style = \"open\" or \"ask\"")
    if not a.reopen_after_silent_round.announce:
        bad(f"{where}.announce", "name the contract(s) that may be announced")
    seen: set[str] = set()
    for i, n in enumerate(a.reopen_after_silent_round.announce):
        c = r.contracts.get(n)
        if c is None:
            bad(f"{where}.announce[{i}]", f"no contract named {n!r}"
                f"{did_you_mean(n, r.contracts)}")
        elif c.bid_rank is None:
            bad(f"{where}.announce[{i}]", f"contract {n!r} is not a bid (it has no bid_rank): "
                "only a bid can be announced")
        elif c.first_call_only:
            bad(f"{where}.announce[{i}]", f"contract {n!r} may only be a seat's first call, "
                "and every seat has called when the auction reopens")
        elif n in seen:
            bad(f"{where}.announce[{i}]", f"{n!r} is listed twice")
        seen.add(n)


def _check_dealt_and_unbid(r: Ruleset, bad) -> None:
    """Contracts applied without a bid (dealt, or played when nobody bids) need a player."""
    a = r.auction
    for n in a.dealt:
        if n in r.contracts and r.contracts[n].eligible is None:
            bad("auction.dealt", f"contract {n!r} needs an `eligible` holding to be dealt")
        if n in r.contracts and r.contracts[n].team == "called":
            bad("auction.dealt", f"contract {n!r}: a dealt contract cannot call a partner")
    for i, n in enumerate(a.no_bid):
        c = r.contracts.get(n)
        if c is None:
            continue
        if c.team == "called":
            bad(f"auction.no_bid[{i}]", f"contract {n!r} calls a partner, but nobody bid it: "
                "only `holders` or `alone` (with an `eligible` holding) can apply unbid")
        if c.team == "alone" and c.eligible is None:
            bad(f"auction.no_bid[{i}]", f"contract {n!r} is played alone, but with no `eligible` "
                "holding nobody is its player")


def _check_restrictions(r: Ruleset, cards: list[str], bad) -> None:
    a = r.auction
    callable_names = {"pass", a.ask_call, "double", *r.contracts}
    for i, res in enumerate(a.restrictions):
        for j, n in enumerate(res.forbid):
            if n not in callable_names:
                bad(f"auction.restrictions[{i}].forbid[{j}]",
                    f"{n!r} is not a call{did_you_mean(n, callable_names)} (a contract name, "
                    f"'pass', {a.ask_call!r} or 'double')")
        if res.holding is not None:
            for rel, card in res.holding.cards():
                if card not in cards:
                    bad(f"auction.restrictions[{i}].holding.{rel}", f"{card!r} is not a card"
                        f"{did_you_mean(card, cards)}")
            _check_predicate(r, res.holding, f"auction.restrictions[{i}].holding", bad)


def _check_multipliers(r: Ruleset, bad) -> None:
    for i, m in enumerate(r.scoring.multipliers):
        for j, n in enumerate(m.contracts or []):
            if n not in r.contracts:
                bad(f"scoring.multipliers[{i}].contracts[{j}]", f"no contract named {n!r}"
                    f"{did_you_mean(n, r.contracts)}")


def _check_bounds(r: Ruleset, bad) -> None:
    """The auction's length and each hand's value stay within what the engines can hold."""
    calls = max_auction_calls(r)
    if calls > MAX_AUCTION_CALLS:
        bad("auction", f"an auction could run to {calls:,} calls (bids, doubles and the passes "
            f"between them): at most {MAX_AUCTION_CALLS} are supported; shorten the doubling "
            "chain, bid fewer contracts or end the auction after fewer passes")
    for cname in r.contracts:
        value = max_hand_value(r, cname)
        if value > MAX_HAND_VALUE:
            bad(f"contracts.{dotted([cname])}.payout", f"with every double and multiplier the "
                f"hand could be worth {value:.3g} to one seat: at most {MAX_HAND_VALUE:.0e}")


def _check_session(r: Ruleset, bad) -> None:
    s = r.session
    if s is None:
        return
    if s.kind == "series":
        if s.hands is None:
            bad("session.hands", "a series needs its number of hands")
        if len(s.placement_points) != r.deck.players:
            bad("session.placement_points", f"give one value per place ({r.deck.players})")
    if s.kind == "series" and s.hands_options and s.hands not in s.hands_options:
        bad("session.hands", f"{s.hands} is not one of hands_options {s.hands_options}")
    if s.tournament is not None:
        _check_tournament(r, bad)
    if s.kind == "bankroll" and s.start is None:
        bad("session.start", "a bankroll session needs each player's starting amount")
    elif s.kind == "bankroll" and not float(s.start).is_integer():
        # what a loser pays is cut to what he holds: with whole cards the amounts that move
        # are exact, and every hand stays exactly zero-sum
        bad("session.start", f"a bankroll starts with whole cards (got {s.start:g})")
    if s.kind == "bankroll":
        for where, x in _prices(r):
            if not float(x).is_integer():
                bad(where, f"a bankroll moves whole cards: every price and factor is a whole "
                    f"number (got {x:g})")
    if s.kind == "bankroll" and r.scoring.style != "zero_sum":
        bad("session.kind", "a bankroll moves what losers pay: it needs scoring.style = "
            "\"zero_sum\"")


def _check_tournament(r: Ruleset, bad) -> None:
    t = r.session.tournament
    n = r.deck.players
    if r.session.kind != "series":
        bad("session.tournament", "a tournament's rounds are series: it needs kind = \"series\"")
    if t.seating == "plan" and not t.plan:
        bad("session.tournament.plan", "seating = \"plan\" needs the plan: one row of seats per "
            "round")
    if t.seating == "random" and t.plan:
        bad("session.tournament.plan", "a plan is read only with seating = \"plan\"")
    for i, row in enumerate(t.plan):
        if sorted(row) != list(range(n)):
            bad(f"session.tournament.plan[{i}]", f"expected the players 0..{n - 1}, each once, "
                f"one per seat (got {row})")
    if t.team_best is not None and t.team_best > n:
        bad("session.tournament.team_best", f"at most the {n} players of the table")
    if len(set(t.ranking)) != len(t.ranking) or not t.ranking:
        bad("session.tournament.ranking", "list each of placement_points, total, places at "
            "most once, and at least one")


def _check_call_names(r: Ruleset, bad) -> None:
    """The engines tell calls apart by name: pass, the ask call, the doubling chain and the
    generic "double" of restrictions must all differ (contracts are checked against them too)."""
    ask = r.auction.ask_call
    if ask in ("pass", "double"):
        bad("auction.ask_call", f"the ask call cannot be named {ask!r}: that is a call of the "
            "auction")
    for i, name in enumerate(r.doubling.names):
        if name in ("pass", "double", ask):
            bad(f"doubling.names[{i}]", f"a double cannot be named {name!r}: that is "
                + ("the ask call" if name == ask else "a call of the auction"))


def _uneven_sides(c, n: int) -> int:
    """A size of the old side, other than one player, half the table or all but one, that the
    contract's team can have at a table of n (0: none). Holders are one to k players (k team
    cards); a called team is the declarer and the holder of the card he calls."""
    if c.team == "holders":
        sizes = range(1, min(len(set(c.team_cards)), n - 1) + 1)
    elif c.team == "called":
        sizes = range(1, 3)
    else:
        return 0
    return next((m for m in sizes if 1 < m < n - 1 and 2 * m != n), 0)


def _check_predicate(r: Ruleset, p: Predicate, where: str, bad) -> None:
    """Its size, and every position it names is one of the table's (deck.players seats)."""
    nodes = predicate_nodes(p)
    if nodes > MAX_PREDICATE_NODES:
        bad(where, f"a predicate of {nodes:,} tables: at most {MAX_PREDICATE_NODES}")
    table = positions(r.deck.players)
    for rel, position in p.positions():
        if position not in table:
            bad(f"{where}.{rel}", f"{position!r} is no position at a table of "
                f"{r.deck.players} ({', '.join(table)})")


def predicate_nodes(p: Predicate) -> int:
    subs = (p.all_of or []) + (p.any_of or []) + ([p.not_] if p.not_ else [])
    return 1 + sum(predicate_nodes(s) for s in subs)


def max_auction_calls(r: Ruleset) -> int:
    """The most calls an auction can have: every call but a pass moves the auction on (each bid
    is higher, each double the next of its chain, the ask call said once), and between two such
    calls, before the first and after the last, fewer passes than end it."""
    a = r.auction
    if a.style == "value":  # each duel: a value named and held at most once each, a pass;
        # forehand's last word when nobody named one
        return (r.deck.players - 1) * (2 * len(a.values or []) + 1) + 1
    n_bids = len(r.bids())
    moves = 1 + n_bids + (n_bids + 1) * len(r.doubling.names)
    calls = moves * a.end_after_passes + a.end_after_passes_without_call + 4
    if a.reopen_after_silent_round is not None:
        # the silent round may be an ask and end_after_passes passes; then the reopening round's
        # four calls, and the restarted auction's first round spoken in full
        calls += a.end_after_passes + 4 + 4
    return calls


def max_hand_value(r: Ruleset, contract: str) -> float:
    """The most one seat can receive or pay on one hand of a contract: the highest price (or the
    tie value), every allowed double counted, every multiplier that can apply, three opponents."""
    c = r.contracts[contract]
    prices = [c.payout.won] + ([c.payout.lost] if c.payout.lost else [])
    tiers = ("out", "schneider", "schwarz")
    value = max(p.value(t) for p in prices for t in tiers)
    value = max(value, r.scoring.tie_value_without_double or 0)
    if c.laufende is not None:
        value += c.laufende.value * len(c.laufende_cards(r.orders))
    value *= r.doubling.factor ** r.max_doubles(contract)
    for m in r.scoring.multipliers:
        if m.contracts is None or contract in m.contracts:
            value *= max(m.factor, 1)
    return 3 * value


def _prices(r: Ruleset):
    """(key path, number) of every number a hand's value is made of: prices, Laufende, the tie
    value, the doubling factor and the multipliers' factors (a lone game settled once divides
    by three: that too is a fraction of a card)."""
    for name, c in r.contracts.items():
        where = f"contracts.{dotted([name])}"
        for key in ("won", "lost"):
            price = getattr(c.payout, key)
            for tier in ("flat", "out", "schneider", "schwarz"):
                x = None if price is None else getattr(price, tier)
                if x is not None:
                    yield (f"{where}.payout.{key}" + ("" if tier == "flat" else f".{tier}"), x)
        if c.laufende is not None:
            yield f"{where}.laufende.value", c.laufende.value
    if r.scoring.tie_value_without_double is not None:
        yield "scoring.tie_value_without_double", r.scoring.tie_value_without_double
    if r.doubling.names:  # without doubles the factor prices nothing
        yield "doubling.factor", r.doubling.factor
    for i, m in enumerate(r.scoring.multipliers):
        yield f"scoring.multipliers[{i}].factor", m.factor
    if r.scoring.lone_settlement == "once":
        yield "scoring.lone_settlement", 1 / 3

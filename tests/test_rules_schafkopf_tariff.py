"""Schafkopf's tariff on hand-built deals, computed by hand from the common Bavarian rules
(docs/rules/SCHAFKOPF.md):
Sauspiel 10, Solo and Wenz 50; Schneider +10 and Schwarz +10 (the declarers free from 31 points,
the defenders from 30); Laufende 10 each, from 3 Obers and Unters in Sauspiel and Solo, from 2
Unters in Wenz, counted for whichever side holds them ("with" or "without"); Tout twice the
game (a flat price: the tier is recorded as "lone"); Kontra and Re double; 60:60 is lost by the declarers. A Sauspiel's two losers each pay one
winner; a soloist collects from or pays each of the three. The ruleset is the bundled
`schafkopf` (docs/rules/BUNDLED.md §8), which the engines' cross-check also plays."""


import pytest

from kopsim.engine.scoring import score
from kopsim.rules.load import load_ruleset
from kopsim.records.format import batch_record

RULES = load_ruleset("schafkopf")
OBERS_UNTERS = ["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"]


def deal(trump_holders: str):
    """Four 8-card hands: the i-th of Q♣ Q♠ Q♥ Q♦ J♣ J♠ J♥ J♦ to seat trump_holders[i], the
    other cards spread to fill every hand (only who holds the Obers and Unters matters here)."""
    hands = [[] for _ in range(4)]
    for card, seat in zip(OBERS_UNTERS, trump_holders):
        hands[int(seat)].append(card)
    rest = [c for c in RULES.cards() if c not in OBERS_UNTERS]
    for s in range(4):
        while len(hands[s]) < 8:
            hands[s].append(rest.pop())
    return hands


def pays(contract, old, points, tricks, holders, doubles=()):
    out = score(RULES, contract, old, list(doubles), points, tricks, deal(holders))
    return out.winner, out.tier, list(out.payouts)


SAU = "sauspiel eichel"
NO_RUN = "23010123"  # Q♣ to seat 2 (young), Q♠ to 3: the young side's run is 2, under 3


@pytest.mark.parametrize("label, points, tricks, holders, doubles, expected", [
    ("won, defenders free", [40, 30, 30, 20], [3, 2, 2, 1], NO_RUN, (), ("old", "out", 10)),
    ("won, defenders 30: free", [50, 40, 20, 10], [4, 2, 1, 1], NO_RUN, (), ("old", "out", 10)),
    ("won schneider, defenders 29", [51, 40, 19, 10], [4, 2, 1, 1], NO_RUN, (),
     ("old", "schneider", 20)),
    ("won schwarz", [80, 40, 0, 0], [5, 3, 0, 0], NO_RUN, (), ("old", "schwarz", 30)),
    ("lost, declarers 31: free", [21, 10, 50, 39], [2, 1, 3, 2], NO_RUN, (),
     ("young", "out", 10)),
    ("lost schneider, declarers 30", [20, 10, 50, 40], [2, 1, 3, 2], NO_RUN, (),
     ("young", "schneider", 20)),
    ("60:60 lost by the declarers", [30, 30, 30, 30], [2, 2, 2, 2], NO_RUN, (),
     ("young", "tie", 10)),
    ("won with 3 Laufende", [40, 30, 30, 20], [3, 2, 2, 1], "01023123", (),
     ("old", "out", 40)),
    ("won against 4 Laufende (without)", [40, 30, 30, 20], [3, 2, 2, 1], "23230101", (),
     ("old", "out", 50)),
    ("won, kontra", [40, 30, 30, 20], [3, 2, 2, 1], NO_RUN, (2,), ("old", "out", 20)),
    ("won, kontra and re", [40, 30, 30, 20], [3, 2, 2, 1], NO_RUN, (2, 0),
     ("old", "out", 40)),
])
def test_sauspiel(label, points, tricks, holders, doubles, expected):
    winner, tier, value = expected
    w, t, pay = pays(SAU, [0, 1], points, tricks, holders, doubles)
    assert (w, t) == (winner, tier)
    sign = 1 if winner == "old" else -1
    assert pay == [sign * value, sign * value, -sign * value, -sign * value]


@pytest.mark.parametrize("contract, label, points, tricks, holders, expected", [
    ("solo herz", "won", [70, 20, 20, 10], [5, 1, 1, 1], "02130213", ("old", "out", 50)),
    ("solo herz", "won schwarz", [120, 0, 0, 0], [8, 0, 0, 0], "02130213",
     ("old", "schwarz", 70)),
    ("solo herz", "lost schneider, 30", [30, 40, 30, 20], [2, 2, 2, 2], "02130213",
     ("young", "schneider", 60)),
    ("solo herz", "won against 3 Laufende (without)", [70, 20, 20, 10], [5, 1, 1, 1],
     "12301230", ("old", "out", 80)),
    ("solo herz", "won with 4 Laufende", [70, 20, 20, 10], [5, 1, 1, 1], "00001230",
     ("old", "out", 90)),
    ("wenz", "won with 2 Laufende (Unters)", [70, 20, 20, 10], [5, 1, 1, 1], "12310023",
     ("old", "out", 70)),
    ("wenz", "won, one Unter short of a run", [70, 20, 20, 10], [5, 1, 1, 1], "12310123",
     ("old", "out", 50)),
    ("wenz tout", "won, every trick", [120, 0, 0, 0], [8, 0, 0, 0], "12310123",
     ("old", "lone", 100)),
    ("wenz tout", "lost with one trick", [100, 20, 0, 0], [7, 1, 0, 0], "12310123",
     ("young", "lone", 100)),
    ("wenz tout", "won against 2 Laufende, at twice their price", [120, 0, 0, 0],
     [8, 0, 0, 0], "12312301", ("old", "lone", 140)),
])
def test_solo_wenz_tout(contract, label, points, tricks, holders, expected):
    winner, tier, value = expected
    w, t, pay = pays(contract, [0], points, tricks, holders)
    assert (w, t) == (winner, tier)
    sign = 1 if winner == "old" else -1
    assert pay == [3 * sign * value, -sign * value, -sign * value, -sign * value]


def test_sie_wins_at_once_and_a_thrown_in_hand_pays_nothing():
    hands = deal("00000000")
    out = score(RULES, "sie", [0], [], [0] * 4, [0] * 4, hands)
    assert out.winner == "old" and out.payouts == (1560, -520, -520, -520)
    out = score(RULES, "thrown in", [1], [], [0] * 4, [0] * 4, hands)
    assert (out.winner, out.tier, out.payouts) == (None, "thrown_in", (0, 0, 0, 0))


def test_a_hand_thrown_in_is_a_real_outcome_in_both_engines(tmp_path):
    import numpy as np

    from kopsim.bots.seated import play_batch
    from kopsim.bots.seated import play_hand
    from kopsim.bots import bot_spec
    from kopsim.records.format import record_from_state
    from kopsim.rules.compile import compile_rules

    # kop where only zolo du may be bid, and nobody bidding throws the cards in: random bots
    # pass all round on about one deal in sixteen
    path = tmp_path / "throw.toml"
    path.write_text('extends = "kop"\n[inherit]\nremove = ["contracts.normal", '
                    '"contracts.cicha", "contracts.wesele", "contracts.zolo"]\n'
                    '[auction]\nno_bid = ["thrown in"]\n[contracts."thrown in"]\n'
                    'team = "holders"\nteam_cards = ["QC"]\ninstant = true\n'
                    'thrown_in = true\npayout = { won = 0 }\n', encoding="utf-8")
    rules = load_ruleset(path)
    cr = compile_rules(rules)
    res = play_batch(cr, np.arange(400), np.arange(400) % 4)
    thrown = np.flatnonzero(res.contract == cr.contract_names.index("thrown in"))
    assert len(thrown) > 5
    i = int(thrown[0])
    rec = batch_record(res, i)
    assert (rec.winner, rec.tier, rec.tricks, rec.payouts) == (None, "thrown_in", [],
                                                               [0.0] * 4)
    ref = record_from_state(play_hand(rules, int(res.seeds[i]), int(res.dealers[i]),
                                      [bot_spec("random")] * 4), int(res.seeds[i]), i)
    assert ref.to_dict() == rec.to_dict()


def test_a_thrown_in_contract_pays_nothing_and_is_not_played():
    from kopsim.errors import InputError
    from kopsim.rules.load import load_raw, ruleset_from_dict

    data, _ = load_raw("schafkopf")
    data["contracts"]["thrown in"]["payout"] = {"won": 5}
    data["contracts"]["wenz"]["thrown_in"] = True
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert {p.where for p in e.value.problems} >= {'contracts."thrown in".payout',
                                                   "contracts.wenz.thrown_in"}

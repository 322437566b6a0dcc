"""`kopsim rules diff`: semantic differences between rulesets, in plain words."""

import pytest

from kopsim.cli import main
from kopsim.rules.load import load_ruleset, ruleset_from_dict
from kopsim.rules.diff import diff_rules, format_diff


def texts(a, b):
    return [str(c) for c in diff_rules(load_ruleset(a) if isinstance(a, str) else a,
                                       load_ruleset(b) if isinstance(b, str) else b)]


def variant(**edits):
    """kop with some keys replaced (dotted paths into the resolved ruleset)."""
    data = load_ruleset("kop").model_dump(mode="json", by_alias=True)
    data["name"] = "variant"
    for path, value in edits.items():
        d = data
        keys = path.split("__")
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return ruleset_from_dict(data)


def test_identical_rulesets_have_no_differences():
    a = load_ruleset("kop")
    assert diff_rules(a, a) == []
    assert "identical rulesets" in format_diff(a, a, [])


def test_trump_order_moves_are_described_by_card():
    assert texts("kop", "kop-trzy-dychy") == [
        "card order: trump order (as-dycha → as-trzy-dychy): 10♣ 10♠ moved into trumps, "
        "between A♥ and 10♥ (14 trumps instead of 12)"]
    back = texts("kop-trzy-dychy", "kop")
    assert len(back) == 1
    assert "10♣ no longer trumps (now plain ♣)" in back[0]
    assert "10♠ no longer trumps (now plain ♠)" in back[0]


def test_trump_reordering_and_one_contract_only():
    kop = load_ruleset("kop")
    data = kop.model_dump(mode="json", by_alias=True)
    data["orders"]["zolo-order"] = {
        "trumps": ["10H", "AH", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D"],
        "plain": {"C": ["AC", "10C"], "S": ["AS", "10S"]}, "description": ""}
    data["contracts"]["zolo"]["order"] = "zolo-order"
    [t] = texts(kop, ruleset_from_dict(data))
    assert t.startswith("card order: trump order of zolo (as-dycha → zolo-order): trumps ranked "
                        "10♥ A♥ Q♣")


def test_payout_changes():
    data = load_ruleset("kop").model_dump(mode="json", by_alias=True)
    data["name"] = "cheap"
    data["contracts"]["zolo du"]["payout"]["lost"] = {"flat": 4}
    data["contracts"]["normal"]["payout"]["won"] = {"out": 1, "schneider": 2, "schwarz": 4}
    got = texts("kop", ruleset_from_dict(data))
    assert got == ["contracts: normal won schwarz pays 4 instead of 3",
                   "contracts: zolo du lost pays 4 instead of 10"]


def test_catsatcards_scoring_and_auction():
    got = texts("kop", "kop-catsatcards")
    assert "contracts: zolo du lost pays 4 instead of 10" in got
    assert ("contracts: cicha won pays 4/8/12 (out/schneider/schwarz) instead of 4") in got
    assert "auction: ends after 4 passes in a row after a call instead of 3" in got
    assert ("scoring: winners only (nothing taken from losers) instead of zero-sum "
            "(losers pay winners)") in got
    assert "scoring: schneider at 24 points or fewer instead of 25" in got
    assert "scoring: 52:52 with no double is worth 1 instead of the contract's value" in got


def test_sportowy_covers_every_section():
    got = texts("kop", "kop-sportowy")
    sections = {t.split(":")[0] for t in got}
    assert sections == {"card order", "contracts", "auction", "doubling", "scoring", "session"}
    assert any(t.startswith("contracts: kop added: dealt (won before the auction); who: holds "
                            "10♣ 10♠ 10♥ 10♦") for t in got)
    assert "contracts: zolo du: at most 1 double instead of 4" in got
    assert "contracts: wesele: only as a player's first call" in got
    assert "auction: style ask (forehand bids or asks first) instead of open" in got
    assert "auction: new restriction: zolo forbidden after he said 'ask'" in got
    assert "doubling: chain kontra → rej → bok instead of kontra → re → bok → słup" in got
    assert any(t.startswith("session: a series of 32 hands, places score 5/3/1/0")
               for t in got)


def test_added_contracts_and_bid_order():
    got = texts("kop", "baska")
    assert any(t.startswith("contracts: gran added: bid in the auction") for t in got)
    assert any(t.startswith("contracts: baśka added") and "wins at once" in t for t in got)
    assert ("auction: bids, lowest first: wesele, gran, zolo, gran du, zolo du, baśka instead "
            "of wesele, zolo, zolo du") in got
    assert "scoring: new multiplier: ×2 when old side lost (every contract)" in got
    # rank numbers moved, but zolo still beats wesele: no per-contract "rank" noise
    assert not any("zolo: bid" in t for t in got)


def test_victory_cards():
    got = texts("kop", "kop-victory-cards")
    assert any(t.startswith("contracts: zolo removed") for t in got)
    assert "auction: style single call per seat instead of open" in got
    assert "doubling: chain no doubling instead of kontra → re → bok → słup" in got
    assert "scoring: 52:52: nobody wins, nothing is paid instead of the side of the last counted " \
           "double loses" in got
    # per-contract caps that only follow the chain are not repeated for every contract
    assert not any("at most 0 doubles" in t for t in got)


def test_deck_and_play_changes():
    r = variant(deck__points={"A": 11, "10": 10, "Q": 4, "J": 2}, play__must_beat=False)
    got = texts("kop", r)
    assert "deck: Q worth 4 card points instead of 3" in got
    assert "deck: 108 card points in all instead of 104" in got
    assert "play: no longer must beat the winning card when able" in got
    assert "scoring: a side wins with 55 card points instead of 53" in got


def test_cli_rules_diff(capsys):
    assert main(["rules", "diff", "kop", "kop-trzy-dychy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kop → kop-trzy-dychy: 1 rule difference")
    assert "10♣ 10♠ moved into trumps" in out


def test_cli_rules_diff_bad_input_is_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("extends = 'kop'\n[scoring]\nschneider_max_points = 'x'\n", encoding="utf-8")
    assert main(["rules", "diff", "kop", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "scoring.schneider_max_points" in err and "Traceback" not in err
    assert main(["rules", "diff", "no-such-ruleset", "kop"]) == 2


def test_file_path_rulesets(tmp_path, capsys):
    f = tmp_path / "mine.toml"
    f.write_text('extends = "kop"\nname = "mine"\n[contracts."zolo du"]\npayout.lost = 4\n',
                 encoding="utf-8")
    assert main(["rules", "diff", "kop", str(f)]) == 0
    assert "zolo du lost pays 4 instead of 10" in capsys.readouterr().out


@pytest.mark.parametrize("a", ["kop", "baska", "kop-sportowy", "kop-victory-cards"])
def test_every_bundled_pair_diffs_without_error(a):
    from kopsim.rules.load import bundled_names

    for b in bundled_names():
        changes = diff_rules(load_ruleset(a), load_ruleset(b))
        assert (changes == []) == (a == b)


def test_kop_to_baska_says_gran_plays_with_its_own_order():
    # BUNDLED.md, baska: gran and gran du use the Gran order (jacks trump; A 10 Q plain suits)
    orders = [t for t in texts("kop", "baska") if t.startswith("card order: ")]
    own = [t for t in orders if "own order gran" in t]
    assert len(own) == 1 and "gran, gran du" in own[0]
    assert "trumps J♣ J♠ J♥ J♦ (4, high to low)" in own[0]
    assert "plain ♥ A♥ 10♥ Q♥" in own[0]
    moved = [t for t in orders if "unlike" in t]
    assert len(moved) == 1 and "Q♣ no longer trumps" in moved[0]


def test_a_new_contract_in_the_usual_order_says_so():
    data = load_ruleset("kop").model_dump(mode="json", by_alias=True)
    data["contracts"]["zolo2"] = dict(data["contracts"]["zolo"], bid_rank=9)
    t = texts("kop", ruleset_from_dict(data))
    assert "card order: zolo2 (new contract): played in the as-dycha order, as normal, cicha, " \
           "wesele, zolo, zolo du" in t

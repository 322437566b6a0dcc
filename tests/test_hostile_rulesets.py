"""Issue 8, section 1: a ruleset that validates can never break the kernel, and a hostile file
is refused with a located error (exit code 2), never a traceback, a signal or unbounded memory."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kopsim.bots.seated import play_batch
from kopsim.bots import bot_spec
from kopsim.cli import main
from kopsim.rules.compile import compile_rules
from kopsim.bots.seated import play_hand
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.load import load_ruleset
from kopsim.rules.model import (MAX_AUCTION_CALLS, MAX_DOUBLING_NAMES, MAX_EXTENDS_CHAIN,
                                MAX_FILE_BYTES, MAX_PREDICATE_NODES)
from kopsim.engine.layout import hand_seeds

KOP_CARDS = [r + s for r in ("A", "10", "Q", "J") for s in "CSHD"]


def write(tmp_path, text, name="variant.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def refused(path, capsys, *where):
    """`rules validate` exits 2, without a traceback, naming the file and every key path."""
    assert main(["rules", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    assert str(path) in err
    for w in where:
        assert w in err, err
    return err


def engines_agree(rules, hands, lineup):
    bots = [bot_spec(b) for b in lineup]
    seeds = hand_seeds(3, 0, hands)
    dealers = np.arange(hands) % 4
    batch = play_batch(compile_rules(rules), seeds, dealers, bots=bots)
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        ref = record_from_state(state, int(seeds[i]), i)
        assert batch_record(batch, i).to_dict() == ref.to_dict(), f"hand {i} differs"
    return batch


# ------------------------------------------------------------- 1. scratch arrays of the kernel


def wide_predicate(leaves: int) -> str:
    """An eligibility that needs a deep evaluation stack: `leaves` results are pushed before the
    any_of reduces them, inside an all_of and a not."""
    singles = ", ".join(f'{{ holds_all = ["{KOP_CARDS[i % 16]}"] }}' for i in range(leaves))
    return (f'{{ all_of = [ {{ holds_any = ["QC"] }}, {{ not = {{ any_of = [ {singles}, '
            f'{{ holds_none = ["QC"] }} ] }} }} ] }}')


def test_a_predicate_wider_than_the_old_fixed_stack_plays_as_the_reference_engine(tmp_path):
    # 100 leaves pushed at once: the kernel's old stack[64] was written past (a SIGSEGV, or
    # silently wrong eligibility); the stack is now sized from the compiled program
    pred = wide_predicate(100)
    p = write(tmp_path, f"""\
        extends = "kop"
        [contracts.zolo]
        eligible = {pred}
        [auction]
        restrictions = [{{ forbid = ["zolo du"], holding = {pred} }}]
        """)
    rules = load_ruleset(str(p))
    cr = compile_rules(rules)
    assert cr.arrays["params"][7] >= 102  # the depth the program needs, not a fixed guess
    batch = engines_agree(rules, 300, ["random"] * 4)
    # the predicate is never true (it needs QC and, within the not, the absence of every
    # card listed): zolo can never be bid, and the restriction never applies
    assert "zolo" not in {batch_record(batch, i).contract for i in range(300)}


def test_the_longest_doubling_chain_allowed_plays_as_the_reference_engine(tmp_path):
    names = [f"d{i}" for i in range(MAX_DOUBLING_NAMES)]
    p = write(tmp_path, f"""\
        extends = "kop"
        [doubling]
        names = {json.dumps(names)}
        factor = 1
        """)
    rules = load_ruleset(str(p))
    batch = engines_agree(rules, 400, ["random"] * 4)
    assert batch.doubles.max() >= 3  # the chain was used beyond a couple of doubles


@pytest.mark.parametrize("bot,n", [("random", 300), ("heuristic", 300),
                                   ({"name": "pimc", "samples": 4, "auction_samples": 3}, 12)])
def test_the_kernel_plays_rulesets_at_the_limits(tmp_path, bot, n):
    # Writing past a scratch array need not show in the results: test_boundscheck's child plays
    # this test again with numba's bounds checks, which make it an IndexError.
    pred = wide_predicate(100)
    wide = write(tmp_path, f'extends = "kop"\n[contracts.zolo]\neligible = {pred}\n', "wide.toml")
    names = json.dumps([f"d{i}" for i in range(MAX_DOUBLING_NAMES)])
    chain = write(tmp_path, f'extends = "kop"\n[doubling]\nnames = {names}\nfactor = 1\n',
                  "chain.toml")
    for path in (wide, chain):
        res = play_batch(load_ruleset(path), np.arange(n), np.arange(n) % 4, bots=[bot_spec(bot)])
        assert len(res.payouts) == n and np.all(np.abs(res.payouts.sum(axis=1)) < 1e-9)


def test_a_doubling_chain_beyond_the_limit_is_refused(tmp_path, capsys):
    names = [f"d{i}" for i in range(MAX_DOUBLING_NAMES + 1)]
    p = write(tmp_path, f'extends = "kop"\n[doubling]\nnames = {json.dumps(names)}\n')
    refused(p, capsys, "doubling.names", f"at most {MAX_DOUBLING_NAMES}")


def test_a_predicate_beyond_the_limit_is_refused(tmp_path, capsys):
    p = write(tmp_path, f"""\
        extends = "kop"
        [contracts.zolo]
        eligible = {wide_predicate(MAX_PREDICATE_NODES)}
        """)
    refused(p, capsys, "contracts.zolo.eligible", f"at most {MAX_PREDICATE_NODES}")


def test_an_auction_longer_than_the_limit_is_refused(tmp_path, capsys):
    # 6 bids and 16 doubles after each, up to 16 passes apart: thousands of calls per hand, each
    # a column of every hand record the kernel writes
    names = [f"d{i}" for i in range(MAX_DOUBLING_NAMES)]
    p = write(tmp_path, f"""\
        extends = "baska"
        [doubling]
        names = {json.dumps(names)}
        factor = 1
        [auction]
        end_after_passes = 16
        """)
    refused(p, capsys, "auction:", f"at most {MAX_AUCTION_CALLS}")


# ------------------------------------------------------------------------------------ 2. numbers


NUMBERS = [
    ("kop", "[deck.points]\nA = nan", "deck.points.A", "finite"),
    ("kop", "[deck.points]\nQ = -3", "deck.points.Q", "at least 0"),
    ("kop", "[contracts.normal.payout.won]\nout = inf\nschneider = 2\nschwarz = 3",
     "contracts.normal.payout.won.out", "finite"),
    ("kop", "[contracts.zolo]\npayout = { won = 1e300, lost = 5 }",
     "contracts.zolo.payout.won", "at most"),
    ("kop", "[contracts.zolo]\npayout = { won = 5, lost = -5 }",
     "contracts.zolo.payout.lost", "at least 0"),
    ("kop", "[doubling]\nfactor = 1e300", "doubling.factor", "at most"),
    ("kop", "[doubling]\nfactor = nan", "doubling.factor", "finite"),
    ("kop", "[[scoring.multipliers]]\nfactor = -2\nwhen = \"tie\"",
     "scoring.multipliers[0].factor", "at least 0"),
    ("kop", "[scoring]\nwin_points = inf", "scoring.win_points", "finite"),
    ("kop", "[scoring]\nschneider_max_points = 1e300", "scoring.schneider_max_points",
     "at most"),
    ("kop", "[scoring]\ntie_value_without_double = nan", "scoring.tie_value_without_double",
     "finite"),
    ("kop", f"[contracts.zolo]\nbid_rank = {2**70}", "contracts.zolo.bid_rank",
     "at most"),
    ("kop", "[contracts.zolo]\nbid_rank = -1000000000", "contracts.zolo.bid_rank",
     "at least 0"),
    ("kop", "[auction]\nend_after_passes = 100000", "auction.end_after_passes",
     "at most 16"),
    ("kop", "[contracts.cicha]\neligible = { holds_count = { cards = [\"QC\"], min = "
     f"{2**70} }} }}", "contracts.cicha.eligible.holds_count.min", "at most"),
    ("kop", "[contracts.cicha]\neligible = { holds_count = { cards = [\"QC\"], max = -1 } }",
     "contracts.cicha.eligible.holds_count.max", "at least 0"),
    ("kop", "[doubling]\ncap_without_bid = 1000", "doubling.cap_without_bid",
     "at most"),
    ("kop-sportowy", f"[session]\nhands = {2**70}\nhands_options = []", "session.hands",
     "at most"),
    ("kop-sportowy", "[session]\nplacement_points = [5, 3, 1, nan]",
     "session.placement_points[3]", "finite"),
    ("kop-sportowy", "[session]\npositive_bonus = -inf", "session.positive_bonus", "finite"),
    ("kop-sportowy", "[scoring]\nrevoke_penalty = { offender = -1e300, others = 5 }",
     "scoring.revoke_penalty.offender", "at least"),
    ("kop-victory-cards", "[session]\nstart = 1e300", "session.start", "at most"),
    ("kop-victory-cards", "[session]\nstart = nan", "session.start", "finite"),
]


@pytest.mark.parametrize("parent, body, where, what", NUMBERS,
                         ids=[f"{w}={b.split('=', 1)[1].strip()[:20]}" for _, b, w, _ in NUMBERS])
def test_every_number_has_a_finite_range_checked_by_key(tmp_path, capsys, parent, body, where,
                                                        what):
    p = write(tmp_path, f'extends = "{parent}"\n{body}\n')
    refused(p, capsys, f"{where}:", what)


def test_a_hand_worth_more_than_the_limit_is_refused(tmp_path, capsys):
    # every number in range, but 16 counted doubles at x16 make the product overflow any sum
    names = [f"d{i}" for i in range(MAX_DOUBLING_NAMES)]
    p = write(tmp_path, f'extends = "kop"\n[doubling]\nnames = {json.dumps(names)}\n'
              "factor = 16\n")
    refused(p, capsys, 'contracts."zolo du".payout:', "at most")


# -------------------------------------------------------------------------------------- 3. names


def test_a_double_named_pass_is_refused(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\n[doubling]\nnames = ["kontra", "pass"]\n')
    refused(p, capsys, "doubling.names[1]:", "'pass'")


def test_a_double_named_as_the_ask_call_is_refused(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop-sportowy"\n[auction]\nask_call = "rej"\n')
    refused(p, capsys, "doubling.names[1]:", "ask call")


@pytest.mark.parametrize("ask", ["pass", "double"])
def test_an_ask_call_named_as_another_call_is_refused(tmp_path, capsys, ask):
    p = write(tmp_path, f'extends = "kop-sportowy"\n[auction]\nask_call = "{ask}"\n')
    refused(p, capsys, "auction.ask_call:")


def test_a_double_named_double_is_refused(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\n[doubling]\nnames = ["double", "re"]\n')
    refused(p, capsys, "doubling.names[0]:")


def test_a_holders_team_that_can_be_the_whole_table_is_refused_when_zero_sum(tmp_path, capsys):
    # one of the four queens in each hand makes all four seats the old side: nobody pays
    p = write(tmp_path, 'extends = "kop"\n[contracts.normal]\n'
              'team_cards = ["QC", "QS", "QH", "QD"]\n')
    refused(p, capsys, "contracts.normal.team_cards:", "at most 3")


def test_a_holders_team_of_three_cards_stays_zero_sum(tmp_path):
    p = write(tmp_path, 'extends = "kop"\n[contracts.normal]\nteam_cards = ["QC", "QS", "QH"]\n')
    rules = load_ruleset(str(p))
    batch = engines_agree(rules, 300, ["random"] * 4)
    assert np.abs(batch.payouts.sum(axis=1)).max() == 0
    assert 3 in {bin(int(m)).count("1") for m in batch.old}


# ------------------------------------------------------------------------------ 4. hostile files


def test_toml_nested_1000_deep_is_refused(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\n# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n'
              'x = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["\ny = ' + "[" * 1000
              + "]" * 1000 + "\n")
    refused(p, capsys, "line 4: TOML nested too deeply")


def test_a_table_nested_deeper_than_the_limit_is_refused_by_its_path(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\n[' + ".".join(["a"] * 40) + "]\nx = 1\n")
    refused(p, capsys, "a.a.a.a", "nested more than 32 deep")


def test_not_nested_600_deep_is_refused(tmp_path, capsys):
    pred = "{ not = " * 600 + '{ holds_all = ["QC"] }' + " }" * 600
    p = write(tmp_path, f'extends = "kop"\n[contracts.cicha]\neligible = {pred}\n')
    refused(p, capsys, "line 3: TOML nested too deeply")


def test_an_extends_chain_of_1500_files_is_refused(tmp_path, capsys):
    write(tmp_path, 'extends = "kop"\n', "f0.toml")
    for i in range(1, 1500):
        write(tmp_path, f'extends = "f{i - 1}.toml"\n', f"f{i}.toml")
    err = refused(tmp_path / "f1499.toml", capsys, "extends:", f"more than {MAX_EXTENDS_CHAIN}")
    assert f"f{1499 - MAX_EXTENDS_CHAIN + 1}.toml: extends:" in err  # where the chain is cut


def test_an_extends_chain_within_the_limit_loads(tmp_path):
    write(tmp_path, 'extends = "kop"\n', "f0.toml")
    for i in range(1, MAX_EXTENDS_CHAIN - 1):
        write(tmp_path, f'extends = "f{i - 1}.toml"\n', f"f{i}.toml")
    rules = load_ruleset(str(tmp_path / f"f{MAX_EXTENDS_CHAIN - 2}.toml"))
    assert rules.contracts.keys() == load_ruleset("kop").contracts.keys()


@pytest.mark.parametrize("name, what", [("x" * 300 + ".toml", "at most 255"),
                                        ("kop\\u0000.toml", "control character"),
                                        ("/dev/zero", "not a regular file"),
                                        ("", "expected the name or path")])
def test_a_hostile_extends_name_is_refused(tmp_path, capsys, name, what):
    p = write(tmp_path, f'extends = "{name}"\n')
    refused(p, capsys, "extends", what)


def test_extends_of_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.toml")
    p = write(tmp_path, 'extends = "pipe.toml"\n')
    refused(p, capsys, "not a regular file")


def test_a_symlink_loop_is_refused(tmp_path, capsys):
    (tmp_path / "loop.toml").symlink_to("loop.toml")
    p = write(tmp_path, 'extends = "loop.toml"\n')
    refused(p, capsys, "extends:", "loop.toml: cannot read: Symlink loop")
    refused(tmp_path / "loop.toml", capsys, "cannot read")


def test_a_file_larger_than_the_limit_is_refused(tmp_path, capsys):
    p = tmp_path / "big.toml"
    p.write_text('extends = "kop"\n' + ("#" * 99 + "\n") * (MAX_FILE_BYTES // 100 + 1))
    refused(p, capsys, f"larger than {MAX_FILE_BYTES:,} bytes")


def test_hostile_files_exit_2_in_a_real_process(tmp_path):
    """The CLI as a user runs it: no traceback, no signal, within bounded memory."""
    bad = [write(tmp_path, 'extends = "/dev/zero"\n', "zero.toml"),
           write(tmp_path, 'x = ' + "{a=" * 1000 + "1" + "}" * 1000 + "\n", "deep.toml")]
    proc = subprocess.run([sys.executable, "-m", "kopsim.cli", "rules", "validate", *map(str, bad)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("error: ") == 2


@pytest.mark.parametrize("body, where", [
    ("[orders.as-dycha.plain]\n" + "".join(f"g{i} = []\n" for i in range(200)),
     "orders.as-dycha.plain"),
    ("[contracts.wesele]\nteam_cards = " + json.dumps(["JC"] * 65), "contracts.wesele.team_cards"),
])
def test_lists_compiled_into_tables_are_capped(tmp_path, capsys, body, where):
    # the kernel's tables have a row per plain suit (each a card-by-card beat table) and a
    # column per team card: a file's worth of empty suits or repeated cards only costs time and
    # memory, and at most 64 of either can mean something
    p = write(tmp_path, f'extends = "kop"\n{body}\n')
    refused(p, capsys, f"{where}:", "at most 64")


def test_a_misspelt_bundled_name_is_named_as_typed(capsys):
    from kopsim.cli import main
    from kopsim.rules.load import BUNDLED_DIR

    assert main(["rules", "show", "kopp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: kopp: no bundled ruleset of that name") and "kop-sportowy" in err
    assert str(BUNDLED_DIR) not in err

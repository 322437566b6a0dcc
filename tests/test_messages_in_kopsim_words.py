"""Issue 31 (smaller things): validation messages in kopsim's words (what a key expects, as a TOML writer reads
it, never pydantic's "valid dictionary or instance of Price"), and "did you mean" wherever a
misspelt key, name or bot parameter has a near neighbour."""

import textwrap

import pytest

from kopsim.cli import main

PYDANTIC = ("Input should", "instance of", "valid dictionary", "Value error")


def errors_of(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for phrase in PYDANTIC:
        assert phrase not in err, err
    return err


def ruleset(tmp_path, text):
    p = tmp_path / "variant.toml"
    p.write_text('extends = "kop"\n' + textwrap.dedent(text), encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("text,where,words", [
    ('[contracts.zolo]\npayout.won = "8"', "contracts.zolo.payout.won",
     "expected a number, or a table { out = …, schneider = …, schwarz = … } (got '8')"),
    ("[contracts.zolo]\nbid_rank = 1.5", "contracts.zolo.bid_rank", "expected a whole number"),
    ('[scoring]\nschneider_max_points = "25"', "scoring.schneider_max_points",
     "expected a number (got '25')"),
    ("[deck.points]\nQ = -3", "deck.points.Q", "expected a number at least 0 (got -3)"),
    ("[contracts.zolo]\ndescription = 3", "contracts.zolo.description", "expected text in quotes"),
    ('[auction]\nno_bid = "normal"', "auction.no_bid", "expected a list"),
    ('[doubling]\nnames = { a = 1 }', "doubling.names", "expected a list"),
    ("[scoring]\nstyle = 3", "scoring.style",
     "expected 'zero_sum', 'winners_only' or 'old_side_only'"),
])
def test_a_wrong_type_says_what_the_key_expects(tmp_path, capsys, text, where, words):
    err = errors_of(["rules", "validate", ruleset(tmp_path, text)], capsys)
    assert f"{where}: {words}" in err, err


@pytest.mark.parametrize("text,where,guess", [
    ('[scoring]\nschneider_max_point = 3', "scoring.schneider_max_point", "schneider_max_points"),
    ('[scoring]\nstyle = "winner_only"', "scoring.style", "winners_only"),
    ('[contracts.zolo]\nteam = "aloen"', "contracts.zolo.team", "alone"),
    ('[contracts.zolo]\norder = "as-dyhca"', "contracts.zolo.order", "as-dycha"),
    ('[auction]\nno_bid = ["cichaa", "normal"]', "auction.no_bid[0]", "cicha"),
    ('[contracts.normal]\nteam_cards = ["QC", "qs"]', "contracts.normal.team_cards[1]", "QS"),
    ('[contracts.normal]\nteam_cards = ["QC", "QSS"]', "contracts.normal.team_cards[1]", "QS"),
])
def test_a_misspelt_key_or_name_in_a_ruleset_names_its_neighbour(tmp_path, capsys, text, where,
                                                                 guess):
    err = errors_of(["rules", "validate", ruleset(tmp_path, text)], capsys)
    assert f"{where}: " in err and f"did you mean {guess!r}?" in err, err


def test_a_far_miss_guesses_nothing(tmp_path, capsys):
    err = errors_of(["rules", "validate", ruleset(tmp_path, '[auction]\nno_bid = ["xyzzy"]')],
                    capsys)
    assert "no contract named 'xyzzy'" in err and "did you mean" not in err


def test_a_misspelt_bundled_name_names_its_neighbour(capsys):
    err = errors_of(["rules", "show", "kopp"], capsys)
    assert "did you mean 'kop'?" in err


def test_a_misspelt_bot_or_parameter_names_its_neighbour(capsys):
    err = errors_of(["duel", "kop", "--a", "pmic", "--b", "heuristic", "--deals", "8"], capsys)
    assert "no bot named 'pmic' (did you mean 'pimc'?)" in err
    err = errors_of(["duel", "kop", "--a", "{name='pimc', sample=3}", "--b", "heuristic",
                     "--deals", "8"], capsys)
    assert "pimc has no parameter 'sample' (did you mean 'samples'?)" in err
    assert "its parameters: samples, " in err


def test_an_experiment_file_speaks_the_same_words(tmp_path, capsys):
    p = tmp_path / "e.toml"
    p.write_text('deals = "many"\nseeds = 3\nbots = [{name = "ev", deals = "x"}, "heuristic", '
                 '"heuristic", "heuristic"]\nvariants = [{ruleset = "kop", lable = "x"}]\n')
    err = errors_of(["run", str(p), "--check"], capsys)
    assert "deals: expected a whole number (got 'many')" in err
    assert "seeds: unknown key (did you mean 'seed'?)" in err
    assert "bots[0]: deals: expected a whole number (got 'x')" in err
    assert "variants[0].lable: unknown key (did you mean 'label'?)" in err

"""Strings from files reach the terminal without control characters (ANSI escapes, \\r, NUL)."""

import pytest

from kopsim.cli import main
from kopsim.terminal import clean

HOSTILE = "\x1b[2J\x1b[31mred\x1b[0m\rover\x00nul\x07bell\x1b]0;title\x07\x9b1mend"


def test_clean_strips_escapes_and_controls_but_keeps_text():
    assert clean(HOSTILE) == "redovernulbellend"
    assert clean("Baśka\tgran\nzolo du") == "Baśka\tgran\nzolo du"


def toml_string(text):
    return '"' + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text) + '"'


@pytest.fixture
def hostile_rules(tmp_path):
    path = tmp_path / "hostile.toml"
    path.write_text('extends = "kop"\n'
                    f'description = {toml_string(HOSTILE)}\n'
                    f'source = "src \\u001b[1mbold"\n'
                    '[contracts.zolo]\nbid_rank = 2\nteam = "alone"\norder = "as-dycha"\n'
                    'payout = { won = 5, lost = 5 }\n'
                    f'description = "\\u001b[Hhome"\n', encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("argv", [
    ["rules", "show", "{rules}"],
    ["rules", "validate", "{rules}"],
    ["rules", "diff", "kop", "{rules}"],
    ["rules", "diff", "{rules}", "baska"],
    ["simulate", "{rules}", "--hands", "50"],
])
def test_ruleset_strings_are_printed_clean(hostile_rules, argv, capsys):
    assert main([a.format(rules=hostile_rules) for a in argv]) == 0
    out, err = capsys.readouterr()
    for bad in ("\x1b", "\r", "\x00", "\x07", "\x9b"):
        assert bad not in out + err
    if argv[:2] == ["rules", "show"]:
        assert "redovernulbellend" in out


def test_error_lines_are_printed_clean(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text('extends = "kop"\n[contracts."\\u001b[2Jevil"]\nbid_rank = "x"\n',
                    encoding="utf-8")
    assert main(["rules", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "\x1b" not in err

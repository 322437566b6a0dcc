"""What docs/rulesets.md says about a number written as a string holds: it is rejected, in a plain
key and in a price alike, with the key path in the message."""

import re
from pathlib import Path

import pytest

from kopsim.errors import InputError
from kopsim.rules.load import load_ruleset

DOC = Path(__file__).resolve().parents[1] / "docs" / "rulesets.md"

STRING_NUMBERS = [
    ('[auction]\nend_after_passes = "3"\n', "auction.end_after_passes"),
    ('[contracts.zolo]\npayout = { won = "5", lost = 5 }\n', "contracts.zolo.payout"),
]


@pytest.mark.parametrize("body, key", STRING_NUMBERS)
def test_a_number_written_as_a_string_is_rejected(tmp_path, body, key):
    path = tmp_path / "strings.toml"
    path.write_text('extends = "kop"\nname = "strings"\n' + body, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_ruleset(str(path))
    assert any(key in str(p) for p in e.value.problems), e.value.problems


def test_the_docs_say_so():
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    [sentence] = re.findall(r'A number written as a string \(`end_after_passes = "3"`\)[^.]*\.', text)
    assert "rejected" in sentence and "accepted" not in sentence

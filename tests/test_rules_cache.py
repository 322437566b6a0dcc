"""One cache of compiled rules and derived tables, keyed by the ruleset's sha256; frozen models;
the reference engine's legal-card rule as a function of its own."""

import pytest
from pydantic import ValidationError

from kopsim.engine.reference import Deal, State, card_orders, legal_cards
from kopsim.rules import cache
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict


def _described(text: str):
    data, _ = load_raw("kop")
    return ruleset_from_dict({**data, "name": "kop", "description": text}, "<test>")


def test_two_loads_of_one_ruleset_share_one_compilation():
    first, second = load_ruleset("kop"), load_ruleset("kop")
    assert first is not second
    assert cache.compiled(first) is cache.compiled(second)
    assert cache.compiled(cache.compiled(first)) is cache.compiled(first)


def test_an_edited_ruleset_gets_its_own_tables():
    plain, edited = load_ruleset("kop"), _described("edited")
    assert cache.compiled(plain) is not cache.compiled(edited)
    assert cache.compiled(edited).rules.description == "edited"


def test_a_table_is_built_once_per_ruleset():
    rules = _described("built once")
    builds = []
    for _ in range(3):
        value = cache.table(rules, ("test", 1), lambda: builds.append(1) or len(builds))
    assert value == 1 and builds == [1]


def test_the_cache_keeps_only_the_recent_rulesets():
    for i in range(cache.MAX_RULESETS + 5):
        cache.table(_described(f"sweep {i}"), "test", lambda: i)
    assert len(cache._ENTRIES) <= cache.MAX_RULESETS
    latest = _described(f"sweep {cache.MAX_RULESETS + 4}")
    assert cache.table(latest, "test", lambda: "rebuilt") == cache.MAX_RULESETS + 4


def test_the_reference_engine_keeps_its_tables_in_the_cache():
    rules = _described("reference tables")
    State(rules, Deal.from_seed(rules, 5, 0))
    assert cache.table(rules, "card_orders", lambda: "not built by State") is card_orders(rules)
    assert "card_orders" not in rules._cache


@pytest.mark.parametrize("mutate", [
    lambda r: setattr(r, "name", "other"),
    lambda r: setattr(r.scoring, "schneider_max_points", 1),
    lambda r: setattr(r.play, "must_beat", False),
    lambda r: setattr(r.contracts["zolo"], "bid_rank", 99),
])
def test_a_ruleset_is_frozen(mutate):
    rules = load_ruleset("kop")
    with pytest.raises(ValidationError, match="frozen"):
        mutate(rules)


def test_legal_cards_follow_suit_then_must_beat():
    rules = load_ruleset("kop")
    order = card_orders(rules)["as-dycha"]
    hand = ["AC", "10C", "AS", "QC"]
    assert legal_cards(rules.play, order, hand, []) == hand
    assert legal_cards(rules.play, order, hand, ["10S"]) == ["AS"]  # follows and beats
    assert legal_cards(rules.play, order, hand, ["JD"]) == ["QC"]  # trump led: a higher trump
    assert legal_cards(rules.play, order, ["AC", "10C"], ["AS"]) == ["AC", "10C"]  # void, no trump


def test_a_rules_file_edited_between_two_replays_is_read_again(tmp_path):
    from kopsim.experiments.simulate import simulate
    from kopsim.records.replay import replay

    rules_file = tmp_path / "mine.toml"
    rules_file.write_text('extends = "kop"\nname = "mine"\n', encoding="utf-8")
    log = tmp_path / "hands.jsonl"
    simulate(load_ruleset(str(rules_file)), 40, 3, log_path=str(log),
             ruleset_file=str(rules_file), progress=False)
    assert replay(log, rules_override=str(rules_file)) == (40, [])
    rules_file.write_text('extends = "kop"\nname = "mine"\ndescription = "edited"\n',
                          encoding="utf-8")
    checked, found = replay(log, rules_override=str(rules_file))
    assert checked == 40 and len(found) == 40  # the edited rules have another sha256

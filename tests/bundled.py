"""The bundled rulesets a test may run a bot on: all of them for the random and heuristic
bots; for the search and the bots built on it (pimc, its sampler, cheat-dd, learnt, ev's
tables), those it can play (`kopsim.bots.pimc.searchable`: a deck of distinct cards, every
card dealt to a seat, two sides). A ruleset one cannot play is refused before play, which
tests/test_rules_talon.py and tests/test_rules_value_bidding.py check."""

from kopsim.bots.pimc import searchable
from kopsim.rules.load import bundled_names, load_ruleset


def searchable_bundled() -> list[str]:
    """The bundled rulesets the double-dummy search plays."""
    return [n for n in bundled_names() if searchable(load_ruleset(n)) is None]


def playable(name: str, bots: list) -> bool:
    """Whether every bot of the line-up (BotSpec) plays the bundled ruleset `name`."""
    rules = load_ruleset(name)
    return all(b.cannot_play(rules) is None for b in bots)

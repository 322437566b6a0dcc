"""Bidding by value (Skat's Reizen, `Auction.style = "value"`) in plain Python: the reference
engine's statement of the kernel's `loop._value_auction`.

The seats from forehand are each senior to those after them. Each seat after forehand in turn
bids to the senior seat left standing: it names a value higher than any named before, or
passes; the senior answers each value with the hold call or passes; the one of them who did not
pass stands. The seat left standing declares, at the last value named or held. If nobody named
a value, forehand has a last word: a value, or pass (then nobody bid). docs/rules/SKAT.md §3.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PASS = "pass"


@dataclass
class ValueBidding:
    values: tuple[int, ...]  # the ladder, low to high
    hold: str  # the senior's answer
    seats: list[int]  # from forehand
    senior: int = field(init=False)
    junior: int = 1  # the index in seats of the seat bidding to the senior
    cur: int = -1  # the index of the last value named, -1 none
    answering: bool = False  # the senior answers the value just named
    last_word: bool = False  # nobody named a value: forehand speaks once more
    done: bool = False

    def __post_init__(self) -> None:
        self.senior = self.seats[0]

    def to_speak(self) -> int:
        if self.answering:
            return self.senior
        return self.seats[0] if self.last_word else self.seats[self.junior]

    def legal(self) -> list[str]:
        """Pass first; then the hold, or the values above the last named, low to high."""
        if self.answering:
            return [PASS, self.hold]
        return [PASS] + [str(v) for v in self.values[self.cur + 1:]]

    def apply(self, call: str) -> None:
        if self.answering:
            self.answering = False
            if call == PASS:  # the senior passes: the junior stands
                self.senior = self.seats[self.junior]
                self._next_junior()
        elif self.last_word:
            self.done = True
            if call != PASS:
                self.cur = self.values.index(int(call))
        elif call == PASS:
            self._next_junior()
        else:
            self.cur = self.values.index(int(call))
            self.answering = True

    def _next_junior(self) -> None:
        self.junior += 1
        if self.junior == len(self.seats):
            self.done = self.cur >= 0
            self.last_word = self.cur < 0

    @property
    def value(self) -> int | None:
        """The value named last (held or not yet answered), None before any."""
        return self.values[self.cur] if self.cur >= 0 else None

    @property
    def declarer(self) -> int | None:
        """Once done: the seat left standing, None if nobody bid."""
        return self.senior if self.cur >= 0 else None

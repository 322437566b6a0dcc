"""Speed and memory measurements: the engines, the bots' decisions, and a report on a large
random-play results folder."""

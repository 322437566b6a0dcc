"""Stage 2, play: the reference engine, the numba batch kernel and what they share (scoring,
random streams, sessions), and how `simulate` lays hands on deal ids."""

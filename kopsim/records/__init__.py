"""Stage 3, hand records: the JSON Lines format and the replay that re-derives every hand."""

"""Stage 4, experiments: the experiment file, the parallel run to Parquet results folders, and
duplicate duels of two bots."""

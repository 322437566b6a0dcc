"""A seat at the table: a person plays against bots (`kopsim play`)."""

"""Writes of many rows in one statement, each row to its own values: the finalization's hot
path (KORT_RULES §7, §8) updates a few players' cups and statistics per match, and the ORM's
expression compiler costs more than the statement itself there. SQL is built from the models'
table and column names only; every value is a parameter. Works on PostgreSQL and SQLite."""

"""The hot paths' SQL on PostgreSQL and SQLite.

- ``updates``: writes of many rows in one statement, each row to its own values, as plain
  values that one function runs together (one round trip on PostgreSQL). The finalization's
  hot path (KORT_RULES §7, §8, §12) updates a few players' cups and statistics per match, and
  the ORM's expression compiler costs more than the statement itself there, and the round
  trips more than both. SQL is built from the models' table and column names only; every
  value is a parameter.
- ``reads``: with a read replica, which reads must stay on the primary (``primary_reads()``)
  and the request's state the router reads (``kort_site.db_router``).
"""

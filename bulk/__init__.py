"""The hot paths' SQL on PostgreSQL and SQLite.

- ``updates``: the writes of a change as plain values that one function runs together (one
  round trip on PostgreSQL: a finalization's writes, KORT_RULES §7, §8, §12), and the upserts
  the ORM does not make. Every other write uses the ORM.
- ``sql``: conditions and row sources that the two databases spell differently.
- ``reads``: with a read replica, which reads must stay on the primary (``primary_reads()``)
  and the request's state the router reads (``kort_site.db_router``).
"""

"""Handing work to the task queue so that none is lost (API.md "Conventions", "Nothing is
lost").

``delivery.queue`` queues a task by its name, after the caller's transaction commits, and never
lets a broker that cannot be reached fail the request that stored the work. ``delivery.sweep``
finds the work whose task was lost (broker down at the moment, a worker killed) and queues it
again; every task it queues is idempotent, so a duplicate changes nothing.

Not a Django app: every app may import it (``tests/test_architecture.py``), and it imports none.
"""

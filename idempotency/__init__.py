"""Idempotency keys (API.md "Conventions"): the first answer to a ``POST`` with an
``Idempotency-Key`` header, kept per credential and key so that a retry gets it again instead of
writing twice. The HTTP side is ``idempotency.middleware``; the claims and answers are written by
``idempotency.services``. Imports nothing of the project's other apps."""

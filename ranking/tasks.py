"""Celery tasks of the ladder: thin wrappers that take ids and call a service."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ranking.services import match_finalize

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
"""Database errors worth another try (a lost connection, a deadlock, a serialization failure);
any other error is a bug or bad data, and retrying would only repeat it."""


@shared_task(
    name="ranking.finalize_match",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=True,
    max_retries=5,
)
def finalize_match(match_id: int) -> bool:
    """Finalize a completed match; a second run changes nothing (see ``match_finalize``).
    Queued by name (``ranking.finalize_match``) when a match is completed."""
    return match_finalize(match_id)

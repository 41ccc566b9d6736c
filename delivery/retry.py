"""What a task retries (API.md "Nothing is lost"): the one list of transient errors every
Celery task of the project names in ``autoretry_for``."""

from django.db import InterfaceError, OperationalError

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
"""Database errors worth another try (a lost connection, a deadlock, a serialization failure);
any other error is a bug or bad data, and retrying would only repeat it."""

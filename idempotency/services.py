"""Writes of idempotency keys (API.md "Conventions"; the IETF httpapi Idempotency-Key draft).

A key is claimed by inserting its row in a transaction of its own, before the request it guards
runs: the unique constraint on (scope, key) lets one request of many concurrent ones hold it, on
SQLite and PostgreSQL alike, and the others find the row. The winner's answer is then kept in the
row (:func:`key_keep`), or the row is deleted (:func:`key_release`) so the request may be retried.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from idempotency.models import IdempotencyKey

ABANDONED_AFTER = timedelta(minutes=5)
"""A claim still without an answer this long after it was made is taken for lost (its process
died mid-request): the next request with the key claims it afresh. A request takes well under a
second; gunicorn stops a worker stuck for 30 s."""


class Claim(enum.Enum):
    """What a request with a key finds (API.md "Conventions")."""

    CLAIMED = "claimed"
    """The key is new (or its answer expired): the request runs, holding it."""
    REPLAY = "replay"
    """The key's first request, with the same body, has its answer kept: send it again."""
    IN_FLIGHT = "in_flight"
    """The key's first request, with the same body, is still running (409)."""
    OTHER_BODY = "other_body"
    """The key was used with another method, path or body (422)."""


@dataclass(frozen=True)
class Claimed:
    claim: Claim
    row: IdempotencyKey | None
    """The key's row; None only for a key claimed and released by others meanwhile."""


def key_claim(*, scope: str, key: str, fingerprint: str) -> Claimed:
    """Claim ``key`` for ``scope`` (the credential's hash) and a request of ``fingerprint``
    (the hash of its method, path and body), or say what holds it already. A row past its
    time (an answer older than ``KORT_IDEMPOTENCY_HOURS``, a claim abandoned for
    :data:`ABANDONED_AFTER`) is taken for absent: it is replaced."""
    now = timezone.now()
    row = None
    for _ in range(2):
        try:
            with transaction.atomic():
                row = IdempotencyKey.objects.create(
                    scope=scope, key=key, fingerprint=fingerprint, created_at=now
                )
            return Claimed(Claim.CLAIMED, row)
        except IntegrityError:
            row = IdempotencyKey.objects.filter(scope=scope, key=key).first()
        if row is None:  # released meanwhile: claim again
            continue
        if not _outlived(row, now):
            return Claimed(_found(row, fingerprint), row)
        IdempotencyKey.objects.filter(pk=row.pk, created_at=row.created_at).delete()
    # Claimed and released again by others twice meanwhile: as good as in flight.
    return Claimed(Claim.IN_FLIGHT, row)


def _outlived(row: IdempotencyKey, now: datetime) -> bool:
    """Whether ``row`` is past its time: its answer older than ``KORT_IDEMPOTENCY_HOURS``, or
    its claim abandoned."""
    if row.status is None:
        return row.created_at <= now - ABANDONED_AFTER
    return row.created_at <= _oldest_kept(now)


def _found(row: IdempotencyKey, fingerprint: str) -> Claim:
    if row.fingerprint != fingerprint:
        return Claim.OTHER_BODY
    return Claim.IN_FLIGHT if row.status is None else Claim.REPLAY


def key_keep(row: IdempotencyKey, *, status: int, headers: dict[str, str], body: bytes) -> None:
    """Keep the answer of the request that claimed ``row``: its status, the headers worth
    sending again and its body."""
    IdempotencyKey.objects.filter(pk=row.pk).update(status=status, headers=headers, body=body)


def key_release(row: IdempotencyKey) -> None:
    """Free the key the request of ``row`` claimed (its answer is not kept: a 5xx, say)."""
    IdempotencyKey.objects.filter(pk=row.pk).delete()


def keys_purge() -> int:
    """Delete the keys older than ``KORT_IDEMPOTENCY_HOURS``; returns how many."""
    old = IdempotencyKey.objects.filter(created_at__lte=_oldest_kept(timezone.now()))
    deleted, _ = old.delete()
    return deleted


def _oldest_kept(now: datetime) -> datetime:
    return now - timedelta(hours=settings.KORT_IDEMPOTENCY_HOURS)

"""The claimed idempotency keys and the answers kept for them (API.md "Conventions")."""

from django.db import models


class IdempotencyKey(models.Model):
    """One ``Idempotency-Key`` of one credential: claimed (``status`` null) while its first
    request runs, then holding that request's answer until it is purged, ``KORT_IDEMPOTENCY_HOURS``
    after ``created_at``.

    ``scope`` is the SHA-256 (hex) of the request's ``Authorization`` header, or of its client
    address without one, so no usable credential is stored; ``fingerprint`` the SHA-256 of the
    method, the path and the body (canonical JSON when it is JSON)."""

    scope = models.CharField(max_length=64)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    headers = models.JSONField(default=dict, help_text="the kept headers of the answer")
    body = models.BinaryField(default=b"")
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="one_idempotency_key_per_scope")
        ]

    def __str__(self):
        return f"idempotency key {self.key!r}"

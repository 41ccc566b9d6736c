"""Ownership (API.md "Conventions"): a match and a Belote score sheet belong to the service key
that created them, and only that key may write to them. Players are shared by every key.

Services call :func:`check_owner` on the row they hold locked, inside the transaction of the
write, so the check and the write cannot be separated by another request.
"""

from __future__ import annotations

from rest_framework_api_key.models import APIKey

from domain.errors import Forbidden

OWNER_RULE = (
    "only the service key that created {what} may write to it (API.md: Ownership); "
    "this key did not create it"
)


def check_owner(owner_key_id: str | None, service_key: APIKey | None, what: str) -> None:
    """Refuse a write by ``service_key`` to ``what`` (``"match 12"``), which the key with id
    ``owner_key_id`` created. ``None`` stands for no key on either side: a row created without a
    key (in the admin, by a command) is written only by callers without one.

    Raises:
        Forbidden: ``service_key`` is not the key that created ``what``.
    """
    caller_key_id = None if service_key is None else service_key.pk
    if caller_key_id != owner_key_id:
        raise Forbidden(OWNER_RULE.format(what=what))

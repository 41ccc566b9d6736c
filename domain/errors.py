"""Domain errors: what services and the pure rules raise instead of HTTP exceptions.

Every error names the wire ``field`` it concerns (``"tricks"``, ``"rounds[2].play.hands"``) or
``None`` when it is about the request as a whole, and a message that cites the rule. The API's
one exception handler (``kort_site.api_errors``) maps them to HTTP:

| error | status | body |
| --- | --- | --- |
| :class:`RuleError` | 400 | ``{field: [message]}`` |
| :class:`Conflict` | 409 | ``{field: [message]}`` |
| :class:`Forbidden` | 403 | ``{"detail": message}`` |
| :class:`NotFound` | 404 | ``{"detail": message}`` |

This module imports nothing, so the pure rules packages may raise these errors too.
"""

from __future__ import annotations


class DomainError(Exception):
    """Base of the domain errors: a ``message`` about the wire ``field`` (None: the request),
    and any further ``messages`` about the same field (several bad seats, say)."""

    def __init__(self, field: str | None, message: str, *more: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.messages = (message, *more)

    def under(self, prefix: str) -> DomainError:
        """The same error with its field moved under ``prefix`` (``rounds[2]``): a whole-match
        report names the round a rule error came from."""
        field = prefix if self.field is None else f"{prefix}.{self.field}"
        moved = type(self).__new__(type(self))
        DomainError.__init__(moved, field, *self.messages)
        return moved


class RuleError(DomainError, ValueError):
    """The input breaks a rule of the game or of the contract (400). The pure packages'
    narrow errors (an illegal card, a record that does not replay) derive from it."""

    def __init__(self, field: str, message: str, *more: str) -> None:
        super().__init__(field, message, *more)


class Conflict(DomainError):
    """The request is well formed but clashes with the stored state (409): a round after the
    match ended, a second vote, a resend with another body."""


class Forbidden(DomainError):
    """The caller may not do this (403): not a voter, not the owner."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(field, message)


class NotFound(DomainError):
    """No such object (404)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(field, message)

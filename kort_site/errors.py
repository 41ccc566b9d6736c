"""One error shape for the whole API (API.md "Conventions"): ``{field: [message, ...]}``.

Rule errors from the pure modules are ``ValueError`` subclasses carrying a ``field``; they
become 400s here, so views never translate them one by one.
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.serializers import as_serializer_error
from rest_framework.views import exception_handler as drf_exception_handler


class Conflict(exceptions.APIException):
    """409: the request is well formed but clashes with the stored state."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the current state"
    default_code = "conflict"


def rule_error(exc: ValueError) -> exceptions.ValidationError:
    """A 400 naming the field of a rule error (any ``ValueError`` with a ``field``)."""
    return exceptions.ValidationError({exc.field: [str(exc)]})


def exception_handler(exc, context):
    """DRF's handler, after turning rule errors and Django ``ValidationError`` into 400s."""
    if isinstance(exc, ValueError) and hasattr(exc, "field"):
        exc = rule_error(exc)
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(as_serializer_error(exc))
    return drf_exception_handler(exc, context)

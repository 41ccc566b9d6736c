"""One error shape for the whole API (API.md "Conventions"): ``{field: [message, ...]}``.

Services and the pure rules raise the domain errors of :mod:`domain.errors`; this handler is
the one place that turns them into HTTP answers (400 / 409 / 403 / 404), so views never
translate errors one by one.
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from domain.errors import Conflict, DomainError, Forbidden, NotFound, RuleError
from kort_site import throttles


class ConflictError(exceptions.APIException):
    """409: the request is well formed but clashes with the stored state."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the current state"
    default_code = "conflict"


def _field_detail(exc: DomainError) -> dict[str, list[str]]:
    return {exc.field or "detail": list(exc.messages)}


def api_exception(exc: DomainError) -> exceptions.APIException:
    """The DRF exception (and so the status and body) of a domain error."""
    if isinstance(exc, RuleError):
        return exceptions.ValidationError(_field_detail(exc))
    if isinstance(exc, Conflict):
        return ConflictError(_field_detail(exc))
    if isinstance(exc, Forbidden):
        return exceptions.PermissionDenied(exc.message)
    if isinstance(exc, NotFound):
        return exceptions.NotFound(exc.message)
    raise TypeError(f"no HTTP mapping for {type(exc).__name__}")  # a new DomainError subclass


def exception_handler(exc, context):
    """DRF's handler, after turning domain errors and Django ``ValidationError`` into DRF's; a
    request refused for its credentials is a 429 instead when it is over its rate."""
    if isinstance(exc, DomainError):
        exc = api_exception(exc)
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(as_serializer_error(exc))
    elif isinstance(exc, throttles.REFUSED_BEFORE_RATES):
        exc = throttles.over_rate(context["request"], context["view"]) or exc
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, list):
        # A refusal of the input as a whole (a search term with a NUL character, say) is named
        # like a serializer's own errors, so every 400 is an object.
        exc = exceptions.ValidationError({api_settings.NON_FIELD_ERRORS_KEY: exc.detail})
    return drf_exception_handler(exc, context)

"""Start-up guard: with debug off the service refuses to run without a real secret key."""

from django.conf import settings
from django.core.checks import Error, Tags, register
from django.core.exceptions import ImproperlyConfigured

MIN_SECRET_LENGTH = 32


def secret_problem() -> str | None:
    """Why the configured secret key is unfit for serving with debug off, or None."""
    if settings.DEBUG:
        return None
    if settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        return "DJANGO_SECRET_KEY must be set to a real secret (not empty) when DJANGO_DEBUG is off"
    if len(settings.SECRET_KEY) < MIN_SECRET_LENGTH:
        return f"DJANGO_SECRET_KEY must be at least {MIN_SECRET_LENGTH} characters long"
    return None


def require_real_secret() -> None:
    """Raise ImproperlyConfigured when serving would use an unfit secret key."""
    problem = secret_problem()
    if problem:
        raise ImproperlyConfigured(problem)


@register(Tags.security, deploy=True)
def check_secret_key(app_configs, **kwargs):
    problem = secret_problem()
    return [Error(problem, id="kort.E001")] if problem else []

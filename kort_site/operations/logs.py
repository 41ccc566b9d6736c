"""One JSON object a line (API.md "Operating the service", ``DJANGO_LOG_FORMAT=json``): every
line has ``time`` (ISO 8601, UTC), ``level``, ``logger`` and ``message``; gunicorn's access
lines add ``method``, ``path``, ``status``, ``duration`` (seconds) and ``credential`` (its name,
``-`` for none), the task lines of ``kort_site.tasks`` ``task``, ``task_id``, ``duration`` and
``outcome``, and any other line the ``extra`` its caller gave.

Never a key or a token: an access line is built from the method, the path (without its query
string), the status, the duration and the credential's name only, never from the request's
headers, and the services never log a credential.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.json import JsonFormatter as BaseJsonFormatter

FIELDS = "{asctime}{levelname}{name}{message}"
NAMES = {"asctime": "time", "levelname": "level", "name": "logger"}
ACCESS_LOGGER = "gunicorn.access"
CREDENTIAL_ATOM = "{kort.credential}e"
"""gunicorn's atom for the WSGI environ entry ``kort.credential``
(``kort_site.operations.metrics.CREDENTIAL``)."""


class JsonFormatter(BaseJsonFormatter):
    """The JSON line of this module's docstring, for Django's, Celery's and gunicorn's
    loggers alike."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(FIELDS, style="{", rename_fields=NAMES)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        moment = datetime.fromtimestamp(record.created, tz=UTC)
        return moment.isoformat(timespec="milliseconds")

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        super().add_fields(log_data, record, message_dict)
        if record.name == ACCESS_LOGGER and isinstance(record.args, Mapping):
            log_data.update(_access_fields(record.args))
            log_data["message"] = "{method} {path} {status}".format(**log_data)


def _access_fields(atoms: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of an access line from gunicorn's atoms (its ``glogging.Logger.atoms``)."""
    return {
        "method": atoms["m"],
        "path": atoms["U"],
        "status": int(atoms["s"]),
        "duration": float(atoms["L"]),
        "credential": atoms[CREDENTIAL_ATOM],
    }


def gunicorn_logconfig() -> dict[str, Any]:
    """gunicorn's ``logconfig_dict`` for JSON lines: its error log (``gunicorn.error``) and
    access log (``gunicorn.access``) both on standard output."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            }
        },
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
            ACCESS_LOGGER: {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
    }

"""The OpenAPI schema as the server answers (API.md "Conventions"): each operation lists the
credentials it takes and the errors it can give, with their bodies.

- Idempotency: every ``POST`` takes the optional ``Idempotency-Key`` header
  (``kort_site.idempotency``), and can answer 409 (its first request still running) and 422
  (the key used with another body).
- Security: an operation that needs a service key lists only the service key; one that needs a
  player token only the token; the public ones take either, or none.
- Errors: 401 (bad credentials) and 429 (over the rate) wherever credentials are read and
  requests counted (everywhere but the operator's endpoints); 400 where a body or a query
  parameter is read (a ``page`` or ``cursor`` too), and on every ``POST`` (a malformed
  ``Idempotency-Key``); 403 where a credential of a kind is needed; 404 where the path names
  an object or the list has numbered pages (one past the last);
  414 where a query is read (a request target over the length read); 413 and 415 wherever
  a body can be sent (``POST``, ``PUT``, ``PATCH``), read by the view or not. A view adds
  the errors only it knows of (a 409, an ownership 403, a 400 of its own) as
  ``OpenApiResponse``\\s with a description, and gets the error body filled in here.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiParameter

from kort_site.idempotency import HEADER as IDEMPOTENCY_KEY
from kort_site.idempotency import KEY_SCHEMA_PATTERN
from players.auth import IsPlayer, IsServiceKey

SERVICE_KEY_SCHEME = "ServiceKey"
PLAYER_TOKEN_SCHEME = "tokenAuth"
PAST_THE_END = {"page", "season"}
"""Query parameters a value of which names nothing (404): a page past the last, a season that
is no season's number. A ``page`` that is no page number, like a ``cursor`` that is none, is a
400 (``domain.paging``)."""
FIELD_ERROR_CODES = ("400", "409", "422")
"""The errors whose body names each field at fault; the others have a ``detail``."""

ERROR = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
    "description": "What is wrong, and the rule it breaks.",
}
FIELD_ERRORS = {
    "type": "object",
    "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "object"}]},
    "description": 'Each bad field and why (`{"tricks": ["a round ends when a team reaches 7 '
    'tricks; got 8:3"]}`), nested as the body is; `non_field_errors` for the input as a '
    "whole, `detail` for a body that is no JSON.",
}
ERROR_DESCRIPTIONS = {
    "400": "Invalid input: each bad field and why; nothing was written.",
    "401": "Missing, invalid or revoked credentials.",
    "403": "This credential may not do this (a player token where a service key is needed, "
    "or the reverse).",
    "404": "No such object, or no such page.",
    "409": "The first request with this `Idempotency-Key` is still being processed.",
    "413": "The body is over the size limit (KORT_MAX_BODY_BYTES, 1 MiB by default).",
    "414": "The request target (path and query) is over the length the service reads "
    "(`kort_site.middleware.MAX_TARGET_CHARS`).",
    "415": "The body is not JSON (`Content-Type: application/json`).",
    "422": "This `Idempotency-Key` was used with another request (method, path or body).",
    "429": "Over the request rate of this credential or address; `Retry-After` gives the "
    "seconds to wait.",
}
IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    IDEMPOTENCY_KEY,
    type={"type": "string", "minLength": 1, "maxLength": 255, "pattern": KEY_SCHEMA_PATTERN},
    location=OpenApiParameter.HEADER,
    description="Makes a retry safe (API.md: Conventions): the first answer is kept for "
    "KORT_IDEMPOTENCY_HOURS (24 by default) per credential and key, and a repeat with the same "
    "body gets it again with `Idempotent-Replayed: true`, writing nothing. Ignored by a player "
    "token's mint, whose answer is shown once.",
)
RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds until a request is counted again.",
    }
}


class KortAutoSchema(AutoSchema):
    def get_auth(self):
        auths = super().get_auth()
        only = self._only_scheme()
        if only is None:
            return auths
        return [auth for auth in auths if list(auth) == [only]]

    def _only_scheme(self) -> str | None:
        """The one security scheme of an operation that needs a credential of one kind."""
        permissions = self.view.get_permissions()
        if any(isinstance(permission, IsServiceKey) for permission in permissions):
            return SERVICE_KEY_SCHEME
        if any(isinstance(permission, IsPlayer) for permission in permissions):
            return PLAYER_TOKEN_SCHEME
        return None

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        if self.method == "POST":
            return [*parameters, IDEMPOTENCY_KEY_HEADER]
        return parameters

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._error_codes():
            responses.setdefault(code, {"description": ERROR_DESCRIPTIONS[code]})
        for code, response in responses.items():
            if code >= "400" and "content" not in response:
                response["content"] = {"application/json": {"schema": self._error_body(code)}}
        if "429" in responses:
            responses["429"]["headers"] = RETRY_AFTER
        return dict(sorted(responses.items()))

    def _error_codes(self) -> list[str]:
        """The errors every operation of this kind can give (see the module's docstring)."""
        body = self.method in ("POST", "PUT", "PATCH")
        takes_body = body and self.get_request_serializer() is not None
        parameters = [
            parameter
            for parameter in self._get_parameters()
            if parameter["in"] in (OpenApiParameter.QUERY, OpenApiParameter.PATH)
        ]
        queried = {p["name"] for p in parameters if p["in"] == OpenApiParameter.QUERY}
        codes = ["401"] if self.view.get_authenticators() else []
        if self.view.get_throttles():
            codes.append("429")
        if body and self.method == "POST":
            codes.extend(("400", "409", "422"))
        elif takes_body or queried:
            codes.append("400")
        if self._only_scheme() is not None:
            codes.append("403")
        in_path = any(p["in"] == OpenApiParameter.PATH for p in parameters)
        if PAST_THE_END & queried or in_path:
            codes.append("404")
        if queried:
            codes.append("414")
        if body:
            codes.append("413")
        if body:  # refused before the view, whether it reads a body or not (middleware.py)
            codes.append("415")
        return codes

    def _error_body(self, code: str) -> dict:
        name, schema = (
            ("FieldErrors", FIELD_ERRORS) if code in FIELD_ERROR_CODES else ("Error", ERROR)
        )
        component = ResolvedComponent(
            name=name, type=ResolvedComponent.SCHEMA, schema=schema, object=name
        )
        self.registry.register_on_missing(component)
        return component.ref

"""API credentials (API.md "Conventions"): service keys for game servers, player tokens for
players. ``request.auth`` is the service key (an ``APIKey``) or the player's token."""

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions, permissions
from rest_framework.authentication import BaseAuthentication, TokenAuthentication
from rest_framework_api_key.models import APIKey
from rest_framework_api_key.permissions import KeyParser

from bulk.compiled import CompiledRead


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``: acts as the human player who owns the token."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if not hasattr(user, "player"):
            raise exceptions.AuthenticationFailed("this token does not belong to a player")
        return user, token


class ServiceKeyAuthentication(BaseAuthentication):
    """``Authorization: Api-Key <key>``: a game server's key, issued in the admin or by
    ``manage.py create_service_key``."""

    keyword = KeyParser.keyword

    def authenticate(self, request):
        key = KeyParser().get(request)
        if key is None:
            return None
        found = _USABLE_KEY(key.partition(".")[0])
        if not found or not found[0].is_valid(key):
            raise exceptions.AuthenticationFailed("invalid or revoked service key")
        service_key = found[0]
        if service_key.has_expired:
            raise exceptions.AuthenticationFailed("this service key has expired")
        return AnonymousUser(), service_key

    def authenticate_header(self, request):
        return self.keyword


_USABLE_KEY = CompiledRead(
    APIKey, lambda prefix: APIKey.objects.get_usable_keys().filter(prefix=prefix), str
)
"""The unrevoked key with a prefix (``APIKey.objects.get_from_key``'s read, compiled once:
every request of a game server makes it)."""


class IsServiceKey(permissions.BasePermission):
    message = "a service key is required: Authorization: Api-Key <key>"

    def has_permission(self, request, view):
        return isinstance(request.auth, APIKey)


class IsPlayer(permissions.BasePermission):
    message = "a player token is required: Authorization: Token <key>"

    def has_permission(self, request, view):
        return request.user.is_authenticated and hasattr(request.user, "player")


class ServiceKeyScheme(OpenApiAuthenticationExtension):
    """The service key in the OpenAPI schema (drf-spectacular finds it by subclassing)."""

    target_class = ServiceKeyAuthentication
    name = "ServiceKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A game server's key: `Api-Key <key>`",
        }

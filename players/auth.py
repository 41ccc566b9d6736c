"""API credentials (API.md "Conventions"): service keys for game servers, player tokens for
players. ``request.auth`` is the service key (an ``APIKey``) or the player's token (a
``PlayerToken``)."""

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions, permissions
from rest_framework.authentication import BaseAuthentication, TokenAuthentication
from rest_framework_api_key.models import APIKey
from rest_framework_api_key.permissions import KeyParser

from bulk.reads import primary_reads
from players.models import PlayerToken
from players.services import TOKEN_KEYS


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``: acts as the human player who owns the token, while it
    is neither expired nor revoked. The token is found by its hash (players.services)."""

    @primary_reads()
    def authenticate_credentials(self, key):
        tokens = PlayerToken.objects.select_related("player__user")
        token = tokens.filter(hashed_key=TOKEN_KEYS.hash(key), revoked_at=None).first()
        if token is None:
            raise exceptions.AuthenticationFailed("invalid or revoked player token")
        if token.has_expired:
            raise exceptions.AuthenticationFailed("this player token has expired")
        return token.player.user, token


class ServiceKeyAuthentication(BaseAuthentication):
    """``Authorization: Api-Key <key>``: a game server's key, issued in the admin or by
    ``manage.py create_service_key``."""

    keyword = KeyParser.keyword

    @primary_reads()
    def authenticate(self, request):
        key = KeyParser().get(request)
        if key is None:
            return None
        prefix = key.partition(".")[0]
        service_key = APIKey.objects.get_usable_keys().filter(prefix=prefix).first()
        if service_key is None or not service_key.is_valid(key):
            raise exceptions.AuthenticationFailed("invalid or revoked service key")
        if service_key.has_expired:
            raise exceptions.AuthenticationFailed("this service key has expired")
        return AnonymousUser(), service_key

    def authenticate_header(self, request):
        return self.keyword


class IsServiceKey(permissions.BasePermission):
    message = "a service key is required: Authorization: Api-Key <key>"

    def has_permission(self, request, view):
        return isinstance(request.auth, APIKey)


class IsPlayer(permissions.BasePermission):
    message = "a player token is required: Authorization: Token <key>"

    def has_permission(self, request, view):
        return request.user.is_authenticated and hasattr(request.user, "player")


class IsServiceKeyOrOwnToken(permissions.BasePermission):
    """A service key, or the token of the player the request is about (a player may revoke
    their own tokens)."""

    message = (
        "a service key, or a token of this player, is required: Authorization: Api-Key <key> "
        "or Authorization: Token <key>"
    )

    def has_permission(self, request, view):
        return isinstance(request.auth, APIKey | PlayerToken)

    def has_object_permission(self, request, view, obj):
        return isinstance(request.auth, APIKey) or request.auth.player_id == obj.pk


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

"""The operator's endpoints (API.md "Operating the service"): ``GET /health/live``, ``GET
/health/ready`` and ``GET /metrics``. None takes a credential (a header sent along is not even
read) or counts against a request rate, so a load balancer's probes and Prometheus' scrapes
never meet a 401 or a 429."""

from __future__ import annotations

import ipaddress
from http import HTTPStatus

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kort_site.operations import health, metrics


class AnyAccept(BaseContentNegotiation):
    """The answer's format is the endpoint's, whatever the client accepts (a probe or a
    scraper sends what it sends)."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class OperatorView(APIView):
    authentication_classes = ()
    permission_classes = ()
    throttle_classes = ()
    content_negotiation_class = AnyAccept


Live = inline_serializer("Live", fields={"status": serializers.CharField()})
Ready = inline_serializer(
    "Ready",
    fields={
        "status": serializers.ChoiceField(choices=["ok", "unavailable"]),
        "checks": serializers.DictField(
            child=serializers.CharField(),
            help_text='By dependency (database, replica, broker): "ok" or "unavailable: <why>".',
        ),
    },
)


class LiveView(OperatorView):
    @extend_schema(
        summary="The process serves requests",
        description="Checks nothing else: for a load balancer's liveness probe.",
        responses={200: Live},
    )
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


class ReadyView(OperatorView):
    @extend_schema(
        summary="The database, the replica and the broker answer",
        description="Each dependency is asked to answer within a second: 200 when all did, "
        "else 503 naming which did not.",
        responses={200: Ready, 503: OpenApiResponse(Ready, description="A dependency failed.")},
    )
    def get(self, request: Request) -> Response:
        checks = health.readiness()
        ready = all(answer == health.OK for answer in checks.values())
        status = HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE
        return Response({"status": "ok" if ready else "unavailable", "checks": checks}, status)


class MetricsView(OperatorView):
    @extend_schema(
        summary="Prometheus metrics",
        description="The Prometheus text format. Only addresses in KORT_METRICS_ALLOW may read it.",
        responses={
            (200, "text/plain"): OpenApiTypes.STR,
            403: OpenApiResponse(description="This address may not read the metrics."),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        address = request.META.get("REMOTE_ADDR", "")  # the client, past a trusted proxy
        if not _allowed(address):
            detail = f"{address} may not read the metrics (KORT_METRICS_ALLOW)"
            return Response({"detail": detail}, HTTPStatus.FORBIDDEN)
        return HttpResponse(metrics.scrape(), content_type=CONTENT_TYPE_PLAIN_0_0_4)


def _allowed(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in settings.KORT_METRICS_ALLOW)

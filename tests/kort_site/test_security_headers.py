"""Security headers and start-up checks: a Content-Security-Policy on every HTML page, whose
pages hold no inline script or style; HSTS on answers over TLS; ``check --deploy`` with the
production settings; an empty ``DJANGO_SECRET_KEY`` is the project's kort.E001; a chunked body
on a server that does not end its stream is a JSON 411 (API.md "Conventions"); an error made
JSON at the API's edge keeps the security headers."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

ROOT = Path(__file__).resolve().parents[2]
POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "object-src": "'none'",
    "frame-ancestors": "'none'",
}
INLINE = re.compile(
    rb'<script(?![^>]*\b(?:src=|type="application/json"))[^>]*>|<style\b|\sstyle=|\son[a-z]+=',
    re.I,
)
"""A script element that runs without a file (not ``src``, not a JSON data block such as the
cups chart's, which the policy lets be), a style element or attribute, or an event handler."""


def directives(response) -> dict[str, str]:
    policy = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())


@pytest.mark.parametrize(
    "path",
    [
        "/en/",
        "/ru/seasons/1/",
        "/en/players/{player}/",
        "/en/matches/{match}/",
        "/en/players/999999/",
        "/admin/login/",
        "/api/docs/",
    ],
)
def test_every_html_page_has_the_policy_and_no_inline_script(client, finalized_ranked, path):
    player = finalized_ranked.seats.first().player_id
    response = client.get(path.format(player=player, match=finalized_ranked.pk))

    assert response["Content-Type"].startswith("text/html")
    assert directives(response).items() >= POLICY.items()
    assert INLINE.findall(response.content) == []


def test_the_admin_pages_have_the_policy(staff, cast):
    for path in ("/admin/", "/admin/players/player/", f"/admin/players/player/{cast[0].pk}/"):
        response = staff.get(path)
        assert directives(response)["script-src"] == "'self'", path


@override_settings(SECURE_HSTS_SECONDS=31536000)
def test_hsts_only_over_tls(client, db):
    assert client.get("/en/", secure=True)["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in client.get("/en/", secure=False)


def run_check(**environment) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SECURE_"))}
    env.update(environment)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_an_empty_secret_key_is_the_projects_own_error():
    checked = run_check(DJANGO_SECRET_KEY="", DJANGO_DEBUG="false")

    assert checked.returncode == 1
    assert "Traceback" not in checked.stderr
    assert "(kort.E001) DJANGO_SECRET_KEY must be set to a real secret" in checked.stderr


def test_check_deploy_with_the_production_settings_warns_only_of_the_domains_choices():
    checked = run_check(DJANGO_SECRET_KEY="k" * 20 + "-a-real-secret-0123456789-abcdefghij")
    found = set(re.findall(r"\((\w+\.\w+)\)", checked.stdout + checked.stderr))

    assert checked.returncode == 0, checked.stderr
    # docs/production.md "Behind TLS": subdomains and the preload list are the operator's to decide.
    assert found == {"security.W005", "security.W021"}


def test_a_chunked_body_the_server_does_not_end_is_a_json_411(service):
    refused = service.client.post(
        "/api/v1/players/",
        data=b"",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
    )

    assert refused.status_code == 411
    assert refused.json() == {
        "detail": "a chunked body is not read by this server: send Content-Length"
    }


SECURITY_HEADERS = (
    "Content-Security-Policy",
    "Cross-Origin-Opener-Policy",
    "Referrer-Policy",
    "X-Content-Type-Options",
    "X-Frame-Options",
)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/docs/", "/api/schema/"])
def test_a_429_of_the_schema_or_its_docs_has_the_security_headers(client, path):
    with override_settings(KORT_THROTTLE_ANON="1/min"):
        client.get("/api/v1/seasons/")
        api_refused = client.get("/api/v1/seasons/")
        refused = client.get(path)

    assert (api_refused.status_code, refused.status_code) == (429, 429)
    assert refused["Content-Type"] == "application/json"
    assert "Retry-After" in refused
    assert {name: refused.get(name) for name in SECURITY_HEADERS} == {
        name: api_refused[name] for name in SECURITY_HEADERS
    }

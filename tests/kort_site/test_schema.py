"""The OpenAPI schema (API.md: served at /api/schema/) generates cleanly and validates."""

from django.core.management import call_command


def test_the_schema_generates_without_warnings_and_validates(tmp_path):
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "s.yaml"))

    assert "/api/v1/matches/{id}/rounds/" in (tmp_path / "s.yaml").read_text()

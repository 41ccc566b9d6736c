"""The static files as production serves them (docs/production.md): ``collectstatic``
writes hashed names with gzip copies, the pages link the hashed names, and WhiteNoise serves
them compressed and cached for a year."""

import re

import pytest

pytestmark = pytest.mark.django_db

YEAR = 365 * 24 * 3600


def test_the_pages_link_hashed_compressed_files_cached_for_a_year(collected, client, cast):
    html = client.get(f"/en/players/{cast[0].id}/").content.decode()
    links = re.findall(r'/static/pages/[^"]+', html)
    assert {re.sub(r"\.[0-9a-f]{12}\.", ".", link) for link in links} == {
        "/static/pages/site.css",
        "/static/pages/favicon.svg",
    }
    for link in links:
        response = client.get(link, headers={"accept-encoding": "gzip"})
        assert response.status_code == 200
        assert response["Content-Encoding"] == "gzip"
        max_age = re.search(r"max-age=(\d+)", response["Cache-Control"])
        assert max_age is not None
        assert int(max_age.group(1)) >= YEAR
    assert list((collected / "pages" / "vendor" / "chart.js-4.6.1").glob("chart.umd.min.*.js.gz"))

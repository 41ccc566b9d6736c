"""The leaderboard's page parameters as the schema gives them (API.md "Leaderboard"): `limit`
and `offset` are non-negative integers or a 400; a `limit` over the maximum is clamped, as DRF
clamps it; `/around/` reads only `radius`."""

import pytest

LEADERBOARD = "/api/v1/leaderboard/"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=abc", "limit"),
        ("limit=-1", "limit"),
        ("offset=1.5", "offset"),
        ("offset=", "offset"),
    ],
)
def test_a_limit_or_offset_that_is_not_a_count_is_a_400(api, query, field):
    response = api.client.get(f"{LEADERBOARD}?{query}")

    assert response.status_code == 400
    assert "a non-negative integer" in response.json()[field][0]


def test_a_limit_over_the_maximum_is_clamped(api, finalized_ranked):
    page = api.get(LEADERBOARD, {"limit": 100000, "offset": 1}).json()

    assert (page["count"], len(page["results"])) == (4, 3)
    assert page["previous"].endswith("?limit=100")


def test_around_ignores_a_page(api, cast, finalized_ranked):
    around = f"{LEADERBOARD}around/{cast[0].pk}/"
    plain = api.get(around, {"radius": 1}).json()

    assert api.get(around, {"radius": 1, "page": 7}).json() == plain
    assert len(plain["results"]) == 2

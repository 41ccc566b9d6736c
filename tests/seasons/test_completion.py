"""A match belongs to the season in which it was completed (KORT_RULES §10): the season open
at that moment, or, past its end before the end has run, the season that opens then."""

from datetime import timedelta

import pytest
import time_machine

from seasons.models import Season
from seasons.selectors import season_of_completion
from seasons.services import season_update
from tests.api_steps import ids_of, match_play, match_read, match_start, round_body


@pytest.fixture
def season_one(db):
    return Season.objects.get(number=1)


@pytest.mark.parametrize(
    ("after_the_end", "season"),
    [
        (timedelta(seconds=-1), 1),
        (timedelta(0), 2),
        (timedelta(days=20), 2),
        (timedelta(days=45), 3),
        (timedelta(days=400), 15),  # 13 whole months past season 2's start
    ],
)
def test_the_season_of_a_moment(season_one, after_the_end, season):
    with time_machine.travel(season_one.ends_at + after_the_end, tick=False):
        assert season_of_completion()[0] == season


def test_a_match_is_stamped_with_its_season_when_its_last_round_is_stored(service, api, cast):
    match_id = match_start(service, ids_of(cast))
    assert match_read(api, match_id)["season"] is None

    match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    match_id = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])

    assert match_read(api, match_id)["season"] == 1


def test_a_moved_end_moves_the_boundary(season_one):
    later = season_one.ends_at + timedelta(days=10)
    season_update(1, ends_at=later, name="Long first season")

    with time_machine.travel(season_one.ends_at + timedelta(days=5), tick=False):
        assert season_of_completion()[0] == 1
    with time_machine.travel(later, tick=False):
        assert season_of_completion()[0] == 2
    assert Season.objects.get(number=1).name == "Long first season"

"""The finalized matches' stored count starts from the matches finalized before it (ranking/
migrations/0013), voided ones included. Not marked ``postgres``: it runs on SQLite, and on
PostgreSQL when ``DATABASE_URL`` names one."""

import pytest

from ranking.models import FinalizedCount
from ranking.services import match_void
from ranking.status import pipeline_figures
from tests.api_steps import ids_of, match_play, match_start, round_body
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _latest_afterwards():
    yield
    migrate({})


def test_the_count_starts_from_the_matches_finalized_so_far(service, cast):
    seats = ids_of(cast)
    finalized = [match_play(service, seats, [round_body(0, 7, 0, "stop")]) for _ in range(3)]
    match_void(finalized[0], "a test")
    match_start(service, seats)  # under way: not counted
    migrate({"ranking": "0012_reset_after_the_opening"})

    migrate({})

    assert list(FinalizedCount.objects.values_list("slot", "matches")) == [(0, 3)]
    assert pipeline_figures().matches_finalized == 3

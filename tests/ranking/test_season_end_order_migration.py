"""An end stopped by the release before this one resumes in the new order of steps (KORT_RULES
§10; ranking/migrations/0012): its standings are frozen, so it opens the next season, and the
players its batches had already reset are not reset again. Not marked ``postgres``: it runs on
SQLite, and on PostgreSQL when ``DATABASE_URL`` names one."""

import pytest
from django.utils import timezone

from players.models import Player
from ranking.models import SeasonEnd
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_THE_NEW_ORDER: dict[str, str | None] = {"ranking": "0011_ledger_player_key_unchecked"}


@pytest.fixture(autouse=True)
def _latest_afterwards():
    yield
    migrate({})


@pytest.mark.parametrize(
    ("step", "cursor", "reset", "not_reset"),
    [
        pytest.param("reset", None, [], ["amir", "bita", "cyrus"], id="standings-frozen"),
        pytest.param("reset", "bita", ["amir", "bita"], ["cyrus"], id="reset-half-written"),
        pytest.param("open", "cyrus", ["amir", "bita", "cyrus"], [], id="reset-written"),
    ],
)
def test_an_end_stopped_by_the_release_before_resumes_at_the_opening(
    step, cursor, reset, not_reset
):
    apps = migrate(BEFORE_THE_NEW_ORDER)
    players = apps.get_model("players", "Player").objects
    ids = {
        name: players.create(username=name, username_key=name).pk
        for name in ("amir", "bita", "cyrus")
    }
    season = apps.get_model("seasons", "Season").objects.get(number=1)
    apps.get_model("seasons", "Season").objects.filter(number=1).update(status="finalizing")
    apps.get_model("ranking", "SeasonEnd").objects.create(
        season=season,
        step=step,
        cursor=None if cursor is None else ids[cursor],
        reset_floor=0,
        started_at=timezone.now(),
    )

    migrate({})

    end = SeasonEnd.objects.get(season=1)
    assert (end.step, end.cursor) == ("open", None)
    reset_season = dict(Player.objects.values_list("username", "reset_season"))
    assert {name: reset_season[name] for name in reset} == dict.fromkeys(reset, 2)
    assert {name: reset_season[name] for name in not_reset} == dict.fromkeys(not_reset, None)

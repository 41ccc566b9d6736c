"""The migrations: the models need none that is not written, the test database (migrated from
zero) is at the latest, and an installation of the last release upgrades with its rows: the
ledger's player key unchecked (ranking 0011) and checked again (ranking 0014), the players'
reset season (players 0010), the season's pending reset (seasons 0002) and the season end's
new order of steps (ranking 0012).
Not marked ``postgres``: they run on SQLite, and on PostgreSQL when ``DATABASE_URL`` names one.
"""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from players.models import Player
from ranking.models import CupChange, SeasonEnd
from seasons.models import Season
from tests.migrations import migrate

LAST_RELEASE: dict[str, str | None] = {
    "players": "0009_names_of_30_letters_and_clean_display_names",
    "seasons": "0001_initial",
    "ranking": "0010_season_end_indexes",
    "stats": "0005_pairs_streaks_modes",
}
"""The last migration of each app the last release had, where it is not the latest."""


@pytest.mark.django_db
def test_the_models_need_no_migration_that_is_not_written():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:
        pytest.fail(f"the models differ from their migrations:\n{out.getvalue()}")


@pytest.mark.django_db
def test_the_database_migrated_from_zero_is_at_the_latest():
    executor = MigrationExecutor(connection)

    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []


@pytest.mark.django_db(transaction=True)
class TestUpgradeFromTheLastRelease:
    @pytest.fixture(autouse=True)
    def _latest_afterwards(self):
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
    def test_a_stopped_season_end_resumes_at_the_opening(self, step, cursor, reset, not_reset):
        """Its standings are frozen, so it opens the next season, and the players its batches
        had already reset are not reset again."""
        apps = migrate(LAST_RELEASE)
        players = apps.get_model("players", "Player").objects
        ids = {
            name: players.create(username=name, username_key=name).pk
            for name in ("amir", "bita", "cyrus")
        }
        seasons = apps.get_model("seasons", "Season").objects
        seasons.filter(number=1).update(status="finalizing")
        apps.get_model("ranking", "SeasonEnd").objects.create(
            season=seasons.get(number=1),
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

    def test_a_season_opened_by_the_last_release_has_its_reset_written(self):
        """Its reset was written whole when the season before was finalized: it has that
        moment and no pending floor."""
        apps = migrate(LAST_RELEASE)
        seasons = apps.get_model("seasons", "Season").objects
        first = seasons.get(number=1)
        finalized_at = first.ends_at
        seasons.filter(number=1).update(status="finalized", finalized_at=finalized_at)
        seasons.create(
            number=2,
            name="Season 2",
            starts_at=first.ends_at,
            ends_at=first.ends_at + (first.ends_at - first.starts_at),
        )

        migrate({})

        moments = Season.objects.order_by("number").values_list("reset_at", "reset_floor")
        assert list(moments) == [(None, None), (finalized_at, None)]

    def test_the_ledgers_rows_stay_and_its_player_key_is_checked(self):
        """The ledger's rows of the last release stay; a row naming no player is refused from
        then on."""
        apps = migrate(LAST_RELEASE)
        amir = apps.get_model("players", "Player").objects.create(
            username="amir", username_key="amir"
        )
        apps.get_model("ranking", "CupChange").objects.create(
            kind="season_reset", player=amir, season=2, delta=-7, cups_after=7,
            created_at=timezone.now(),
        )  # fmt: skip

        migrate({})

        assert list(CupChange.objects.values_list("player_id", "cups_after")) == [(amir.pk, 7)]
        with pytest.raises(IntegrityError), transaction.atomic():
            CupChange.objects.create(
                kind="season_reset", player_id=amir.pk + 1000, season=2, delta=0, cups_after=0,
                created_at=timezone.now(),
            )  # fmt: skip

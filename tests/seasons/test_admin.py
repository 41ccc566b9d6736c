"""The admin of the seasons (KORT_RULES §10): the current season's name and end may change, an
end only into the future; a finalized season and its frozen standings are read-only."""

from datetime import timedelta

from django.utils import timezone

from ranking.models import SeasonStanding
from seasons.models import Season
from tests.ranking.season_steps import season_end, season_one_play

SEASONS = "/admin/seasons/season/"


def form_time(moment) -> dict:
    return {"ends_at_0": moment.strftime("%Y-%m-%d"), "ends_at_1": moment.strftime("%H:%M:%S")}


def test_the_current_seasons_name_and_end_change(staff, db):
    later = (timezone.now() + timedelta(days=90)).replace(microsecond=0)

    r = staff.post(f"{SEASONS}1/change/", {"name": "Spring cup", **form_time(later)})

    assert r.status_code == 302
    season = Season.objects.get(number=1)
    assert (season.name, season.ends_at, season.status) == ("Spring cup", later, "current")


def test_an_end_in_the_past_is_refused(staff, db):
    before = Season.objects.get(number=1)
    earlier = timezone.now() - timedelta(days=1)

    r = staff.post(f"{SEASONS}1/change/", {"name": "Spring cup", **form_time(earlier)})

    assert r.status_code == 200
    assert "a season&#x27;s end must be in the future" in r.content.decode()
    assert Season.objects.get(number=1).ends_at == before.ends_at
    assert Season.objects.get(number=1).name == before.name


def test_a_finalized_season_and_its_standings_are_read_only(staff, service):
    season_one_play(service)
    season_end()
    one = Season.objects.get(number=1)

    page = staff.get(f"{SEASONS}1/change/").content.decode()
    staff.post(f"{SEASONS}1/change/", {"name": "renamed", **form_time(timezone.now())})

    assert Season.objects.get(number=1).name == one.name
    assert "9 standing(s)" in page
    assert 'name="name"' not in page
    assert 'name="name"' in staff.get(f"{SEASONS}2/change/").content.decode()
    assert staff.get(f"{SEASONS}add/").status_code == 403
    assert staff.get(f"{SEASONS}1/delete/").status_code == 403
    standings = "/admin/ranking/seasonstanding/"
    listed = staff.get(standings, {"season__number__exact": 1})
    assert listed.context["cl"].result_count == 9
    row = SeasonStanding.objects.get(season=1, rank=1)
    assert staff.get(f"{standings}{row.pk}/delete/").status_code == 403
    for status, count in (("finalized", 1), ("current", 1)):
        assert staff.get(SEASONS, {"status__exact": status}).context["cl"].result_count == count

"""The admin of the cups ledger (KORT_RULES §7, API.md "Leaderboard"): read-only, on its own
page and on each match's page, as are the statistics."""

from ranking.models import CupChange

LEDGER = "/admin/ranking/cupchange/"


def test_the_match_page_shows_seats_rounds_and_cup_changes(staff, finalized_ranked):
    r = staff.get(f"/admin/matches/match/{finalized_ranked.pk}/change/")
    assert r.status_code == 200
    page = r.content.decode()
    for text in ("amir", "dara", "Rounds", "Cup changes"):
        assert text in page
    found = staff.get("/admin/matches/match/", {"q": "cyrus"})
    assert found.context["cl"].result_count == 1


def test_the_ledger_and_statistics_are_read_only(staff, finalized_ranked):
    change = CupChange.objects.filter(match=finalized_ranked).first()
    assert change is not None
    assert staff.get(LEDGER).status_code == 200
    assert staff.get(f"{LEDGER}add/").status_code == 403
    assert staff.get(f"{LEDGER}{change.pk}/delete/").status_code == 403
    staff.post(f"{LEDGER}{change.pk}/change/", {"delta": 100})
    change.refresh_from_db()
    assert change.delta in (8, -3)
    for mode, rows in (("ranked", 4), ("room", 0)):
        listed = staff.get(LEDGER, {"match__mode__exact": mode})
        assert listed.context["cl"].result_count == rows
    searched = staff.get(LEDGER, {"q": "bita"})
    assert [row.delta for row in searched.context["cl"].result_list] == [-3]
    assert staff.get("/admin/stats/playerstats/add/").status_code == 403

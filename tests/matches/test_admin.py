"""The admin of KORT matches (API.md "Leaderboard"): read-only, and a finalized ranked match
cannot be deleted, so its cup changes stand."""

from matches.models import Match
from ranking.models import CupChange
from tests.api_steps import ids_of, match_start


def test_a_finalized_ranked_match_cannot_be_deleted(staff, finalized_ranked):
    r = staff.get(f"/admin/matches/match/{finalized_ranked.pk}/delete/")
    assert r.status_code == 403
    staff.post(
        "/admin/matches/match/",
        {"action": "delete_selected", "_selected_action": [finalized_ranked.pk], "post": "yes"},
    )
    assert Match.objects.filter(pk=finalized_ranked.pk).exists()
    assert CupChange.objects.filter(match=finalized_ranked).count() == 4


def test_an_unfinished_match_can_be_deleted(staff, service, cast):
    match_id = match_start(service, ids_of(cast))
    staff.post(f"/admin/matches/match/{match_id}/delete/", {"post": "yes"})
    assert not Match.objects.filter(pk=match_id).exists()

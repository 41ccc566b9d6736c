"""The admin of score sheets: a sheet with its deals, read-only, for staff allowed to view
sheets (BELOTE_SCORING §5)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from tests.belote.examples import EXAMPLE_2

PROTOCOLS = "/api/v1/belote/protocols/"


def test_staff_who_may_view_sheets_see_a_sheet_with_its_deals(client, service):
    sheet = service.post(PROTOCOLS, {"pairs": {"pair_1": "We", "pair_2": "They"}}).data["id"]
    service.post(f"{PROTOCOLS}{sheet}/deals/", {"playing_pair": "pair_1", **EXAMPLE_2})
    scorer = get_user_model().objects.create_user("scorer", is_staff=True)
    scorer.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="belote",
            codename__in=["view_beloteprotocol", "view_belotedeal"],
        )
    )
    client.force_login(scorer)

    r = client.get(f"/admin/belote/beloteprotocol/{sheet}/change/")

    assert r.status_code == 200
    [deals] = r.context["inline_admin_formsets"]
    assert [form.original.number for form in deals] == [1]
    assert not deals.has_add_permission and not deals.has_delete_permission
    assert client.get("/admin/belote/beloteprotocol/").context["cl"].result_count == 1

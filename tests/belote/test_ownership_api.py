"""Ownership (API.md "Conventions"): a Bazar Belote score sheet belongs to the service key that
opened it; another key adding a deal gets 403 naming the rule, and the sheet is unchanged."""

from rest_framework_api_key.models import APIKey

from belote.models import BeloteDeal
from tests.belote.test_protocols_api import KONTRA_MADE, PROTOCOLS, add_deal, open_sheet


def test_another_key_cannot_add_a_deal(service, api):
    sheet_id = open_sheet(service)
    _, key = APIKey.objects.create_key(name="other-server")

    refused = add_deal(api.as_service(key), sheet_id, "pair_1", KONTRA_MADE)

    assert refused.status_code == 403, refused.data
    assert "only the service key that created score sheet" in refused.data["detail"]
    assert BeloteDeal.objects.count() == 0
    assert add_deal(service, sheet_id, "pair_1", KONTRA_MADE).status_code == 201
    assert api.as_service(key).get(f"{PROTOCOLS}{sheet_id}/").status_code == 200

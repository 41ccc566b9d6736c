"""POST /api/v1/kort/bavan-guaranteed/ (KORT_RULES §6): answers, and 400s naming field and rule."""

import pytest

URL = "/api/v1/kort/bavan-guaranteed/"

# Free to lead AS, seat 0 drops KS (its holder must follow), then AD stands; barred after a
# Trop, it must lead AD first, and an opponent holding KS 5H ruffs it (KORT_RULES §3).
POSITION = {
    "hands": {"0": ["AS", "AD"], "2": ["2H", "3H"]},
    "unknown": ["KS", "5H", "QD", "JD"],
    "trump_suit": "S",
    "leader": 0,
    "trop_bar": False,
}


def ask(api, **change):
    return api.post(URL, {**POSITION, **change})


def test_guaranteed_with_its_first_card(api):
    answer = ask(api)
    assert answer.status_code == 200
    assert answer.json() == {"guaranteed": True, "first_card": "AS"}


def test_not_guaranteed_under_the_trump_lead_bar(api):
    answer = ask(api, trop_bar=True)
    assert answer.status_code == 200
    assert answer.json() == {"guaranteed": False, "first_card": None}


def test_shown_voids_count(api):
    # Seat 1 is out of hearts, seat 3 out of spades: each holds a diamond and follows AD.
    answer = ask(api, trop_bar=True, voids={"1": ["H"], "3": ["S"]})
    assert answer.json() == {"guaranteed": True, "first_card": "AD"}


def test_trop_bar_and_voids_are_optional(api):
    body = {key: value for key, value in POSITION.items() if key != "trop_bar"}
    assert api.post(URL, body).json()["guaranteed"] is True


def test_needs_no_credentials_but_refuses_bad_ones(api):
    # A credential that is not (or no longer) valid gets 401 everywhere (API.md "Conventions").
    assert api.post(URL, POSITION).status_code == 200
    assert api.as_player("not-a-token").post(URL, POSITION).status_code == 401


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        ({"hands": {"0": ["AS", "XD"], "2": ["2H", "3H"]}}, "hands", "not a card"),
        ({"hands": {"0": ["AS", "AS"], "2": ["2H", "3H"]}}, "hands", "listed twice"),
        ({"hands": {"0": ["AS", "AD"], "5": ["2H", "3H"]}}, "hands", "not a seat"),
        ({"hands": {"0": ["AS", "AD"], "1": ["2H", "3H"]}}, "hands", "two partners"),
        ({"hands": {"0": ["AS", "AD"], "2": ["2H"]}}, "hands", "as many cards"),
        ({"hands": {"0": ["AS", "AD"], "2": ["2H", "AD"]}}, "hands", "both team hands"),
        ({"hands": ["AS"]}, "hands", None),
        ({"unknown": ["KS", "5H", "QD", "AS"]}, "unknown", "also in a team hand"),
        ({"unknown": ["KS", "5H", "QD"]}, "unknown", "4 unknown cards"),
        ({"unknown": ["KS", "5H", "QD", "QD"]}, "unknown", "listed twice"),
        ({"unknown": "KS"}, "unknown", None),
        ({"trump_suit": "X"}, "trump_suit", "not a suit"),
        ({"trump_suit": None}, "trump_suit", None),
        ({"leader": 1}, "leader", "team's seats"),
        ({"leader": "first"}, "leader", None),
        ({"trop_bar": "maybe"}, "trop_bar", None),
        ({"voids": {"0": ["H"]}}, "voids", "opponents' seats"),
        ({"voids": {"1": ["Q"]}}, "voids", "not a suit"),
        ({"voids": {"1": ["D"], "3": ["D"]}}, "voids", "no split"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(api, change, field, rule):
    answer = ask(api, **change)
    assert answer.status_code == 400
    errors = answer.json()
    assert list(errors) == [field]
    if rule:
        assert rule in str(errors[field])


def test_missing_fields_are_named(api):
    answer = api.post(URL, {})
    assert answer.status_code == 400
    assert set(answer.json()) == {"hands", "unknown", "trump_suit", "leader"}


def test_the_schema_still_generates(api):
    answer = api.get("/api/schema/")
    assert answer.status_code == 200
    assert b"/api/v1/kort/bavan-guaranteed/" in answer.content

"""POST /api/v1/belote/score/ (API.md "Bazar Belote"): BELOTE_SCORING §6 through the API, the
cards form, the took-tricks flags, and every kind of bad input as a 400 naming the field."""

import pytest

from tests.belote.examples import (
    EXAMPLE_1,
    EXAMPLE_1_SCORE,
    EXAMPLE_2,
    EXAMPLE_2_SCORE,
    EXAMPLE_2_TRICKS,
    EXAMPLE_2_WITHOUT_WHISTS,
    EXAMPLE_3,
    EXAMPLE_3_SCORE,
)

SCORE = "/api/v1/belote/score/"

# Kapo in hearts, K = 1, in which the whisting pair takes one trick worth 0 whists (7S 8S 7D 8D,
# none of them trumps) and the playing pair the other seven, 162 whists.
KAPO_BROKEN_BY_A_ZERO_TRICK = [
    {"cards": ["7S", "8S", "7D", "8D"], "taken_by": "whisting"},
    {"cards": ["JH", "9H", "AH", "10H"], "taken_by": "playing"},
    {"cards": ["KH", "QH", "8H", "7H"], "taken_by": "playing"},
    {"cards": ["AS", "10S", "KS", "QS"], "taken_by": "playing"},
    {"cards": ["JS", "9S", "AD", "10D"], "taken_by": "playing"},
    {"cards": ["KD", "QD", "JD", "9D"], "taken_by": "playing"},
    {"cards": ["JC", "9C", "AC", "10C"], "taken_by": "playing"},
    {"cards": ["KC", "QC", "8C", "7C"], "taken_by": "playing"},
]
KAPO_IN_HEARTS = {"contract": "kapo", "suit": "H", "number": 1}
# C = 25, PC = C + K = 26, Pp = C + VCp / 10 = 25, Pv = VCv / 10 = 0 (§2, §4).
KAPO_BREAKDOWN = {"C": 25, "PC": 26, "Pp": 25, "Pv": 0, "Vp": 162, "Vv": 0}


@pytest.mark.parametrize(
    ("body", "expected"),
    [(EXAMPLE_1, EXAMPLE_1_SCORE), (EXAMPLE_2, EXAMPLE_2_SCORE), (EXAMPLE_3, EXAMPLE_3_SCORE)],
    ids=["22-all-trumps", "12-clubs", "15-spades-kontra"],
)
def test_worked_examples_of_section_6(api, body, expected):
    r = api.post(SCORE, body)
    assert r.status_code == 200, r.data
    assert r.json() == expected


def test_the_scorer_needs_no_credentials_but_refuses_bad_ones(api):
    # A key that is not (or no longer) valid gets 401 everywhere (API.md "Conventions").
    r = api.post(SCORE, EXAMPLE_2)
    assert r.status_code == 200, r.data
    assert r.json() == EXAMPLE_2_SCORE
    assert api.as_service("not-a-key").post(SCORE, EXAMPLE_2).status_code == 401


def test_flags_may_be_left_out_for_pairs_with_trick_whists(api):
    body = {k: v for k, v in EXAMPLE_2.items() if not k.endswith("_took_tricks")}
    r = api.post(SCORE, body)
    assert r.json() == EXAMPLE_2_SCORE


def test_kontra_and_constructions_default_to_none(api):
    # 8 hearts, 100 / 62 whists: C = 16, PC = 8; Pv = round10(62) div 10 = 6,
    # Pp = (162 - 60) div 10 = 10; 100 >= 80 played: playing 8 + 10 = 18, whisting 6.
    body = {"contract": "suit", "suit": "H", "number": 8}
    r = api.post(SCORE, {**body, "tricks_whists": {"playing": 100, "whisting": 62}})
    assert r.json() == {
        "played": True,
        "points": {"playing": 18, "whisting": 6},
        "bait": None,
        "breakdown": {"C": 16, "PC": 8, "Pp": 10, "Pv": 6, "Vp": 100, "Vv": 62},
    }


def test_example_2_from_the_cards(api):
    r = api.post(SCORE, {**EXAMPLE_2_WITHOUT_WHISTS, "tricks": EXAMPLE_2_TRICKS})
    assert r.status_code == 200, r.data
    assert r.json() == EXAMPLE_2_SCORE


def test_a_trick_worth_nothing_breaks_a_kapo_from_the_cards(api):
    r = api.post(SCORE, {**KAPO_IN_HEARTS, "tricks": KAPO_BROKEN_BY_A_ZERO_TRICK})
    # Not played (§3): the whisting pair gets PC + Pp + Pv = 26 + 25 + 0 = 51.
    assert r.json() == {
        "played": False,
        "points": {"playing": 0, "whisting": 51},
        "bait": "playing",
        "breakdown": KAPO_BREAKDOWN,
    }


def test_a_made_kapo_from_the_whists(api):
    r = api.post(
        SCORE,
        {
            **KAPO_IN_HEARTS,
            "tricks_whists": {"playing": 162, "whisting": 0},
            "whisting_took_tricks": False,
        },
    )
    # Played: the playing pair gets PC + Pp = 26 + 25 = 51.
    assert r.json() == {
        "played": True,
        "points": {"playing": 51, "whisting": 0},
        "bait": None,
        "breakdown": KAPO_BREAKDOWN,
    }


def test_a_kapo_from_hand_in_all_trumps_counts_the_258_deck(api):
    body = {"contract": "kapo_from_hand", "suit": "AT", "number": 1}
    r = api.post(
        SCORE,
        {**body, "tricks_whists": {"playing": 258, "whisting": 0}, "whisting_took_tricks": False},
    )
    # C = 50, PC = C + K = 51, Pp = C = 50, Pv = 0; played: the playing pair gets 51 + 50.
    assert r.json() == {
        "played": True,
        "points": {"playing": 101, "whisting": 0},
        "bait": None,
        "breakdown": {"C": 50, "PC": 51, "Pp": 50, "Pv": 0, "Vp": 258, "Vv": 0},
    }


ALL_TRUMPS_22 = {"contract": "all_trumps", "number": 22}
KAPO_NO_FLAG = {**KAPO_IN_HEARTS, "tricks_whists": {"playing": 162, "whisting": 0}}


def with_whists(playing, whisting, deal=EXAMPLE_2):
    return {**deal, "tricks_whists": {"playing": playing, "whisting": whisting}}


BAD_DEALS = {
    # id: (body, field, words of the message)
    "whists-not-162": (with_whists(144, 17), "tricks_whists", "add up to 162"),
    "whists-not-258": (with_whists(221, 36, ALL_TRUMPS_22), "tricks_whists", "add up to 258"),
    "negative-whists": (with_whists(170, -8), "tricks_whists", "at least 0"),
    "construction-not-in-tens": (
        {**EXAMPLE_2, "constructions": {"playing": 25, "whisting": 0}},
        "constructions",
        "multiple of 10",
    ),
    "unknown-contract": ({**EXAMPLE_2, "contract": "solo"}, "contract", "not a valid choice"),
    "missing-contract": (
        {k: v for k, v in EXAMPLE_2.items() if k != "contract"},
        "contract",
        "required",
    ),
    "missing-suit": (
        {k: v for k, v in EXAMPLE_2.items() if k != "suit"},
        "suit",
        "suit must be one of S, H, D, C",
    ),
    "unknown-suit": ({**EXAMPLE_2, "suit": "X"}, "suit", "not a valid choice"),
    "suit-in-all-trumps": ({**EXAMPLE_1, "suit": "H"}, "suit", "must be absent"),
    "all-trumps-for-a-suit-contract": ({**EXAMPLE_2, "suit": "AT"}, "suit", "one of S, H, D, C"),
    "missing-number": (
        {k: v for k, v in EXAMPLE_2.items() if k != "number"},
        "number",
        "required",
    ),
    "number-zero": ({**EXAMPLE_2, "number": 0}, "number", "between 1 and 100"),
    "number-101": ({**EXAMPLE_2, "number": 101}, "number", "between 1 and 100"),
    "huge-number": ({**EXAMPLE_2, "number": 2**70}, "number", "between 1 and 100"),
    "huge-construction": (
        {**EXAMPLE_2, "constructions": {"playing": 10**30, "whisting": 0}},
        "constructions",
        "between 0 and 1000",
    ),
    "kontra-3": ({**EXAMPLE_2, "kontra": 3}, "kontra", "between 0 and 2"),
    "kontra-negative": ({**EXAMPLE_2, "kontra": -1}, "kontra", "between 0 and 2"),
    "no-trick-but-whists": (
        {**EXAMPLE_2, "playing_took_tricks": False},
        "playing_took_tricks",
        "took no trick has 0 trick whists",
    ),
    "kapo-flag-missing": (KAPO_NO_FLAG, "whisting_took_tricks", "required when the whisting"),
    "missing-whists": (
        EXAMPLE_2_WITHOUT_WHISTS,
        "tricks_whists",
        "required unless tricks are given",
    ),
    "number-text": ({**EXAMPLE_2, "number": "x"}, "number", "valid integer"),
    "number-null": ({**EXAMPLE_2, "number": None}, "number", "may not be null"),
    "number-list": ({**EXAMPLE_2, "number": [12]}, "number", "valid integer"),
    "number-fraction": ({**EXAMPLE_2, "number": 12.5}, "number", "valid integer"),
    "kontra-null": ({**EXAMPLE_2, "kontra": None}, "kontra", "may not be null"),
    "contract-null": ({**EXAMPLE_2, "contract": None}, "contract", "may not be null"),
    "suit-list": ({**EXAMPLE_2, "suit": ["C"]}, "suit", "not a valid choice"),
    "whists-list": ({**EXAMPLE_2, "tricks_whists": [144, 18]}, "tricks_whists", "dictionary"),
    "whists-null": ({**EXAMPLE_2, "tricks_whists": None}, "tricks_whists", "may not be null"),
    "whist-text": (with_whists("x", 18), "tricks_whists", "valid integer"),
    "constructions-null": ({**EXAMPLE_2, "constructions": None}, "constructions", "not be null"),
    "flag-text": ({**EXAMPLE_2, "playing_took_tricks": "x"}, "playing_took_tricks", "boolean"),
    "flag-null": ({**EXAMPLE_2, "whisting_took_tricks": None}, "whisting_took_tricks", "null"),
    "seven-tricks": (
        {**EXAMPLE_2_WITHOUT_WHISTS, "tricks": EXAMPLE_2_TRICKS[:7]},
        "tricks",
        "a deal has 8 tricks; got 7",
    ),
    "card-twice": (
        {**EXAMPLE_2_WITHOUT_WHISTS, "tricks": [*EXAMPLE_2_TRICKS[:7], EXAMPLE_2_TRICKS[0]]},
        "tricks",
        "already played in trick 1",
    ),
    "not-a-card": (
        {
            **EXAMPLE_2_WITHOUT_WHISTS,
            "tricks": [{"cards": ["11H", "KH", "QH", "7D"], "taken_by": "whisting"}] * 8,
        },
        "tricks",
        "'11H' is not a card",
    ),
    "unknown-taker": (
        {
            **EXAMPLE_2_WITHOUT_WHISTS,
            "tricks": [{"cards": ["AH", "KH", "QH", "7D"], "taken_by": "them"}],
        },
        "tricks",
        "not a valid choice",
    ),
    "tricks-text": ({**EXAMPLE_2_WITHOUT_WHISTS, "tricks": "x"}, "tricks", "list"),
    "tricks-and-whists": (
        {**EXAMPLE_2, "tricks": EXAMPLE_2_TRICKS},
        "tricks",
        "give either tricks or tricks_whists, playing_took_tricks, whisting_took_tricks",
    ),
}


@pytest.mark.parametrize(("body", "field", "words"), BAD_DEALS.values(), ids=BAD_DEALS.keys())
def test_bad_input_is_a_400_naming_the_field_and_the_rule(api, body, field, words):
    r = api.post(SCORE, body)
    assert r.status_code == 400, r.data
    assert list(r.data) == [field]
    assert words in str(r.data[field])


def test_a_body_that_is_not_an_object_is_a_400(api):
    r = api.post(SCORE, [EXAMPLE_2])
    assert r.status_code == 400
    assert "Expected a dictionary" in str(r.data["non_field_errors"])


def test_the_openapi_schema_is_served_with_the_belote_paths(api):
    r = api.get("/api/schema/")
    assert r.status_code == 200
    paths = r.content.decode()
    for path in (SCORE, "/api/v1/belote/protocols/", "/api/v1/belote/protocols/{id}/deals/"):
        assert path in paths

"""Round reports with the full record, ``"play"`` (API.md "Matches"; KORT_RULES §1-§5).

The server replays the record and derives the tricks, outcome and decision itself; a summary field
that disagrees, an illegal card or a malformed record is a 400 that writes nothing. Expected
outcomes and cups are worked out by hand from the rules.
"""

import copy

import pytest

from tests.api_steps import (
    MATCHES,
    ids_of,
    match_read,
    match_start,
    round_body,
    rounds_report,
    stored_counts,
    team_cups,
    vote,
)
from tests.matches.kort import golden_rounds as golden
from tests.matches.play_records import bot_record, played

# A ranked match to 3, first caller seat 0, as (caller, tricks A, tricks B). Callers follow §5:
#   1. seat 0 calls, B (defenders) win 3:7      -> B 1, next caller seat 1 (defenders won)
#   2. seat 1 calls, A (defenders) win 7:4      -> A 1, next seat 2
#   3. seat 2 calls, A (trump team) win 7:5     -> A 2, next seat 2 (the same caller)
#   4. seat 2 calls, B reach 7:0, both vote Bavan, A take a trick at 1:8: bavan_failed, A +5
#      (the defenders' failed Bavan: the same caller would call again)
# A ends 7:1. Cups (§7), A: -1 +1 +1 +5 +2 = +8; B: +1 -1 -1 -5 = -6 (B have a win: no +3).
PLAN = [(0, 3, 7), (1, 7, 4), (2, 7, 5), (2, 1, 8)]
B_VOTES = [vote(1, "bavan", 900), vote(3, "bavan", 2100)]
PLAN_OUTCOMES = ["win", "win", "win", "bavan_failed"]


def plan_summaries() -> list[dict]:
    *plain, (caller, a, b) = PLAN
    return [round_body(*row) for row in plain] + [round_body(caller, a, b, "go")]


def plan_records() -> list[dict]:
    *plain, (caller, a, b) = PLAN
    rounds = [played(row[0], bot_record(*row)) for row in plain]
    return [*rounds, played(caller, bot_record(caller, a, b), bavan_votes=B_VOTES)]


def finalized(api, match_id) -> dict:
    match = match_read(api, match_id)
    assert match["status"] == "finalized"
    return match


def test_a_match_of_records_scores_like_the_same_match_of_summaries(service, api, cast):
    seats = ids_of(cast)
    summary_id = match_start(service, seats)
    rounds_report(service, summary_id, plan_summaries())
    record_id = match_start(service, seats)
    answers = rounds_report(service, record_id, plan_records())

    assert [a["outcome"] for a in answers] == PLAN_OUTCOMES
    assert [a["next_trump_seat"] for a in answers] == [1, 2, 2, 2]
    by_records, by_summaries = finalized(api, record_id), finalized(api, summary_id)
    assert by_records["cups"] == by_summaries["cups"] == team_cups(seats, 8, -6)
    assert by_records["wins"] == by_summaries["wins"] == {"A": 7, "B": 1}
    assert [r["tricks"] for r in by_records["rounds"]] == [{"A": a, "B": b} for _, a, b in PLAN]
    assert by_records["rounds"][3]["bavan"] == "go"


def test_a_whole_match_of_records_in_one_request(service, api, cast):
    seats = ids_of(cast)
    body = {"mode": "ranked", "seats": seats, "first_trump_seat": 0, "rounds": plan_records()}
    response = service.post(MATCHES, body)

    assert response.status_code == 201, response.data
    match = finalized(api, response.data["id"])
    assert [r["outcome"] for r in match["rounds"]] == PLAN_OUTCOMES
    assert match["cups"] == team_cups(seats, 8, -6)


# --- stored records (GET) ----------------------------------------------------------------------


def test_get_returns_the_stored_record_in_canonical_form(service, api, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    without_declarations = {k: v for k, v in golden.WIN.items() if k != "declarations"}
    rounds_report(service, match_id, [played(0, without_declarations), round_body(0, 7, 2)])

    first, second = match_read(api, match_id)["rounds"]
    assert first["play"] == {**without_declarations, "declarations": []}
    assert (first["tricks"], first["outcome"], first["winner"]) == ({"A": 7, "B": 3}, "win", "A")
    assert second["play"] is None


def test_a_record_with_its_summary_that_agrees_is_accepted(service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    (answer,) = rounds_report(service, match_id, [{**round_body(0, 7, 3), "play": golden.WIN}])
    assert (answer["outcome"], answer["winner"], answer["wins_awarded"]) == ("win", "A", 1)


# --- records and the Bavan decision (§3, §4) ---------------------------------------------------


@pytest.mark.parametrize(
    ("record", "extra", "outcome", "wins", "bavan"),
    [
        # seat 0 calls; A stops at 7:0 by a vote: Kort, A +5
        pytest.param(golden.KORT, {"bavan_votes": [vote(2, "stop", 800)]}, "kort", 5, "stop"),
        pytest.param(golden.KORT, {"bavan": "stop"}, "kort", 5, "stop", id="kort-stop-given"),
        # A vote both Bavan and play on to 13:0: +10
        pytest.param(
            golden.BAVAN,
            {"bavan_votes": [vote(0, "bavan", 1000), vote(2, "bavan", 2000)]},
            "bavan",
            10,
            "go",
            id="bavan-voted",
        ),
        # a completed Trop, then Bavan under the trump-lead bar (§3) to 13:0
        pytest.param(golden.TROP, {"bavan": "go"}, "bavan", 10, "go", id="trop-then-bavan"),
        # play past 7:0 with no decision given is a go; the Bavan fails at 7:1: B +5
        pytest.param(golden.FAILED, {}, "bavan_failed", 5, "go", id="failed-implied-go"),
    ],
)
def test_records_with_a_decision(service, api, cast, record, extra, outcome, wins, bavan):
    match_id = match_start(service, ids_of(cast), mode="room")
    (answer,) = rounds_report(service, match_id, [played(0, record, **extra)])

    assert (answer["outcome"], answer["wins_awarded"]) == (outcome, wins)
    (stored,) = match_read(api, match_id)["rounds"]
    assert stored["bavan"] == bavan
    assert stored["bavan_votes"] == extra.get("bavan_votes", [])


def test_a_record_stopping_at_7_0_opens_a_live_vote(service, api, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    response = service.post(f"{MATCHES}{match_id}/rounds/", played(0, golden.KORT, bavan="vote"))

    assert response.status_code == 201, response.data
    assert (response.data["status"], response.data["vote"]["team"]) == ("voting", "A")
    (stored,) = match_read(api, match_id)["rounds"]
    assert (stored["tricks"], stored["play"]) == ({"A": 7, "B": 0}, golden.KORT)


# --- rejections --------------------------------------------------------------------------------


def edited_win(edit) -> dict:
    record = copy.deepcopy(golden.WIN)
    edit(record)
    return record


def revoke(record):
    record["tricks"][0][1] = "7S"  # seat 1 holds hearts: AH was the card to follow with


def dealt_twice(record):
    record["hands"][1][0] = "AS"  # seat 0 holds AS too


def one_trick_more(record):
    record["tricks"].append(["7H", "8H", "QD", "QC"])


def stops_early(record):
    del record["tricks"][-1]


REJECTED = [
    pytest.param(
        played(0, edited_win(revoke)),
        "play.tricks",
        "trick 1: seat 1 played 7S holding a heart after a heart lead",
        id="illegal-card",
    ),
    pytest.param(
        {**round_body(0, 7, 2), "play": golden.WIN},
        "tricks",
        "the record gives 7:3 (A:B) but the report says 7:2",
        id="tricks-disagree",
    ),
    pytest.param(
        played(0, golden.WIN, bavan="stop"), "bavan", "with no 7:0", id="decision-without-7-0"
    ),
    pytest.param(
        played(0, golden.BAVAN, bavan="stop"),
        "bavan",
        "the decision is stop, but the record goes on after 7:0 to 13:0 (A:B)",
        id="stop-but-played-on",
    ),
    pytest.param(
        played(0, golden.KORT, bavan="go"),
        "bavan",
        "the decision is go, but the record stops at 7:0 (A:B)",
        id="go-but-stopped",
    ),
    pytest.param(
        played(0, golden.KORT, bavan_votes=[vote(0, "bavan", 10), vote(2, "bavan", 20)]),
        "bavan_votes",
        "the decision is go, but the record stops at 7:0",
        id="votes-go-but-stopped",
    ),
    pytest.param(
        played(0, golden.BAVAN, bavan_votes=[vote(2, "stop", 10)]),
        "bavan_votes",
        "the decision is stop, but the record goes on after 7:0",
        id="votes-stop-but-played-on",
    ),
    pytest.param(
        played(0, golden.BAVAN, bavan="go", bavan_votes=[vote(2, "stop", 10)]),
        "bavan",
        "the votes resolve to 'stop'",
        id="bavan-disagrees-with-votes",
    ),
    pytest.param(
        played(0, golden.KORT),
        "bavan",
        "a 7:0 needs the Bavan decision first",
        id="7-0-without-decision",
    ),
    pytest.param(
        played(0, golden.BAVAN, bavan="vote"),
        "bavan",
        "a live Bavan vote opens only at 7:0 (KORT_RULES §4); got 13:0",
        id="live-vote-after-7-0",
    ),
    pytest.param(
        played(0, edited_win(dealt_twice)),
        "play.hands",
        "AS is dealt twice, to seat 0 and seat 1",
        id="bad-deal",
    ),
    pytest.param(
        played(0, edited_win(one_trick_more)),
        "play.tricks",
        "trick 11: the round ended at 7:3 (A:B) after trick 10; no further trick is played",
        id="trick-after-the-end",
    ),
    pytest.param(
        played(0, edited_win(stops_early)),
        "play.tricks",
        "the record stops after trick 9 at 6:3 (A:B), before the end",
        id="stops-early",
    ),
    pytest.param(played(0, "AS KS"), "play", "the record must be an object", id="not-a-record"),
    pytest.param(
        played(0, {"hands": golden.WIN_HANDS, "tricks": []}),
        "play.trump_suit",
        "trump_suit is required",
        id="no-trump-suit",
    ),
]


@pytest.mark.parametrize(("body", "field", "phrase"), REJECTED)
def test_a_bad_record_is_rejected_naming_the_field(service, cast, body, field, phrase):
    match_id = match_start(service, ids_of(cast), mode="room")
    counts = stored_counts()
    response = service.post(f"{MATCHES}{match_id}/rounds/", body)

    assert response.status_code == 400, response.data
    assert phrase in str(response.data[field]), response.data
    assert stored_counts() == counts


def test_a_bad_record_in_a_whole_match_names_its_round_and_creates_nothing(service, cast):
    counts = stored_counts()
    rounds = [played(0, golden.WIN), played(0, edited_win(revoke))]
    response = service.post(MATCHES, {"mode": "room", "seats": ids_of(cast), "rounds": rounds})

    assert response.status_code == 400, response.data
    assert "seat 1 played 7S holding a heart" in str(response.data["rounds[1].play.tricks"])
    assert stored_counts() == counts


def test_a_report_needs_tricks_or_a_record(service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    response = service.post(f"{MATCHES}{match_id}/rounds/", {"trump_seat": 0, "play": None})

    assert response.status_code == 400
    assert "unless the round's full record (play) is given" in str(response.data["tricks"])


# --- resends (API.md "number") -----------------------------------------------------------------


@pytest.fixture
def with_record(service, cast):
    """A room match whose round 1 was reported with its record (golden.WIN, A 7:3)."""
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, match_id, [played(0, golden.WIN)])
    return match_id


def test_resending_a_round_with_its_record_returns_it(service, with_record):
    counts = stored_counts()
    response = service.post(
        f"{MATCHES}{with_record}/rounds/", {"number": 1, **played(0, golden.WIN)}
    )
    assert response.status_code == 200, response.data
    assert stored_counts() == counts


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(round_body(0, 7, 3), id="same-summary-without-record"),
        pytest.param(played(0, golden.FAILED), id="another-record"),
    ],
)
def test_resending_with_another_record_is_a_conflict(service, with_record, body):
    counts = stored_counts()
    response = service.post(f"{MATCHES}{with_record}/rounds/", {"number": 1, **body})
    assert response.status_code == 409, response.data
    assert stored_counts() == counts


# --- matches that require records --------------------------------------------------------------

REQUIRED = "this match requires the full record of every round (play)"


def test_a_summary_round_on_a_match_requiring_records_is_rejected(service, api, cast):
    match_id = match_start(service, ids_of(cast), require_play=True)
    counts = stored_counts()
    response = service.post(f"{MATCHES}{match_id}/rounds/", round_body(0, 7, 3))

    assert response.status_code == 400
    assert response.data["play"] == [REQUIRED]
    assert stored_counts() == counts
    rounds_report(service, match_id, [played(0, golden.WIN)])
    assert match_read(api, match_id)["require_play"] is True


def test_a_whole_match_of_summaries_requiring_records_creates_nothing(service, cast):
    counts = stored_counts()
    body = {"mode": "room", "seats": ids_of(cast), "require_play": True}
    response = service.post(MATCHES, {**body, "rounds": [round_body(0, 7, 3)]})

    assert response.status_code == 400
    assert response.data["rounds[0].play"] == [REQUIRED]
    assert stored_counts() == counts


@pytest.mark.parametrize(
    ("setting", "mode", "given", "required"),
    [
        (False, "ranked", None, False),
        (True, "ranked", None, True),
        (True, "room", None, False),
        (True, "ranked", False, False),
        (False, "room", True, True),
    ],
)
def test_require_play_defaults_to_the_site_setting_for_ranked_matches(
    service, api, cast, settings, setting, mode, given, required
):
    settings.KORT_RANKED_REQUIRE_PLAY = setting
    extra = {} if given is None else {"require_play": given}
    match_id = match_start(service, ids_of(cast), mode=mode, **extra)
    assert match_read(api, match_id)["require_play"] is required

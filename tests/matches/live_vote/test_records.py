"""A live vote opened with the record of the first 7 tricks (API.md "Live Bavan vote"): the 7:0
team's hands are shown from that record (KORT_RULES §4), and the round may be finished with its
complete record, which must continue the opening one (§3)."""

from functools import cache

import pytest

from matches.kort.bots import play_round
from matches.kort.cards import parse_card
from matches.kort.replay import replay_record
from matches.kort.rules import BavanDecision
from matches.models import Round
from tests.matches.live_vote.conftest import at

SEEDS = range(20_000)


@cache
def bavan_records(count: int = 2) -> list[dict]:
    """Seeded bot rounds called by seat 0 in which team A went 7:0 and played on (a Bavan)."""
    found = []
    for seed in SEEDS:
        record = play_round(seed, 0, BavanDecision.GO)
        replay = replay_record(record, 0)
        if replay.bavan is BavanDecision.GO and replay.tricks[0] >= 7:
            found.append(record)
            if len(found) == count:
                return found
    raise AssertionError("no seeded bot round reaches a Bavan of team A")


def first_seven(record: dict) -> dict:
    """The record as it stood at the 7:0, when the vote opened."""
    return {
        **record,
        "tricks": record["tricks"][:7],
        "declarations": [d for d in record["declarations"] if d["before_trick"] <= 7],
    }


def unplayed(record: dict, seat: int) -> list[str]:
    """The cards of ``seat`` not played in ``record``, lowest first as the API lists them."""
    played = {card for trick in record["tricks"] for card in trick}
    left = [card for card in record["hands"][seat] if card not in played]
    return sorted(left, key=parse_card)


@pytest.fixture
def opened(table, clock):
    """A vote opened at T0 with the first 7 tricks of a Bavan record of team A."""
    complete = bavan_records()[0]
    table.open_vote(0, play=first_seven(complete))
    return table, complete


def test_the_7_0_team_hands_are_shown_from_the_record(opened, clock):
    table, complete = opened
    opening = first_seven(complete)

    shown = table.state()["revealed_hands"]

    assert shown == {"0": unplayed(opening, 0), "2": unplayed(opening, 2)}
    assert all(len(cards) == 6 for cards in shown.values())


def test_the_hands_hide_15_s_after_the_start_once_decided(opened, clock):
    table, _ = opened
    clock.move_to(at(1))
    table.vote(0, "bavan")
    table.vote(2, "bavan")

    clock.move_to(at(15))
    assert table.state()["revealed_hands"] is not None
    clock.move_to(at(15.001))
    assert table.state()["revealed_hands"] is None


def test_a_bavan_finished_with_its_complete_record(opened, clock):
    table, complete = opened
    table.vote(0, "bavan")
    table.vote(2, "bavan")
    a, b = replay_record(complete, 0).tricks

    finished = table.service.post(f"{table.url}rounds/1/finish/", {"play": complete})

    assert finished.status_code == 201, finished.data
    assert finished.data["outcome"] == ("bavan" if (a, b) == (13, 0) else "bavan_failed")
    stored = Round.objects.get(match_id=table.match_id, number=1)
    assert (stored.tricks_a, stored.tricks_b) == (a, b)
    assert stored.play is not None
    assert stored.play["tricks"] == complete["tricks"]


def test_a_complete_record_of_another_deal_is_refused(opened, clock):
    table, _ = opened
    table.vote(0, "bavan")
    table.vote(2, "bavan")
    other = bavan_records()[1]

    refused = table.service.post(f"{table.url}rounds/1/finish/", {"play": other})

    assert refused.status_code == 400, refused.data
    assert "continue the record" in str(refused.data["play"])
    assert Round.objects.get(match_id=table.match_id, number=1).status == "bavan"


def test_tricks_that_disagree_with_the_complete_record_are_refused(opened, clock):
    table, complete = opened
    table.vote(0, "bavan")
    table.vote(2, "bavan")
    a, b = replay_record(complete, 0).tricks
    wrong = {"A": 13, "B": 0} if (a, b) != (13, 0) else {"A": 9, "B": 1}

    refused = table.service.post(
        f"{table.url}rounds/1/finish/", {"play": complete, "tricks": wrong}
    )

    assert refused.status_code == 400, refused.data
    assert "the record gives" in str(refused.data["tricks"])


def test_a_finish_needs_tricks_or_a_record(opened, clock):
    table, _ = opened

    refused = table.service.post(f"{table.url}rounds/1/finish/", {})

    assert refused.status_code == 400, refused.data
    assert "complete record" in str(refused.data["tricks"])


def test_a_round_opened_with_its_record_is_finished_with_the_complete_record(opened, clock):
    table, _ = opened
    table.vote(0, "bavan")
    table.vote(2, "bavan")

    refused = table.finish(13, 0)

    assert refused.status_code == 400, refused.data
    assert "finish it with the complete record" in str(refused.data["play"])
    assert Round.objects.get(match_id=table.match_id, number=1).status == "bavan"


def test_a_refused_round_opened_with_its_record_says_it_is_finished(opened, clock):
    """Refused, it is finished as a Kort (§4): a finish is a 409, with or without a record."""
    table, complete = opened
    clock.move_to(at(31))

    for body in ({"tricks": {"A": 13, "B": 0}}, {"play": complete}):
        refused = table.service.post(f"{table.url}rounds/1/finish/", body)

        assert refused.status_code == 409, (body, refused.data)
        assert "already finished as 'kort'" in str(refused.data["round"])


def test_after_the_finish_the_opening_is_still_a_resend_and_its_hands_still_shown(opened, clock):
    table, complete = opened
    table.vote(0, "bavan")
    table.vote(2, "bavan")
    finished = table.service.post(f"{table.url}rounds/1/finish/", {"play": complete})
    assert finished.status_code == 201, finished.data

    opening = {"number": 1, "trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "vote"}
    resent = table.service.post(f"{table.url}rounds/", {**opening, "play": first_seven(complete)})

    assert resent.status_code == 200, resent.data
    shown = table.state()["revealed_hands"]
    assert shown == {
        "0": unplayed(first_seven(complete), 0),
        "2": unplayed(first_seven(complete), 2),
    }


def test_a_vote_opened_in_summary_form_shows_no_hands_after_a_recorded_finish(table, clock):
    complete = bavan_records()[0]
    table.open_vote(0)
    table.vote(0, "bavan")
    table.vote(2, "bavan")

    finished = table.service.post(f"{table.url}rounds/1/finish/", {"play": complete})

    assert finished.status_code == 201, finished.data
    assert table.state()["revealed_hands"] is None

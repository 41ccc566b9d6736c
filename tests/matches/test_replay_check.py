"""``manage.py replay_check`` (KORT_RULES §1-§4): every stored record replayed again; a round
whose stored tricks, decision or outcome differ from its replay is listed, and the command
exits with 1."""

import copy
import io

import pytest
from django.core.management import CommandError, call_command

from matches.models import Round
from tests.api_steps import ids_of, match_start, round_body, rounds_report
from tests.matches.kort import golden_rounds as golden
from tests.matches.play_records import played


def replay_check() -> str:
    out = io.StringIO()
    call_command("replay_check", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def replay_check_failing() -> str:
    out = io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("replay_check", stdout=out, stderr=io.StringIO())
    assert failed.value.returncode == 1
    return out.getvalue()


@pytest.fixture
def stored(service, cast):
    """A room match: round 1 golden.WIN (A 7:3, caller 0, next caller 0), round 2 golden.KORT
    with stop (Kort, caller 0, next caller 2), round 3 a summary; returns the match id."""
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds = [played(0, golden.WIN), played(0, golden.KORT, bavan="stop"), round_body(2, 7, 1)]
    rounds_report(service, match_id, rounds)
    return match_id


def round_of(match_id, number):
    return Round.objects.filter(match_id=match_id, number=number)


def test_clean_records_report_nothing(stored):
    assert replay_check() == "2 recorded rounds replay as stored\n"


@pytest.mark.parametrize(
    ("number", "change", "line"),
    [
        pytest.param(1, {"tricks_a": 6}, "round 1: tricks: stored 6:3, replay 7:3", id="tricks"),
        pytest.param(
            2, {"outcome": "at_kort"}, "round 2: outcome: stored at_kort, replay kort", id="outcome"
        ),
        pytest.param(
            1,
            {"winner": "B", "wins_awarded": 5},
            "round 1: winner: stored B, replay A; wins_awarded: stored 5, replay 1",
            id="winner-and-wins",
        ),
        pytest.param(2, {"bavan": None}, "round 2: outcome: stored kort, replay None", id="bavan"),
        pytest.param(
            1,
            {"bavan": "go"},
            "round 1: the record does not replay: bavan: a Bavan decision (go) was given",
            id="decision-on-a-win",
        ),
    ],
)
def test_a_corrupted_round_is_reported(stored, number, change, line):
    round_of(stored, number).update(**change)
    out = replay_check_failing()
    assert f"match {stored} {line}" in out
    assert out.count("\n") == 1


def test_a_corrupted_record_is_reported(stored):
    record = copy.deepcopy(golden.WIN)
    record["tricks"][0][1] = "7S"
    round_of(stored, 1).update(play=record)

    out = replay_check_failing()
    assert (
        f"match {stored} round 1: the record does not replay: play.tricks: trick 1: seat 1 "
        "played 7S holding a heart after a heart lead"
    ) in out


def test_every_differing_round_is_listed(stored):
    round_of(stored, 1).update(tricks_b=4)
    round_of(stored, 2).update(wins_awarded=7)
    out = replay_check_failing()
    assert [line.split(":")[0] for line in out.splitlines()] == [
        f"match {stored} round 1",
        f"match {stored} round 2",
    ]


def test_a_round_going_for_bavan_is_checked_once_finished(service, cast):
    """A 7:0 record opened a live vote that went for Bavan: the round awaits its finish and
    has no final tricks yet (KORT_RULES §4)."""
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, match_id, [played(0, golden.KORT, bavan="vote")])
    round_of(match_id, 1).update(status="bavan", bavan="go")

    assert replay_check() == "0 recorded rounds replay as stored\n"

"""The sweeper does a live vote's timed work whose task was lost (API.md "Nothing is lost";
KORT_RULES §4): it resolves an open vote past its deadline and casts the bot votes that are due,
without anyone reading the vote. On the embedded default the timed tasks run at once, before
their time, and do nothing: for the sweeper they are lost, as on a broker that was down. The
tests read the vote from the database, since reading it through the API settles it too."""

import pytest

from delivery.sweep import sweep
from matches.live_vote import tasks
from matches.live_vote.models import BavanVote, SeatVote
from matches.live_vote.sweeps import SWEEPS
from matches.models import Match, Round
from tests.matches.live_vote.conftest import at

DEADLINE = "live votes past their deadline"
BOTS = "live votes with bot votes due"


@pytest.fixture
def grace(settings) -> int:
    return settings.KORT_SWEEP_GRACE_SECONDS


def test_a_silent_vote_past_its_deadline_is_refused_by_the_sweeper(clock, table, grace):
    table.open_vote(trump_seat=0)
    clock.move_to(at(30 + grace + 1))

    assert sweep(SWEEPS) == {DEADLINE: 1, BOTS: 0}

    vote = BavanVote.objects.get()
    assert (vote.status, vote.resolved_at) == ("refused", at(30))
    round_ = Round.objects.get()
    assert (round_.status, round_.outcome, round_.winner) == ("finished", "kort", "A")
    assert Match.objects.get().wins == {"A": 5, "B": 0}


def test_a_bavan_and_silence_go_when_swept(clock, table, grace):
    table.open_vote(trump_seat=0)
    table.vote(0, "bavan")
    clock.move_to(at(30 + grace + 1))

    sweep(SWEEPS)

    vote = BavanVote.objects.get()
    assert (vote.status, vote.resolved_at) == ("go", at(30))
    assert Round.objects.get().status == "bavan"


def test_a_vote_within_the_grace_past_its_deadline_is_left_to_its_task(clock, table, grace):
    table.open_vote()
    clock.move_to(at(30 + grace - 0.5))

    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 0}
    assert BavanVote.objects.get().status == "open"


def test_the_bot_votes_due_are_cast_by_the_sweeper(clock, seat_table, grace):
    table = seat_table(bots=(2,))
    table.open_vote(trump_seat=0)
    clock.move_to(at(2 + grace + 1))

    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 1}

    # Beside a human partner the bot votes bavan (§4), stamped when the sweeper cast it.
    [bot] = SeatVote.objects.all()
    assert (bot.seat, bot.choice, bot.by_bot, bot.at) == (2, "bavan", True, at(2 + grace + 1))
    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 0}


def test_a_player_who_left_owes_a_bot_vote_and_one_who_voted_does_not(clock, table, grace):
    table.open_vote(trump_seat=0)
    table.vote(0, "bavan")
    table.leave(0)
    clock.move_to(at(2 + grace + 1))
    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 0}

    table.leave(2)  # its bot vote task ran at once, in-process: it is cast already
    assert SeatVote.objects.filter(seat=2, by_bot=True).exists()
    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 0}


def test_a_bot_among_the_opponents_owes_no_vote(clock, seat_table, grace):
    table = seat_table(bots=(1, 3))
    table.open_vote(trump_seat=0)
    clock.move_to(at(2 + grace + 1))

    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 0}


def test_swept_duplicates_of_the_timed_tasks_change_nothing(clock, seat_table, grace, run_task):
    table = seat_table(bots=(2,))
    table.open_vote(trump_seat=0)
    clock.move_to(at(30 + grace + 1))
    sweep(SWEEPS)
    resolved = BavanVote.objects.values().get()
    votes = list(SeatVote.objects.values())

    assert sweep(SWEEPS) == {DEADLINE: 0, BOTS: 0}
    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is False
    assert run_task(tasks.cast_bot_votes, table.vote_id()) == 0

    assert BavanVote.objects.values().get() == resolved
    assert list(SeatVote.objects.values()) == votes

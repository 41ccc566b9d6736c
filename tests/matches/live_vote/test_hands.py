"""Which hands everyone sees during a vote (KORT_RULES §4): the 7:0 team's, from the start until
at least 15 s after it and until the decision if later; the opponents' never."""

import pytest

from matches.live_vote import selectors as votes
from matches.live_vote.models import BavanVote
from tests.matches.live_vote.conftest import T0, at

HANDS = {
    0: ["AS", "KS"],
    1: ["2C", "3C"],
    2: ["QH", "10H"],
    3: ["4D", "5D"],
}


def vote_of(team: str, resolved_after: float | None) -> BavanVote:
    """An unsaved vote of ``team`` opened at T0, resolved ``resolved_after`` s later (or not)."""
    resolved_at = None if resolved_after is None else at(resolved_after)
    status = "open" if resolved_at is None else "go"
    return BavanVote(
        team=team, opened_at=T0, deadline=at(30), status=status, resolved_at=resolved_at
    )


@pytest.mark.parametrize(
    ("resolved_after", "seconds", "shown"),
    [
        (None, -0.001, False),
        (None, 0, True),
        (None, 29, True),
        (5, 5, True),
        (5, 15, True),
        (5, 15.001, False),
        (20, 15.001, True),
        (20, 20, True),
        (20, 20.001, False),
        (30, 30, True),
        (30, 31, False),
    ],
)
def test_the_7_0_teams_hands_are_shown_for_15_s_and_until_the_decision(
    resolved_after, seconds, shown
):
    vote = vote_of("A", resolved_after)

    seen = votes.revealed_hands(vote, HANDS, at(seconds))

    assert seen == ({"0": ["AS", "KS"], "2": ["QH", "10H"]} if shown else None)


def test_the_opponents_hands_are_never_shown():
    seen = votes.revealed_hands(vote_of("B", None), HANDS, at(1))

    assert seen == {"1": ["2C", "3C"], "3": ["4D", "5D"]}


def test_a_round_in_summary_form_shows_no_hands():
    assert votes.revealed_hands(vote_of("A", None), None, at(1)) is None

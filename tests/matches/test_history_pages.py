"""The history's paging rules (``matches.history``), which the API's ``/players/{id}/matches/``
and the player's page share (API.md "Players", "Players' pages"): the page size asked for,
cursors, and matches created at the same moment split across pages."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from django.utils import timezone

from domain.paging import InvalidCursor
from matches.history import Cursor, HistoryMatch, HistoryRound, history_page, page_size
from matches.kort.rules import Team
from matches.models import Match, Seat
from matches.selectors import player_matches
from tests.api_steps import PLAYERS, ids_of, match_play, match_start, round_body


@pytest.mark.parametrize(
    ("given", "size"),
    [(None, 50), ("7", 7), ("100", 100), ("101", 100), ("0", 50), ("-3", 50), ("seven", 50)],
)
def test_the_page_size_asked_for_is_cut_to_100_and_a_bad_one_is_the_default(given, size):
    assert page_size(given) == size


def test_a_cursor_reads_back_as_written():
    cursor = Cursor(datetime(2026, 3, 5, 12, 0, 0, 123456, tzinfo=UTC), 42, newer=True)

    assert Cursor.of(cursor.token()) == cursor


NOT_CURSORS = [
    "not-a-cursor",
    "",
    "eHxub3d8MQ==",  # x|now|1
    "b3wyMDI2LTAzLTA1fHg=",  # o|2026-03-05|x
    "b3wyMDI2LTAzLTA1VDEyOjAwOjAwfDE=",  # o|2026-03-05T12:00:00|1 (no time zone)
    "b3wwMDAxLTAxLTAxVDAwOjAwOjAwKzE0OjAwfDE=",  # o|0001-01-01T00:00:00+14:00|1 (before UTC's 1)
    "b3wyMDI2LTAzLTA1VDEyOjAwOjAwKzAwOjAwfDk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5",  # an id past 64 bits
    "b3wyMDI2LTAzLTA1VDEyOjAwOjAwKzAwOjAwfDA=",  # match id 0
]


@pytest.mark.parametrize("token", NOT_CURSORS)
def test_a_token_that_is_no_cursor_is_refused(token):
    with pytest.raises(InvalidCursor, match="not a cursor of this list"):
        Cursor.of(token)


def test_the_api_answers_an_invalid_cursor_with_a_400_naming_it(api, cast):
    response = api.get(f"{PLAYERS}{cast[0].id}/matches/", {"cursor": "not-a-cursor"})

    assert (response.status_code, response.data) == (
        400,
        {"cursor": list(InvalidCursor().messages)},
    )


def test_matches_of_one_moment_split_across_pages_are_each_shown_once(service, cast):
    """Five matches created at the same moment, pages of two: the order (newest first, then
    the higher id) holds across the pages, both ways."""
    created = [match_start(service, ids_of(cast)) for _ in range(5)]
    moment = timezone.now()
    Match.objects.filter(pk__in=created).update(created_at=moment)
    Seat.objects.filter(match_id__in=created).update(match_created_at=moment)
    history = player_matches(cast[0].id)

    pages = [history_page(history, None, 2)]
    while pages[-1].older is not None:
        pages.append(history_page(history, pages[-1].older, 2))
    back = [pages[-1]]
    while back[-1].newer is not None:
        back.append(history_page(history, back[-1].newer, 2))

    newest_first = sorted(created, reverse=True)
    assert [[m.id for m in page.matches] for page in pages] == [
        newest_first[:2],
        newest_first[2:4],
        newest_first[4:],
    ]
    assert [[m.id for m in page.matches] for page in back] == [
        [m.id for m in page.matches] for page in pages[::-1]
    ]
    assert (pages[0].newer, back[-1].newer) == (None, None)


def test_a_page_holds_plain_values_and_the_rounds_only_when_asked(service, cast):
    """The API and the player's page render the same values, never the ORM's models."""
    match_id = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    history = player_matches(cast[1].id)

    (match,) = history_page(history, None, 50).matches
    (read,) = history_page(history, None, 50, rounds=True).matches

    assert type(match) is HistoryMatch
    assert (match.id, match.seats, match.history_seat, match.rounds) == (
        match_id,
        tuple(ids_of(cast)),
        1,
        None,
    )
    assert [type(round_) for round_ in read.rounds or ()] == [HistoryRound]
    assert read.rounds is not None and read.rounds[0].tricks == {Team.A: 7, Team.B: 0}
    assert replace(read, rounds=None) == match

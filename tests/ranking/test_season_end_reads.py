"""Reads while a season ends (KORT_RULES §10; API.md "Leaderboard", "Seasons"): every answer is
the board before the end or after it, never a mix; a match completed meanwhile is finalized
into the season it was completed in, by the end itself once that season opens."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from matches.kort.rules import season_reset_cups
from matches.models import Match
from players.models import Player
from ranking import season_end as season_end_module
from ranking.models import CupChange
from ranking.season_end import season_claim, season_end_run
from tests.api_steps import match_play, player_read, round_body
from tests.ranking.season_steps import LEADERBOARD, SEASON_ONE, season_one_play

BEFORE = [(rank, name, cups) for rank, (name, (cups, *_)) in enumerate(SEASON_ONE.items(), 1)]
"""The board as season 1 ends: (rank, username, cups)."""


@pytest.fixture
def ladder(service):
    return season_one_play(service)


def answers(api, ladder) -> list[tuple[str, object]]:
    """One read of each kind, as ``(kind, answer)``: the board's pages, every player, a
    player's surroundings."""
    read: list[tuple[str, object]] = []
    for offset in (0, 4):
        body = api.get(LEADERBOARD, {"limit": 3, "offset": offset}).data
        rows = [(row["rank"], row["player"]["username"], row["cups"]) for row in body["results"]]
        read.append((f"page {offset}", (body["count"], rows)))
    for name in SEASON_ONE:
        body = player_read(api, ladder[name])
        read.append((f"player {name}", (body["cups"], body["rank"])))
    around = api.get(f"{LEADERBOARD}around/{ladder['gita']}/", {"radius": 1})
    surroundings = None
    if around.status_code == 200:
        surroundings = [
            (row["rank"], row["player"]["username"], row["cups"]) for row in around.data["results"]
        ]
    read.append(("around gita", surroundings))
    return read


def expected(state: str) -> dict[str, object]:
    """Every read's answer in ``state``: ``before`` the end or ``after`` it (the reset totals,
    season 2's board empty)."""
    ranks = {name: rank for rank, name, _ in BEFORE}
    if state == "before":
        read: dict[str, object] = {
            f"page {offset}": (len(BEFORE), BEFORE[offset : offset + 3]) for offset in (0, 4)
        }
        read.update({f"player {n}": (cups, ranks[n]) for _, n, cups in BEFORE})
        gita = ranks["gita"]
        read["around gita"] = BEFORE[gita - 2 : gita + 1]
        return read
    read = {f"page {offset}": (0, []) for offset in (0, 4)}
    read.update({f"player {n}": (season_reset_cups(cups, 0), None) for _, n, cups in BEFORE})
    read["around gita"] = None
    return read


def state_of(read: list[tuple[str, object]]) -> str:
    """``before``, ``after``, or ``mixed`` for a whole set of reads taken in turn (each read
    alone must be one of the two; the set may cross the switch once, from before to after)."""
    states = []
    for kind, answer in read:
        matched = [state for state in ("before", "after") if expected(state)[kind] == answer]
        if not matched:
            return f"wrong {kind}: {answer}"
        states.append(matched[0])
    if "after" in states and "before" in states[states.index("after") :]:
        return "mixed"
    return "after" if states[-1] == "after" else "before"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_every_read_during_the_end_is_the_board_before_or_after(ladder):
    """A reader in its own connection reads all the time the end runs, once more while the
    switch (season 1 finalized, season 2 opened) is written but not committed, and once more
    while each batch of the reset is written but not committed."""
    assert state_of(answers(APIClient(), ladder)) == "before"
    stop = threading.Event()
    seen: list[str] = []

    def reader():
        api = APIClient()
        try:
            while not stop.is_set():
                seen.append(state_of(answers(api, ladder)))
        finally:
            connection.close()

    in_switch: list[str] = []
    in_reset: list[str] = []

    def read_once(into: list[str]) -> None:
        try:
            into.append(state_of(answers(APIClient(), ladder)))
        finally:
            connection.close()

    def then_read(name: str, into: list[str]):
        real = getattr(season_end_module, name)

        def done_then_read(*args, **kwargs):
            done = real(*args, **kwargs)
            other = threading.Thread(target=read_once, args=(into,))
            other.start()
            other.join()
            return done

        return done_then_read

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(season_end_module, "ladder_close", then_read("ladder_close", in_switch))
            patch.setattr(season_end_module, "ladder_reset", then_read("ladder_reset", in_reset))
            assert season_end_module.season_end(1) is True
    finally:
        stop.set()
        thread.join()
    seen.append(state_of(answers(APIClient(), ladder)))

    assert in_switch == ["before"]
    assert in_reset and set(in_reset) == {"after"}  # the last batch finds no player left
    assert set(seen) <= {"before", "after"}, seen
    assert seen[-1] == "after"


def test_a_match_completed_during_the_end_is_finalized_into_its_season(service, ladder):
    """Completed once the end is claimed, the match belongs to season 2 (§10: the season in
    which it was completed); the end finalizes it as soon as season 2 opens, after the reset
    that opened it."""
    assert season_claim(1, end_now=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
        seats = [ladder[name] for name in ("amir", "bita", "cyrus", "dara")]
        # A's Kort: amir, cyrus +10; bita, dara -5.
        match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])
    assert Match.objects.get(pk=match_id).status == "completed"

    assert season_end_run(1) is True

    match = Match.objects.get(pk=match_id)
    assert (match.status, match.season) == ("finalized", 2)
    amir = Player.objects.get(username="amir")
    ledger = CupChange.objects.filter(player=amir).order_by("-created_at", "-id")
    assert [(row.kind, row.season, row.delta, row.cups_after) for row in ledger[:2]] == [
        ("match", 2, 10, 17),
        ("season_reset", 2, -7, 7),
    ]
    assert amir.cups == 17 and amir.board_season == 2

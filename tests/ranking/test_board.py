"""The counted leaderboard (KORT_RULES §10; API.md "Leaderboard"): ranks, pages at any offset,
the rows around a player and the board's size read from the counts agree with a brute-force
ordering of the players, over random ladders with heavy ties, after finalizations and bans,
and with the counts lost or corrupted (the reads then count players, and say so)."""

import logging
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import transaction
from django.db.models import F
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework_api_key.models import APIKey

from matches.kort.rules import Mode
from matches.reports import RoundReport
from matches.services import match_create
from players.models import Player
from players.services import player_create
from ranking.board import board_build, board_differences, counted_board
from ranking.demo import random_match_rounds
from ranking.models import BoardCount, BoardTotal
from ranking.selectors import board_count, board_page, leaderboard_around, player_rank, ranks_of
from ranking.services import match_finalize, player_ban
from tests.api_steps import ids_of, match_play, round_body
from tests.concurrency import at_once
from tests.ranking.ladders import SEASON, brute_board, brute_ranks, ladder_insert


def shown(rows) -> list[tuple[int, int]]:
    return [(row.rank, row.player.id) for row in rows]


def brute_rows(offset: int, limit: int) -> list[tuple[int, int]]:
    board = brute_board()
    return [(offset + i + 1, p.pk) for i, p in enumerate(board[offset : offset + limit])]


@contextmanager
def fallbacks() -> Iterator[list[logging.LogRecord]]:
    """The warnings of reads that did not trust the counts and counted players instead."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[assignment]  # a list's append as the emitter
    logger = logging.getLogger("ranking.selectors")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


def assert_reads_agree(rng: random.Random, *, trusted: bool = True) -> None:
    """Every read of the board equals the brute-force order: the rank of every player (one
    batch and one by one), pages at every offset with random limits, the rows around every
    player on the board, the board's size. With ``trusted``, from the counts alone (no read
    fell back to counting players)."""
    with fallbacks() as warned:
        _reads_agree(rng)
    if trusted:
        assert [record.getMessage() for record in warned] == []


def _reads_agree(rng: random.Random) -> None:
    players = list(Player.objects.all())
    expected = brute_ranks()
    assert ranks_of(players) == expected
    assert {p.pk: player_rank(p) for p in players} == expected
    size = len(brute_board())
    assert board_count() == size
    for offset in range(size + 2):
        limit = rng.randint(0, 7)
        page = board_page(offset, limit)
        assert (page.count, shown(page.rows)) == (size, brute_rows(offset, limit))
    for player in brute_board():
        radius = rng.randint(0, 4)
        rank = expected[player.pk]
        assert rank is not None
        start = max(0, rank - 1 - radius)
        rows = leaderboard_around(player, radius)
        assert shown(rows) == brute_rows(start, rank + radius - start)


# --- random ladders ------------------------------------------------------------------------------

ladder_rows = st.lists(
    st.tuples(
        st.integers(-3, 3),  # cups: seven values for up to 40 players, so ties are the rule
        st.integers(0, 2),  # the last change: three times, so ties within ties too
        st.sampled_from(["board"] * 6 + ["banned", "bot", "other season", "no board"]),
    ),
    max_size=40,
)


@pytest.mark.django_db
@hypothesis_settings(max_examples=60)
@given(rows=ladder_rows, seed=st.integers(0, 2**16))
def test_reads_agree_with_the_brute_force_order(rows, seed):
    with transaction.atomic():
        ladder_insert(rows)
        board_build(SEASON)
        assert_reads_agree(random.Random(seed))
        transaction.set_rollback(True)


# --- the writers: finalization and bans ---------------------------------------------------------

operations = st.lists(
    st.one_of(
        st.tuples(st.just("match"), st.integers(0, 2**32), st.integers(-1, 3)),
        st.tuples(st.just("ban"), st.integers(0, 7), st.booleans()),
    ),
    min_size=1,
    max_size=10,
)


def ranked_match(rng: random.Random, service_key, ban_seat: int) -> None:
    """A random ranked match of four unbanned players, finalized; with ``ban_seat`` 0..3 that
    seat's player is banned between its last round and its finalization (the match still
    counts, the ban keeps them off the board)."""
    free = list(Player.objects.filter(is_banned=False, is_bot=False).order_by("pk"))
    bots = list(Player.objects.filter(is_bot=True))
    if len(free) < 3:
        return
    seats = rng.sample(free, min(4, len(free)))
    seats += bots[: 4 - len(seats)]
    rng.shuffle(seats)
    first = rng.randrange(4)
    reports = random_match_rounds(rng, Mode.RANKED, first)
    with transaction.atomic():  # on_commit callbacks would wait for the test's transaction
        match, _ = match_create(
            service_key=service_key,
            mode=Mode.RANKED,
            seats=[p.pk for p in seats],
            first_trump_seat=first,
            rounds=[RoundReport.from_wire(report) for report in reports],
        )
    if 0 <= ban_seat < len(seats) and not seats[ban_seat].is_bot:
        player_ban(seats[ban_seat], True)
    assert match_finalize(match.pk)


@pytest.mark.django_db
@hypothesis_settings(max_examples=25)
@given(ops=operations, seed=st.integers(0, 2**16))
def test_finalizations_and_bans_keep_the_counts(ops, seed):
    rng = random.Random(seed)
    with transaction.atomic():
        service_key, _ = APIKey.objects.create_key(name="tables")
        cast = [player_create(username=f"human{n}") for n in range(8)]
        player_create(username="robo", is_bot=True)
        for op, value, flag in ops:
            if op == "match":
                ranked_match(random.Random(value), service_key, flag)
            else:
                player_ban(cast[value], flag)
            assert board_differences(SEASON, counted_board(SEASON)) == []
        assert_reads_agree(rng)
        transaction.set_rollback(True)


def test_a_ban_and_an_unban_move_the_player_off_and_back_on(service, api, cast):
    match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])  # A +10, B -5
    amir = Player.objects.get(pk=cast[0].pk)
    assert (player_rank(amir), board_count()) == (1, 4)

    assert player_ban(amir, True) is True
    assert player_ban(amir, True) is False
    assert (player_rank(amir), board_count()) == (None, 3)
    assert player_rank(Player.objects.get(pk=cast[2].pk)) == 1

    assert player_ban(amir, False) is True
    assert (player_rank(amir), board_count()) == (1, 4)
    assert board_differences(SEASON, counted_board(SEASON)) == []


# --- lost and corrupted counts ------------------------------------------------------------------


def corrupt(how: str) -> None:
    counts = BoardCount.objects.filter(season=SEASON)
    if how in ("counts lost", "all lost"):
        counts.delete()
    if how in ("total lost", "all lost"):
        BoardTotal.objects.filter(season=SEASON).delete()
    if how == "a count off by one":
        counts.filter(cups=0).update(players=F("players") + 1)
    if how == "a count moved":  # the total still adds up: one too many on top, one too few below
        counts.filter(cups=2).update(players=F("players") - 1)
        counts.filter(cups=-2).update(players=F("players") + 1)
    if how == "the total off":
        BoardTotal.objects.filter(season=SEASON).update(players=0)


CORRUPTIONS = ["counts lost", "total lost", "all lost", "a count off by one", "the total off"]


@pytest.fixture
def wide_ladder(db):
    """30 players on the board, ties everywhere (cups -2..2, two times), counted."""
    rng = random.Random(5)
    ladder_insert([(rng.randint(-2, 2), rng.randint(0, 1), "board") for _ in range(30)])
    board_build(SEASON)


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_lost_or_corrupted_counts_are_detected_and_reads_stay_exact(wide_ladder, caplog, how):
    corrupt(how)

    with caplog.at_level(logging.WARNING, logger="ranking.selectors"):
        assert_reads_agree(random.Random(1), trusted=False)

    assert "fail a check" in caplog.text
    assert "rebuild_ladder --fix" in caplog.text


def test_a_moved_count_that_still_adds_up_is_caught_by_the_page_that_reads_it(wide_ladder, caplog):
    corrupt("a count moved")

    with caplog.at_level(logging.WARNING, logger="ranking.selectors"):
        page = board_page(0, 100)

    assert shown(page.rows) == brute_rows(0, 100)
    assert "counted" in caplog.text


def test_counts_lost_are_rebuilt_by_the_next_move_of_the_season(service, api, cast):
    match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    BoardCount.objects.all().delete()
    BoardTotal.objects.all().delete()
    assert board_count() == 4  # counted from the players, with a warning

    match_play(service, ids_of(cast), [round_body(1, 0, 7, "stop")], first_trump_seat=1)

    assert board_differences(SEASON, counted_board(SEASON)) == []
    assert_reads_agree(random.Random(2))


# --- concurrent writers (PostgreSQL row locks) ---------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("counts", ["kept", "lost"])
def test_concurrent_finalizations_keep_the_counts(service, monkeypatch, counts):
    """Six matches finalized at once, three pairs sharing players and all sharing cup values:
    every count ends as the players give it, whether the season's counts were there or lost
    (then the first move rebuilds them while the others wait)."""
    monkeypatch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
    ids = [player_create(username=f"club{n}").pk for n in range(12)]
    kort = [round_body(0, 7, 0, "stop")]  # A +10, B -5
    tables = [ids[0:4], ids[4:8], ids[8:12], ids[1:5], ids[5:9], [ids[9], ids[10], ids[11], ids[0]]]
    matches = [match_play(service, seats, kort) for seats in tables]
    match_finalize(matches[0])
    if counts == "lost":
        BoardCount.objects.all().delete()
        BoardTotal.objects.all().delete()

    results = at_once([lambda m=m: match_finalize(m) for m in matches[1:]])

    assert results == [True] * 5
    assert board_differences(SEASON, counted_board(SEASON)) == []
    assert BoardTotal.objects.get(season=SEASON).players == 12
    assert_reads_agree(random.Random(3))

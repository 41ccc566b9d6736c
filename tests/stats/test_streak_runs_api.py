"""Streaks through the API (KORT_RULES §12: ordered by completion time, then match id; a void
match taken out as if never played; API.md "Players"), whatever order the worker finalizes the
matches in (after a broker outage, queued matches finalize in another order), with voids in
the middle of runs; and a match finalized out of order reads the runs it touches, not the
player's history."""

import random
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import Match
from players.services import player_create
from ranking.services import match_finalize, match_void
from tests.api_steps import ids_of, match_start, player_read, round_body

KORT = round_body(0, 7, 0, "stop")  # A's Kort: ends a ranked match at once (§2, §5)
AT_KORT = round_body(0, 0, 7, "stop")  # B's At-kort: 7 wins, ends a room match


def streaks(win, loss):
    return {
        "win": dict(zip(("current", "best"), win, strict=True)),
        "loss": dict(zip(("current", "best"), loss, strict=True)),
    }


@pytest.fixture
def held(monkeypatch):
    """Completed matches wait for :func:`match_finalize`, as while the broker is down."""
    monkeypatch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)


def completed(service, cast, won: bool, mode: str = "ranked") -> int:
    """A match of Amir completed in one request, not finalized: team A wins a ranked match
    (a Kort), team B a room match (an At-kort); Amir sits in the winners' team if ``won``."""
    in_team_a = won == (mode == "ranked")
    seats = ids_of(cast) if in_team_a else [cast[1].id, cast[0].id, cast[3].id, cast[2].id]
    return match_start(service, seats, mode=mode, rounds=[KORT if mode == "ranked" else AT_KORT])


def amir_streaks(api, cast, **params):
    query = "&".join(f"{name}={value}" for name, value in params.items())
    return player_read(api, cast[0].id, f"stats/?{query}")["streaks"]


def test_matches_finalized_in_reverse_give_the_streaks_of_completion_order(
    service, api, cast, held
):
    results = [True, True, False, True, True, True, False, False]
    match_ids = [completed(service, cast, won) for won in results]

    for match_id in reversed(match_ids):
        assert match_finalize(match_id)

    # Won 2, lost 1, won 3, lost 2 (§12): the loss run is current.
    assert amir_streaks(api, cast) == streaks((0, 3), (2, 2))
    assert amir_streaks(api, cast, mode="ranked", season=1) == streaks((0, 3), (2, 2))
    assert player_read(api, cast[1].id, "stats/")["streaks"] == streaks((2, 2), (0, 3))


def test_a_match_finalized_late_splits_or_joins_the_runs_around_it(service, api, cast, held):
    won, lost, late_loss, won_again, late_win, room_loss = (
        completed(service, cast, True),
        completed(service, cast, False),
        completed(service, cast, False),
        completed(service, cast, True),
        completed(service, cast, True),
        completed(service, cast, False, mode="room"),
    )
    for match_id in (won, lost, won_again, room_loss):
        assert match_finalize(match_id)
    # Won, lost, won (ranked), lost (room).
    assert amir_streaks(api, cast) == streaks((0, 1), (1, 1))

    assert match_finalize(late_win)  # completed after won_again: their run is 2
    assert amir_streaks(api, cast) == streaks((0, 2), (1, 1))
    assert match_finalize(late_loss)  # completed after lost: their run is 2
    assert amir_streaks(api, cast) == streaks((0, 2), (1, 2))
    assert amir_streaks(api, cast, mode="ranked") == streaks((2, 2), (0, 2))
    assert amir_streaks(api, cast, mode="room") == streaks((0, 0), (1, 1))


def test_voids_in_the_middle_split_and_join_runs(service, api, cast, held):
    results = [True, True, False, True, True, False, True, False, False]
    match_ids = [completed(service, cast, won) for won in results]
    for match_id in match_ids:
        assert match_finalize(match_id)
    assert amir_streaks(api, cast) == streaks((0, 2), (2, 2))

    match_void(match_ids[2], "a broken table")  # the lone loss: won 4 in a row now
    assert amir_streaks(api, cast) == streaks((0, 4), (2, 2))
    match_void(match_ids[1], "a cheater at the table")  # inside the run of 4: 3
    assert amir_streaks(api, cast) == streaks((0, 3), (2, 2))
    match_void(match_ids[8], "a broken table")  # the latest match: the loss run is 1
    assert amir_streaks(api, cast) == streaks((0, 3), (1, 1))
    match_void(match_ids[7], "a broken table")  # the latest again: a win is current
    assert amir_streaks(api, cast) == streaks((1, 3), (0, 1))
    assert Match.objects.filter(status="void").count() == 4


def statements_of(finalize) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        assert finalize()
    return [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    ]


def test_a_match_finalized_in_order_reads_no_run_and_writes_ended_runs_in_one_statement(
    service, cast, held
):
    """In completion order (the usual case), a finalization reads the streak rows alone: a
    match that extends every player's current run writes no run, one that ends runs writes
    them in one statement (KORT_RULES §12)."""
    for won in (True, True):
        assert match_finalize(completed(service, cast, won))
    extending = completed(service, cast, True)
    ending = completed(service, cast, False)

    extends = statements_of(lambda: match_finalize(extending))
    ends = statements_of(lambda: match_finalize(ending))

    for statements in (extends, ends):
        assert not [sql for sql in statements if sql.startswith("SELECT") and "endedrun" in sql]
        assert not [sql for sql in statements if 'FROM "matches_seat"' in sql]  # no history

    def ended_runs_written(statements):
        return sum(sql.count('INSERT INTO "stats_endedrun"') for sql in statements)

    assert (ended_runs_written(extends), ended_runs_written(ends)) == (0, 1)
    # On PostgreSQL the writes go to the server in one round trip (bulk.updates.run).
    batched = connection.vendor == "postgresql"
    assert len(ends) == len(extends) + (0 if batched else 1)


def test_a_match_finalized_late_reads_the_matches_of_a_run_it_splits_only(service, api, cast, held):
    """A match completed inside a run of its own kind lengthens it and reads none of the
    run's matches; one of the other kind splits the run and reads them (KORT_RULES §12)."""
    won, late_win, late_loss, won_again = (
        completed(service, cast, True),
        completed(service, cast, True),
        completed(service, cast, False),
        completed(service, cast, True),
    )
    for match_id in (won, won_again):
        assert match_finalize(match_id)

    lengthens = statements_of(lambda: match_finalize(late_win))
    splits = statements_of(lambda: match_finalize(late_loss))

    assert not [sql for sql in lengthens if 'FROM "matches_seat"' in sql]
    assert [sql for sql in splits if 'FROM "matches_seat"' in sql]
    # Won 2, lost 1, won 1.
    assert amir_streaks(api, cast) == streaks((1, 2), (0, 1))


@contextmanager
def database_steps():
    """Count the steps SQLite's engine takes meanwhile (one per 100 instructions): what the
    statements read, rows and index entries, however many statements there are."""
    steps = [0]

    def step():
        steps[0] += 1
        return 0

    connection.ensure_connection()
    raw = connection.connection
    raw.set_progress_handler(step, 100)
    try:
        yield steps
    finally:
        raw.set_progress_handler(None, 100)


TUPLES_READ = """
    SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)
    FROM pg_stat_xact_user_tables
"""


def tuples_read() -> int:
    with connection.cursor() as cursor:
        cursor.execute(TUPLES_READ)
        return int(cursor.fetchone()[0])


@contextmanager
def tuples_fetched():
    """Count the table rows PostgreSQL reads meanwhile, by sequential scans and through
    indexes, from the current transaction's statistics. The tables are analyzed and
    sequential scans turned off first, so that the planner reads the small tables of a test
    the way it would read large ones."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute("SET LOCAL enable_seqscan = off")
    read = [0]
    before = tuples_read()
    try:
        yield read
    finally:
        read[0] = tuples_read() - before


def database_reads():
    """What the statements run meanwhile read: SQLite's steps, PostgreSQL's rows read."""
    return tuples_fetched() if connection.vendor == "postgresql" else database_steps()


def late_finalization_reads(service, cast, history: int) -> int:
    """Amir plays ``history`` matches won and lost in turn, then wins one, loses one (held)
    and wins one more: the last is finalized first, then the held loss, completed inside the
    run of the two wins, splits it. What that finalization reads (:func:`database_reads`)."""
    for number in range(history):
        assert match_finalize(completed(service, cast, number % 2 == 1))
    late, last = completed(service, cast, False), completed(service, cast, True)
    assert match_finalize(last)
    with database_reads() as read:
        assert match_finalize(late)
    return read[0]


def test_a_match_finalized_out_of_order_reads_the_runs_it_touches_not_the_history(
    service, api, cast, held
):
    """The finalization of a match completed before the latest one (KORT_RULES §12) reads
    about as much after 10 matches of the player as after 400: the runs next to it and the
    matches of the run it splits, never the whole history."""
    others = [player_create(username=name) for name in ("elham", "farid", "gita", "hamid")]

    short = late_finalization_reads(service, cast, 10)
    long = late_finalization_reads(service, others, 400)

    # Won, lost (the late one), won: each run is 1.
    assert amir_streaks(api, cast) == streaks((1, 1), (0, 1))
    assert amir_streaks(api, others) == streaks((1, 1), (0, 1))
    assert long < short * 1.5, (short, long)


def counted(results: list[bool]) -> dict:
    """§12 by brute force over results in completion order: the trailing run is current, the
    longest of each kind the best."""
    best = {True: 0, False: 0}
    run = 0
    for number, won in enumerate(results):
        run = run + 1 if number and results[number - 1] == won else 1
        best[won] = max(best[won], run)
    current = {True: 0, False: 0}
    if results:
        current[results[-1]] = run
    return streaks((current[True], best[True]), (current[False], best[False]))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_finalization_order_and_voids_give_the_count_over_the_matches_left(
    service, api, cast, held, seed
):
    """Matches of both modes finalized in a random order, some voided as they come, give the
    streaks of a direct count over the not void matches in completion order (KORT_RULES §12),
    for all time and each mode."""
    rng = random.Random(seed)
    plan = [(rng.random() < 0.6, rng.choice(["ranked", "ranked", "room"])) for _ in range(18)]
    match_ids = [completed(service, cast, won, mode) for won, mode in plan]
    order = rng.sample(range(len(plan)), len(plan))
    finalized: set[int] = set()
    voided: set[int] = set()
    for step, number in enumerate(order):
        assert match_finalize(match_ids[number])
        finalized.add(number)
        if step % 4 == 3:
            gone = rng.choice(sorted(finalized - voided))
            match_void(match_ids[gone], "a broken table")
            voided.add(gone)
        left = [n for n in range(len(plan)) if n in finalized and n not in voided]
        assert amir_streaks(api, cast) == counted([plan[n][0] for n in left]), (step, seed)
    for mode in ("ranked", "room"):
        left = [n for n in range(len(plan)) if n not in voided and plan[n][1] == mode]
        assert amir_streaks(api, cast, mode=mode) == counted([plan[n][0] for n in left])

"""Streaks kept as runs (KORT_RULES §12): matches counted in any order and voids anywhere give
the streaks of a direct count over the not void matches in completion order, then match id.

The oracle counts the runs of the ordered results by brute force, never through the functions
under test."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from matches.kort.rules import (
    RunKey,
    RunsMoved,
    RunWindow,
    StreakRun,
    Streaks,
    runs_joined,
    runs_moved,
    streaks_of_runs,
)

START = datetime(2026, 1, 1, tzinfo=UTC)


def direct_count(results: dict[RunKey, bool]) -> Streaks:
    """§12 by brute force: the trailing run is the current one, the longest of each kind the
    best."""
    ordered = [results[key] for key in sorted(results)]
    best = {True: 0, False: 0}
    for start in range(len(ordered)):
        end = start
        while end < len(ordered) and ordered[end] == ordered[start]:
            end += 1
        best[ordered[start]] = max(best[ordered[start]], end - start)
    current = {True: 0, False: 0}
    if ordered:
        tail = 0
        while tail < len(ordered) and ordered[-1 - tail] == ordered[-1]:
            tail += 1
        current[ordered[-1]] = tail
    return Streaks(current[True], best[True], current[False], best[False])


def near(runs: list[StreakRun], key: RunKey) -> list[StreakRun]:
    """What the ladder reads of the stored runs around ``key``: the two latest runs starting
    at or before it and the first one starting after it."""
    earlier = [run for run in runs if run.first <= key]
    later = [run for run in runs if run.first > key]
    return earlier[-2:] + later[:1]


def members(results: dict[RunKey, bool], run: StreakRun | None) -> list[tuple[RunKey, bool]]:
    if run is None:
        return []
    return [(key, won) for key, won in sorted(results.items()) if run.spans(key)]


def holding(runs: list[StreakRun], key: RunKey) -> StreakRun | None:
    """The run that holds ``key``, if any."""
    return next((run for run in runs if run.spans(key)), None)


# A step: count a new match in (its minute, a tie-break id, won), or void the n-th counted one.
steps = st.lists(
    st.one_of(
        st.tuples(st.just("count"), st.integers(0, 30), st.booleans()),
        st.tuples(st.just("void"), st.integers(0, 1000), st.booleans()),
    ),
    max_size=60,
)


@given(steps)
def test_runs_counted_in_any_order_and_voided_anywhere_give_the_direct_count(plan):
    results: dict[RunKey, bool] = {}
    runs: list[StreakRun] = []
    streaks = Streaks()
    for number, (step, value, won) in enumerate(plan):
        if step == "count":
            # Matches completed at the same minute are ordered by id (§12).
            key, counted = (START + timedelta(minutes=value), number), True
        elif results:
            key = sorted(results)[value % len(results)]
            won, counted = results[key], False
        else:
            continue
        # The other matches of the run that holds the key, read where the match splits or
        # shortens it: a void, or a match of the other kind.
        around = holding(runs, key)
        splits = around is not None and (not counted or around.won != won)
        assert counted or splits  # a voided match lies in a run
        ended, current = runs[:-1], runs[-1] if runs else None
        moved = runs_moved(
            near(ended, key),
            current,
            streaks,
            key,
            won,
            counted,
            members(results, around) if splits else [],
        )
        if counted:
            results[key] = won
        else:
            del results[key]
        kept = [run for run in ended if run not in moved.replaced]
        new = [*moved.ended, *([] if moved.current is None else [moved.current])]
        runs = sorted([*kept, *new], key=lambda run: run.first)
        # A kind whose longest run next to the match got shorter: the longest other ended run.
        longest = {
            kind: max((r.length for r in kept if r.won == kind), default=0)
            for kind in (True, False)
        }
        streaks = moved.streaks
        if True in moved.shortened:
            streaks = replace(streaks, win_best=max(streaks.win_best, longest[True]))
        if False in moved.shortened:
            streaks = replace(streaks, loss_best=max(streaks.loss_best, longest[False]))

        ordered = [StreakRun.single(key, results[key]) for key in sorted(results)]
        assert runs == runs_joined(ordered)
        assert moved.current == (runs[-1] if runs else None)
        assert streaks_of_runs(runs[:-1], runs[-1] if runs else None) == direct_count(results)
        assert streaks == direct_count(results)


def test_a_match_counted_inside_a_run_of_its_own_kind_needs_no_other_match():
    minute = [(START + timedelta(minutes=n), n) for n in range(4)]
    won = StreakRun(True, minute[0], minute[3], 3)

    window = RunWindow.of([won], minute[2])

    assert window.counted_in(True) == [StreakRun(True, minute[0], minute[3], 4)]
    moved = runs_moved([], won, Streaks(3, 3, 0, 1), minute[2], True, True)
    assert moved.current == StreakRun(True, minute[0], minute[3], 4)
    assert (moved.replaced, moved.ended, moved.streaks) == ([won], [], Streaks(4, 4, 0, 1))


def test_a_match_counted_after_the_latest_extends_or_ends_the_current_run():
    minute = [(START + timedelta(minutes=n), n) for n in range(4)]
    won = StreakRun(True, minute[0], minute[1], 2)

    extended = runs_moved([], won, Streaks(2, 3, 0, 1), minute[2], True, True)
    ended = runs_moved([], won, Streaks(2, 3, 0, 1), minute[2], False, True)

    assert extended == RunsMoved(
        [won], [], StreakRun(True, minute[0], minute[2], 3), Streaks(3, 3, 0, 1)
    )
    assert ended == RunsMoved([won], [won], StreakRun.single(minute[2], False), Streaks(0, 3, 1, 1))
    assert runs_moved([], None, Streaks(), minute[0], False, True) == RunsMoved(
        [], [], StreakRun.single(minute[0], False), Streaks(0, 0, 1, 1)
    )


def test_a_loss_counted_between_two_wins_splits_their_run():
    minute = [(START + timedelta(minutes=n), n) for n in range(3)]
    window = RunWindow.of([StreakRun(True, minute[0], minute[2], 2)], minute[1])

    runs = window.counted_in(False, [(minute[0], True), (minute[2], True)])

    assert runs == [
        StreakRun.single(minute[0], True),
        StreakRun.single(minute[1], False),
        StreakRun.single(minute[2], True),
    ]
    assert streaks_of_runs(runs[:-1], runs[-1]) == Streaks(1, 1, 0, 1)


def test_a_void_of_a_lone_loss_joins_the_wins_around_it():
    minute = [(START + timedelta(minutes=n), n) for n in range(4)]
    runs = [
        StreakRun(True, minute[0], minute[1], 2),
        StreakRun.single(minute[2], False),
        StreakRun.single(minute[3], True),
    ]
    window = RunWindow.of(runs, minute[2])

    assert window.taken_out([(minute[2], False)]) == [StreakRun(True, minute[0], minute[3], 3)]

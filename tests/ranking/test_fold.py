"""One player's ladder step (``ranking.fold``), without the database: each kind of player
against each kind of event, with the exact state and rows of the step (KORT_RULES §7, §8, §10,
§11), the soft reset's formula (§10), and properties of random histories of one player."""

from collections import Counter
from dataclasses import replace
from functools import partial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.kort.rules import Mode
from ranking.fold import (
    MATCH,
    SEASON_RESET,
    VOID,
    Banned,
    BoardMoved,
    Event,
    Finalized,
    Ledger,
    PlayerLadder,
    Row,
    SeasonCups,
    SeasonOpened,
    SeasonReset,
    StatsAdded,
    Voided,
    fold,
    step,
)

SEASON, PAST, FLOOR = 3, 2, 10
"""The current season, the season of the match the table's voids take back, the reset's T."""
EARLIER, AT, MATCH_ID = 50, 100, 7
LINE = (1, 1, 0)
"""A statistics line: the step passes it through untouched."""

SCENARIOS = {
    "newcomer": PlayerLadder(),
    "on_board": PlayerLadder(14, 20, EARLIER, SEASON, reset_season=SEASON),
    "negative": PlayerLadder(-4, 6, EARLIER, PAST, reset_season=PAST),
    "banned": PlayerLadder(9, 9, EARLIER, SEASON, banned=True, reset_season=SEASON),
    "bot": PlayerLadder(bot=True),
    "holds_reset": PlayerLadder(30, 30, EARLIER, reset_season=SEASON),
    "above_floor": PlayerLadder(25, 40, EARLIER, PAST, reset_season=PAST),
}
EVENTS: dict[str, Event] = {
    "won": Finalized(MATCH_ID, SEASON, Mode.RANKED, LINE, 5, AT, SEASON),
    "lost": Finalized(MATCH_ID, SEASON, Mode.RANKED, LINE, -6, AT, SEASON),
    "room": Finalized(MATCH_ID, SEASON, Mode.ROOM, LINE, None, AT, SEASON),
    "void_counts": Voided(MATCH_ID, PAST, Mode.RANKED, LINE, 5, AT, SEASON, True),
    "void_leaves": Voided(MATCH_ID, PAST, Mode.RANKED, LINE, 5, AT, SEASON, False),
    "ban": Banned(True, SEASON),
    "unban": Banned(False, SEASON),
    "reset": SeasonReset(SEASON, FLOOR, AT),
}


def cup_rows(kind: str, before: int, after: int, *moved: int | None) -> list[Row]:
    """The rows of a ranked match of the current season (``MATCH``, §7, §8) or of the void of
    one of the past season (``VOID``: the reversal is ledgered in the current season, the line
    leaves the match's season, §11) taking the total from ``before`` to ``after``, with the
    board's move ``moved`` if any."""
    season, sign = (SEASON, 1) if kind == MATCH else (PAST, -1)
    return [
        Ledger(kind, MATCH_ID, SEASON, after - before, after, AT),
        SeasonOpened(SEASON, before),
        SeasonCups(SEASON, after),
        StatsAdded(season, Mode.RANKED, LINE, sign),
        *([BoardMoved(SEASON, *moved)] if moved else []),
    ]


ranked, voided = partial(cup_rows, MATCH), partial(cup_rows, VOID)


def room(before: int) -> list[Row]:
    """A room match moves no cups and counts in the statistics only (§7, §8)."""
    return [SeasonOpened(SEASON, before), StatsAdded(SEASON, Mode.ROOM, LINE, 1)]


def reset(before: int, after: int) -> list[Row]:
    """The ledger row of the reset that opened the current season (§10)."""
    return [Ledger(SEASON_RESET, SEASON, SEASON, after - before, after, AT)]


def moved(cups: int, best: int, **fields: object) -> dict[str, object]:
    """The fields of a state after a cup change at ``AT``."""
    return {"cups": cups, "best_cups": best, "changed_at": AT, **fields}


UNCHANGED: tuple[dict[str, object], list[Row]] = ({}, [])
TABLE: dict[str, dict[str, tuple[dict[str, object], list[Row]]]] = {
    "newcomer": {
        "won": (moved(5, 5, board_season=SEASON), ranked(0, 5, None, 5)),
        "lost": (moved(-6, 0, board_season=SEASON), ranked(0, -6, None, -6)),
        "room": ({}, room(0)),
        "void_counts": (moved(-5, 0, board_season=SEASON), voided(0, -5, None, -5)),
        "void_leaves": (moved(-5, 0), voided(0, -5)),
        "ban": ({"banned": True}, []),
        "unban": UNCHANGED,
        # 0 <= 0 <= T: a total the reset keeps has no ledger row; the state records the reset.
        "reset": ({"reset_season": SEASON}, []),
    },
    "on_board": {
        "won": (moved(19, 20), ranked(14, 19, 14, 19)),
        "lost": (moved(8, 20), ranked(14, 8, 14, 8)),
        "room": ({}, room(14)),
        "void_counts": (moved(9, 20), voided(14, 9, 14, 9)),
        "void_leaves": (moved(9, 20, board_season=None), voided(14, 9, 14, None)),
        "ban": ({"banned": True}, [BoardMoved(SEASON, 14, None)]),
        "unban": UNCHANGED,
        "reset": UNCHANGED,
    },
    "negative": {
        "won": (moved(1, 6, board_season=SEASON), ranked(-4, 1, None, 1)),
        "lost": (moved(-10, 6, board_season=SEASON), ranked(-4, -10, None, -10)),
        "room": ({}, room(-4)),
        "void_counts": (moved(-9, 6, board_season=SEASON), voided(-4, -9, None, -9)),
        "void_leaves": (moved(-9, 6), voided(-4, -9)),
        "ban": ({"banned": True}, []),
        "unban": UNCHANGED,
        "reset": (moved(0, 6, reset_season=SEASON), reset(-4, 0)),
    },
    "banned": {
        "won": (moved(14, 14), ranked(9, 14)),
        "lost": (moved(3, 9), ranked(9, 3)),
        "room": ({}, room(9)),
        "void_counts": (moved(4, 9), voided(9, 4)),
        "void_leaves": (moved(4, 9, board_season=None), voided(9, 4)),
        "ban": UNCHANGED,
        "unban": ({"banned": False}, [BoardMoved(SEASON, None, 9)]),
        "reset": UNCHANGED,
    },
    # A bot's ban is kept, as any player's; a bot is never on a board, so it moves no count.
    "bot": {**dict.fromkeys(EVENTS, UNCHANGED), "ban": ({"banned": True}, [])},
    "holds_reset": {
        "won": (moved(35, 35, board_season=SEASON), ranked(30, 35, None, 35)),
        "lost": (moved(24, 30, board_season=SEASON), ranked(30, 24, None, 24)),
        "room": ({}, room(30)),
        "void_counts": (moved(25, 30, board_season=SEASON), voided(30, 25, None, 25)),
        "void_leaves": (moved(25, 30), voided(30, 25)),
        "ban": ({"banned": True}, []),
        "unban": UNCHANGED,
        "reset": UNCHANGED,
    },
    "above_floor": {
        "won": (moved(30, 40, board_season=SEASON), ranked(25, 30, None, 30)),
        "lost": (moved(19, 40, board_season=SEASON), ranked(25, 19, None, 19)),
        "room": ({}, room(25)),
        "void_counts": (moved(20, 40, board_season=SEASON), voided(25, 20, None, 20)),
        "void_leaves": (moved(20, 40), voided(25, 20)),
        "ban": ({"banned": True}, []),
        "unban": UNCHANGED,
        # T + (25 - T) // 2 = 10 + 7 = 17.
        "reset": (moved(17, 40, reset_season=SEASON), reset(25, 17)),
    },
}


@pytest.mark.parametrize(
    ("scenario", "event", "changes", "rows"),
    [
        pytest.param(scenario, event, changes, rows, id=f"{scenario}-{event}")
        for scenario, cells in TABLE.items()
        for event, (changes, rows) in cells.items()
    ],
)
def test_step(scenario: str, event: str, changes: dict, rows: list[Row]) -> None:
    """Each kind of player against each kind of event: the exact state after the step (the
    scenario's state with ``changes``) and the exact rows it adds."""
    before = SCENARIOS[scenario]
    assert step(before, EVENTS[event]) == (replace(before, **changes), rows)


RESETS = [(-5, 0, 0), (0, 0, 0), (1, 0, 0), (7, 0, 3), (8, 0, 4)]
RESETS += [(-1, 10, 0), (10, 10, 10), (11, 10, 10), (12, 10, 11), (25, 10, 17)]
"""``(cups, T, cups after the reset)``: with the default T = 0, and with T = 10."""


@pytest.mark.parametrize(("cups", "floor", "after"), RESETS)
def test_reset_formula(cups: int, floor: int, after: int) -> None:
    """§10: ``cups`` kept when ``0 <= cups <= T``, ``T + (cups - T) // 2`` above T, 0 when
    negative (T defaults to 0: positive cups halve, rounded down); the reset is a ledger row
    of the new season with delta ``new - cups``, written only when it changes the total."""
    before = PlayerLadder(cups, max(cups, 0), EARLIER, reset_season=PAST)
    state, rows = step(before, SeasonReset(SEASON, floor, AT))
    if after == cups:
        assert (state, rows) == (replace(before, reset_season=SEASON), [])
    else:
        assert state == replace(before, cups=after, changed_at=AT, reset_season=SEASON)
        assert rows == reset(cups, after)


def test_reset_folded_again_later_in_its_season_changes_nothing() -> None:
    """The writer folds the current season's reset before every change of a player whose row
    does not record it (§10). A reset that keeps the total (0 <= cups <= T) is recorded too,
    so once a match of the new season lifts the total above T, the same reset does not halve
    it mid-season."""
    reset = SeasonReset(SEASON, 0, EARLIER)
    won = Finalized(MATCH_ID, SEASON, Mode.RANKED, LINE, 5, EARLIER, SEASON)
    state, _ = fold(PlayerLadder(), [reset, won])
    assert step(state, reset) == (state, [])


@st.composite
def histories(draw: st.DrawFn, undo_last: bool = False) -> list[Event]:
    """A human player's events from season 1, at times 1, 2, ...: matches (ranked with their
    cups, or room), voids of matches not yet void, bans and unbans, and the resets opening the
    next seasons with their floors. A void counts when another ranked match of the current
    season still counts (§10, §11). ``undo_last``: ending with a ranked match and its void."""
    season, events, counted = 1, list[Event](), list[Finalized]()

    def void(match: Finalized, at: int) -> Voided:
        counts = any(m.season == season and m.cups is not None for m in counted)
        return Voided(
            match.match_id, match.season, match.mode, LINE, match.cups, at, season, counts
        )

    for at in range(1, draw(st.integers(0, 30)) + 1):
        kind = draw(st.sampled_from(["match", "void", "ban", "reset"]))
        if kind == "match":
            cups = draw(st.none() | st.integers(-15, 15))
            mode = Mode.ROOM if cups is None else Mode.RANKED
            counted.append(Finalized(at, season, mode, LINE, cups, at, season))
            events.append(counted[-1])
        elif kind == "void" and counted:
            events.append(void(counted.pop(draw(st.integers(0, len(counted) - 1))), at))
        elif kind == "ban":
            events.append(Banned(draw(st.booleans()), season))
        elif kind == "reset":
            season += 1
            events.append(SeasonReset(season, draw(st.integers(0, 12)), at))
    if undo_last:
        match = Finalized(100, season, Mode.RANKED, LINE, draw(st.integers(-15, 15)), 100, season)
        events += [match, void(match, 101)]
    return events


def current_season(events: list[Event]) -> int:
    """The season the last of ``events`` happens in."""
    return max([1, *(e.season for e in events if isinstance(e, SeasonReset))])


@given(histories())
def test_ledger_adds_up_to_the_total(events: list[Event]) -> None:
    """After every step: the total is the sum of the ledger's deltas from 0, each row's total
    after is the running sum (§7), and the best total is the highest total the cup changes
    reached, or 0, so never lowered (§10)."""
    state, totals = PlayerLadder(), [0]
    for event in events:
        state, rows = step(state, event)
        for row in rows:
            if isinstance(row, Ledger):
                assert row.cups_after == totals[-1] + row.delta
                totals.append(row.cups_after)
        assert (state.cups, state.best_cups) == (totals[-1], max(totals))


@given(histories(undo_last=True))
def test_void_undoes_its_match(events: list[Event]) -> None:
    """§11: a ranked match and its void leave the total, the ban, the reset and the place on
    the current board as they were; the time of the last change and the best total may have
    moved, and a board season of a past season is forgotten."""
    before, _ = fold(PlayerLadder(), events[:-2])
    after, _ = fold(before, events[-2:])
    season = current_season(events)
    assert after.on_board(season) == before.on_board(season)
    kept = {"changed_at": before.changed_at, "best_cups": before.best_cups}
    assert replace(after, **kept, board_season=before.board_season) == before


@given(histories(), st.integers(-50, 50), st.integers(0, 50), st.none() | st.integers(1, 5))
def test_bots_never_change(events: list[Event], cups: int, best: int, season: int | None) -> None:
    """§7, §8: bots get neither cups nor statistics, whatever their row holds; only a ban
    changes them (the last one given), and never a board."""
    bot = PlayerLadder(cups, best, 0, season, bot=True, reset_season=season)
    bans = [event.banned for event in events if isinstance(event, Banned)]
    banned = bans[-1] if bans else bot.banned
    assert fold(bot, events) == (replace(bot, banned=banned), [])


@given(histories())
def test_board_moves_follow_the_state(events: list[Event]) -> None:
    """§10, §11: the board's moves, counted as the board counts them, leave on the current
    board exactly the player's total while they are on it, after every step."""
    counts: Counter[tuple[int, int]] = Counter()
    state = PlayerLadder()
    for done, event in enumerate(events, 1):
        state, rows = step(state, event)
        season = current_season(events[:done])
        for row in rows:
            if isinstance(row, BoardMoved):
                assert row.season == season
                if row.before is not None:
                    counts[season, row.before] -= 1
                if row.after is not None:
                    counts[season, row.after] += 1
        on_board = {cups: n for (s, cups), n in counts.items() if n and s == season}
        expected = state.on_board(season)
        assert on_board == ({} if expected is None else {expected: 1})


@given(histories(), st.integers(0, 12))
def test_reset_is_folded_once(events: list[Event], floor: int) -> None:
    """§10: the reset of a season folded right after itself changes nothing."""
    reset = SeasonReset(current_season(events) + 1, floor, 1000)
    state, _ = fold(PlayerLadder(), [*events, reset])
    assert step(state, reset) == (state, [])


@given(histories())
def test_fold_is_step_by_step(events: list[Event]) -> None:
    """``fold`` gives the state and the rows of stepping through the events one by one."""
    state, rows = PlayerLadder(), list[Row]()
    for event in events:
        state, added = step(state, event)
        rows += added
    assert fold(PlayerLadder(), events) == (state, rows)

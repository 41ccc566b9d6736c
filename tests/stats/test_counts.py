"""The KORT_RULES §8 list of counts is written once, in the pure rules (``rules.STATS_COUNTS``,
the fields of ``StatsLine``): the statistics' columns must be that list, and the API's schema
and answer, the admin and the writes name the same counts."""

from dataclasses import fields

from matches.kort.rules import SHUTOUT_OUTCOMES, STATS_COUNTS, StatsLine
from players.services import player_create
from stats.admin import PlayerStatsAdmin
from stats.models import COUNT_FIELDS, OUTCOME_FIELDS, PlayerStats, SeasonStats, StatsCounts
from stats.selectors import player_stats
from stats.views import PlayerStatsSerializer

RULES_COUNTS = [
    "matches_played",
    "matches_won",
    "matches_lost",
    "rounds_played",
    "rounds_won",
    "bavan_called",
    "bavan_made",
]
"""KORT_RULES §8, as the rulebook lists the counts (the outcomes apart)."""


def test_the_rules_list_is_the_stats_lines_counts():
    assert list(STATS_COUNTS) == RULES_COUNTS
    assert [f.name for f in fields(StatsLine)] == [*RULES_COUNTS, "outcomes"]


def test_the_columns_of_the_statistics_are_the_rules_list():
    outcome_columns = [name for outcome in SHUTOUT_OUTCOMES for name in OUTCOME_FIELDS[outcome]]
    columns = [f.name for f in StatsCounts._meta.get_fields()]

    assert columns == [*STATS_COUNTS, *outcome_columns]
    assert outcome_columns[:2] == ["kort_team", "kort_opponents"]
    for model in (PlayerStats, SeasonStats):
        assert {*COUNT_FIELDS, *outcome_columns} <= {f.name for f in model._meta.get_fields()}


def test_the_schema_names_what_the_answer_holds(db):
    figures = player_stats(player_create(username="amir"))
    schema = PlayerStatsSerializer().fields

    assert (
        list(schema) == list(figures) == [*STATS_COUNTS, "outcomes", "cups", "best_cups", "streaks"]
    )
    outcomes = schema["outcomes"].fields
    assert list(outcomes) == list(figures["outcomes"]) == [o.value for o in SHUTOUT_OUTCOMES]
    assert (
        list(outcomes["kort"].fields)
        == list(figures["outcomes"]["kort"])
        == [
            "team",
            "opponents",
        ]
    )


def test_the_admin_lists_every_count():
    assert PlayerStatsAdmin.list_display == ["player", *RULES_COUNTS]


def test_a_line_adds_and_takes_back_every_count():
    line = StatsLine(1, 2, 3, 4, 5, 6, 7, dict.fromkeys(SHUTOUT_OUTCOMES, (1, 2)))

    assert line + line == StatsLine(2, 4, 6, 8, 10, 12, 14, dict.fromkeys(SHUTOUT_OUTCOMES, (2, 4)))
    assert line + -line == StatsLine()

"""Per-player "My games" statistics (KORT_RULES §8), folded in as matches are finalized: for all
time, and for each season (§10)."""

from django.db import models

from matches.kort.rules import SHUTOUT_OUTCOMES, STATS_COUNTS, outcome_count_names

COUNT_FIELDS = STATS_COUNTS
"""Model field names of the plain counts: the fields of ``rules.StatsLine``, by the same names."""
OUTCOME_FIELDS = {outcome: outcome_count_names(outcome) for outcome in SHUTOUT_OUTCOMES}
"""Model field names of each shutout outcome's (team, opponents) counts."""


ON_THE_SEASONS_BOARD = models.Q(ranked_played__gt=0)
"""The season rows of the players a season's board holds (unless bots or banned): a finalized,
not voided ranked match of the season counts for them (KORT_RULES §10, §11)."""


def counts_for_the_board(ranked_played: int) -> bool:
    """:data:`ON_THE_SEASONS_BOARD` for one row's ``ranked_played``."""
    return ranked_played > 0


class StatsCounts(models.Model):
    """The §8 counts, shared by the all-time and the per-season statistics: a column for each
    of ``COUNT_FIELDS`` and ``OUTCOME_FIELDS``, in that order (spelled out for the migrations;
    ``tests/stats/test_counts.py`` checks they are the rules' list)."""

    matches_played = models.PositiveIntegerField(default=0)
    matches_won = models.PositiveIntegerField(default=0)
    matches_lost = models.PositiveIntegerField(default=0)
    rounds_played = models.PositiveIntegerField(default=0)
    rounds_won = models.PositiveIntegerField(default=0)
    bavan_called = models.PositiveIntegerField(default=0)
    bavan_made = models.PositiveIntegerField(default=0)
    kort_team = models.PositiveIntegerField(default=0)
    kort_opponents = models.PositiveIntegerField(default=0)
    at_kort_team = models.PositiveIntegerField(default=0)
    at_kort_opponents = models.PositiveIntegerField(default=0)
    bavan_team = models.PositiveIntegerField(default=0)
    bavan_opponents = models.PositiveIntegerField(default=0)
    at_bavan_team = models.PositiveIntegerField(default=0)
    at_bavan_opponents = models.PositiveIntegerField(default=0)
    bavan_failed_team = models.PositiveIntegerField(default=0)
    bavan_failed_opponents = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


def _counts_constraints(prefix: str) -> list[models.BaseConstraint]:
    return [
        models.CheckConstraint(
            condition=models.Q(matches_won__lte=models.F("matches_played")),
            name=f"{prefix}matches_won_within_played",
        ),
        models.CheckConstraint(
            condition=models.Q(rounds_won__lte=models.F("rounds_played")),
            name=f"{prefix}rounds_won_within_played",
        ),
        models.CheckConstraint(
            condition=models.Q(bavan_made__lte=models.F("bavan_called")),
            name=f"{prefix}bavan_made_within_called",
        ),
    ]


class PlayerStats(StatsCounts):
    """A player's statistics over all their finalized, not voided, matches."""

    player = models.OneToOneField(
        "players.Player", on_delete=models.CASCADE, primary_key=True, related_name="stats"
    )

    class Meta:
        verbose_name_plural = "player stats"
        constraints = _counts_constraints("")

    def __str__(self):
        return f"stats of {self.player}"


class SeasonStats(StatsCounts):
    """A player's statistics over the matches of one season (KORT_RULES §10), and their cups in
    it: ``ranked_played`` / ``ranked_won`` count the season's finalized, not voided, ranked
    matches (one puts the player on the season's leaderboard); ``cups`` is the total after the
    player's last cup change of the season (the total now, for the current season) and
    ``best_cups`` the highest total reached during it, counting the total the season opened
    with (right after its soft reset). The row is opened at the player's first match or cup
    change of the season, with the total of that moment.
    """

    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="season_stats"
    )
    season = models.PositiveIntegerField(help_text="The season's number.")
    ranked_played = models.PositiveIntegerField(default=0)
    ranked_won = models.PositiveIntegerField(default=0)
    cups = models.IntegerField()
    best_cups = models.IntegerField()

    class Meta:
        verbose_name_plural = "season stats"
        ordering = ["player", "-season"]
        indexes = [
            models.Index(
                fields=["season", "player"],
                condition=ON_THE_SEASONS_BOARD,
                name="season_board_members",
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=["player", "season"], name="one_stats_row_per_season"),
            models.CheckConstraint(
                condition=models.Q(best_cups__gte=models.F("cups")),
                name="season_best_cups_is_best",
            ),
            models.CheckConstraint(
                condition=models.Q(ranked_won__lte=models.F("ranked_played"))
                & models.Q(ranked_played__lte=models.F("matches_played")),
                name="ranked_within_played",
            ),
            *_counts_constraints("season_"),
        ]

    def __str__(self):
        return f"season {self.season} stats of {self.player}"


# --- Partners, opponents and streaks (KORT_RULES §12), and the figures per mode ---------------

ALL_SEASONS = 0
"""The ``season`` of the rows over all time (season numbers start at 1)."""
ALL_MODES = "all"
"""The ``mode`` of the rows over room and ranked matches alike (KORT_RULES §12)."""
MODES = (ALL_MODES, "ranked", "room")


class PairSide(models.TextChoices):
    """Where the other player sat: in the player's team, or in the other one (§12)."""

    PARTNER = "partner"
    OPPONENT = "opponent"


class PairFigures(models.Model):
    """What a player did with (``partner``) or against (``opponent``) another player over
    their finalized, not void, matches (KORT_RULES §12): ``matches`` played, ``won`` by the
    player, ``cups`` the sum of the player's cup changes in them (0 for room matches). One
    row per (player, side, season, mode, other), for each season (``season`` N) and over all
    time (:data:`ALL_SEASONS`), for each mode and over both (:data:`ALL_MODES`), so a table
    of any of them is read in order from ``pair_table_order``. Bots count as the other player
    like humans; only human players have rows of their own (bots have no statistics, §8). A
    void takes its match back out (a row may fall to 0 matches: no pair is shown then)."""

    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="pairs")
    other = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    side = models.CharField(max_length=8, choices=PairSide.choices)
    season = models.PositiveIntegerField(help_text="The season's number; 0: all time.")
    mode = models.CharField(max_length=6, help_text="ranked, room, or all: both.")
    matches = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    cups = models.IntegerField(default=0)

    class Meta:
        verbose_name_plural = "pair figures"
        indexes = [
            models.Index(
                "player",
                "side",
                "season",
                "mode",
                models.F("matches").desc(),
                "other",
                name="pair_table_order",
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "side", "season", "mode", "other"], name="one_pair_row"
            ),
            models.CheckConstraint(
                condition=models.Q(won__lte=models.F("matches")), name="pair_won_within_played"
            ),
            models.CheckConstraint(condition=models.Q(mode__in=MODES), name="pair_mode_known"),
        ]

    def __str__(self):
        return f"{self.side} {self.other_id} of {self.player_id} ({self.season}, {self.mode})"


class StreakFigures(models.Model):
    """A player's win and loss streaks (KORT_RULES §12) over their finalized, not void,
    matches of ``season`` (0: all time) and ``mode`` (``all``: both), ordered by completion
    time, then match id: the ``current`` run of each kind (one of the two is 0 once a match
    counts) and the ``best`` ever. The current run goes from the match
    ``current_first_completed_at`` / ``current_first_match`` to the latest match counted,
    ``last_completed_at`` / ``last_match``; the runs before it are :class:`EndedRun` rows
    (``stats.services``)."""

    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="streaks")
    season = models.PositiveIntegerField(help_text="The season's number; 0: all time.")
    mode = models.CharField(max_length=6, help_text="ranked, room, or all: both.")
    win_current = models.PositiveIntegerField(default=0)
    win_best = models.PositiveIntegerField(default=0)
    loss_current = models.PositiveIntegerField(default=0)
    loss_best = models.PositiveIntegerField(default=0)
    last_completed_at = models.DateTimeField(null=True, blank=True)
    last_match = models.BigIntegerField(null=True, blank=True)
    current_first_completed_at = models.DateTimeField(null=True, blank=True)
    current_first_match = models.BigIntegerField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "streak figures"
        constraints = [
            models.UniqueConstraint(fields=["player", "season", "mode"], name="one_streak_row"),
            models.CheckConstraint(
                condition=models.Q(win_current__lte=models.F("win_best"))
                & models.Q(loss_current__lte=models.F("loss_best"))
                & (models.Q(win_current=0) | models.Q(loss_current=0)),
                name="streaks_current_within_best",
            ),
            models.CheckConstraint(condition=models.Q(mode__in=MODES), name="streak_mode_known"),
        ]

    def __str__(self):
        return f"streaks of {self.player_id} ({self.season}, {self.mode})"


class EndedRun(models.Model):
    """A run of a player's streaks (KORT_RULES §12) that has ended: ``length`` consecutive
    matches of ``season`` (0: all time) and ``mode`` (``all``: both), all ``won`` or all lost,
    in completion order then match id, from the match ``first_match`` (completed
    ``first_completed_at``) to ``last_match``. The run that includes the latest match is the
    current one, held by the :class:`StreakFigures` row. A match counted in or voided changes
    the runs next to it alone (``stats.services``): they are found by their first match
    (``ended_run_order``), the best of each kind by length (``ended_run_length``)."""

    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    season = models.PositiveIntegerField(help_text="The season's number; 0: all time.")
    mode = models.CharField(max_length=6, help_text="ranked, room, or all: both.")
    won = models.BooleanField()
    first_completed_at = models.DateTimeField()
    first_match = models.BigIntegerField()
    last_completed_at = models.DateTimeField()
    last_match = models.BigIntegerField()
    length = models.PositiveIntegerField()

    class Meta:
        indexes = [
            models.Index(
                "player",
                "season",
                "mode",
                "won",
                models.F("length").desc(),
                name="ended_run_length",
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "season", "mode", "first_completed_at", "first_match"],
                name="ended_run_order",
            ),
            models.CheckConstraint(condition=models.Q(length__gt=0), name="ended_run_not_empty"),
            models.CheckConstraint(condition=models.Q(mode__in=MODES), name="ended_run_mode_known"),
        ]

    def __str__(self):
        return f"run of {self.player_id} ({self.season}, {self.mode}) from {self.first_match}"


class ModeStats(StatsCounts):
    """A player's §8 counts over the matches of one mode (``ranked`` or ``room``), over all
    time (``season`` 0) or over one season (API.md "Players": ``?mode=``)."""

    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="mode_stats"
    )
    season = models.PositiveIntegerField(help_text="The season's number; 0: all time.")
    mode = models.CharField(max_length=6, help_text="ranked or room.")

    class Meta:
        verbose_name_plural = "mode stats"
        constraints = [
            models.UniqueConstraint(fields=["player", "season", "mode"], name="one_mode_row"),
            models.CheckConstraint(
                condition=models.Q(mode__in=MODES[1:]), name="mode_stats_mode_known"
            ),
            *_counts_constraints("mode_"),
        ]

    def __str__(self):
        return f"{self.mode} stats of {self.player} ({self.season})"

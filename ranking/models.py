"""The cups ledger and the ladder's seasons (KORT_RULES §7, §10, §11; API.md "Leaderboard",
"Seasons")."""

from django.db import models
from django.db.models import Q

from players.models import Player
from seasons.models import Season


class CupKind(models.TextChoices):
    MATCH = "match"
    SEASON_RESET = "season_reset"
    VOID = "void"


class CupChange(models.Model):
    """One row of the cups ledger: one cup change of one player, so a player's cups are the sum
    of their rows (§7, §10).

    ``kind``: ``match``, the cups a finalized ranked match gave (one row per match and player,
    so a match's cups are applied exactly once); ``season_reset``, the soft reset that opened
    ``season`` (no match; one per season and player, written only when it changes the total);
    ``void``, the reversal of a voided match (at most one per match and player, §11).
    ``season`` is the number of the season the change belongs to: the match's season, the
    season the reset opened, the season current when the match was voided. ``cups_after`` is
    the player's total right after the change.

    Both keys are checked by the database (a reset has no match). Rows are written only by
    ``ranking.ladder``, for players whose rows it holds locked, so the player key's check (one
    lookup of the player's row per ledger row, at the transaction's end) never waits. It costs
    the season's reset most, a row per player: measured on PostgreSQL, a batch of 20,000 of the
    reset's ledger rows took about 0.25 s more with the check (12.5 us a row among a million
    players, 9.4 us among 20,000), some 10% of a batch of the reset; at a million players about
    12 s more for the reset, written after the next season opened while its matches are
    finalized. A finalization adds four rows, some 50 us. Players are never deleted
    (``PROTECT``).
    """

    kind = models.CharField(max_length=12, choices=CupKind.choices, default=CupKind.MATCH)
    match = models.ForeignKey(
        "matches.Match",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="cup_changes",
        db_index=False,  # cup_changes_of_a_match: the resets' rows, with none, left out
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="cup_changes",
        db_index=False,  # cup_changes_newest_first starts with the player
    )
    season = models.PositiveIntegerField(help_text="The season's number.")
    delta = models.IntegerField()
    cups_after = models.IntegerField(help_text="The player's total right after this change.")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["player", "-created_at", "-id"], name="cup_changes_newest_first"),
            models.Index(
                fields=["match"], condition=Q(match__isnull=False), name="cup_changes_of_a_match"
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "player"],
                condition=Q(kind="match"),
                name="one_cup_change_per_match_player",
            ),
            models.UniqueConstraint(
                fields=["match", "player"],
                condition=Q(kind="void"),
                name="one_void_per_match_player",
            ),
            models.UniqueConstraint(
                fields=["season", "player"],
                condition=Q(kind="season_reset"),
                name="one_reset_per_season_player",
            ),
            models.CheckConstraint(
                condition=Q(kind="season_reset", match__isnull=True)
                | (~Q(kind="season_reset") & Q(match__isnull=False)),
                name="a_match_unless_a_reset",
            ),
            models.CheckConstraint(condition=Q(season__gte=1), name="cup_change_season_from_one"),
        ]

    def __str__(self):
        return f"{self.player} {self.delta:+d} ({self.kind}, season {self.season})"


class BoardCount(models.Model):
    """How many players of a season's board hold exactly ``cups`` (KORT_RULES §10; API.md
    "Leaderboard"): the counted structure that ranks and pages at any depth read instead of
    counting players. Written only through ``ranking.board.board_moves`` (and rebuilt by
    ``rebuild_ladder --fix``); a count may drop to 0 and its row stay."""

    season = models.PositiveIntegerField()
    cups = models.IntegerField()
    players = models.IntegerField()

    class Meta:
        ordering = ["season", "-cups"]
        constraints = [
            models.UniqueConstraint(fields=["season", "cups"], name="one_board_count_per_cups")
        ]

    def __str__(self):
        return f"season {self.season}: {self.players} player(s) on {self.cups} cups"


class BoardTotal(models.Model):
    """The number of players on a season's board, kept beside its counts in the same
    transactions: the counts are trusted only while they add up to it, and a season with
    players on its board but no total has lost its counts (see ``ranking.board``)."""

    season = models.PositiveIntegerField(unique=True)
    players = models.IntegerField()

    def __str__(self):
        return f"season {self.season}: {self.players} player(s) on the board"


FINALIZED_SLOTS = 16
"""The rows of :class:`FinalizedCount`: finalizations of different matches mostly add to
different rows, so they rarely wait for each other's."""


class FinalizedCount(models.Model):
    """How many matches were ever finalized (``kort_matches_finalized_total``), kept in
    up to :data:`FINALIZED_SLOTS` rows that a scrape adds up: a finalization adds 1 to the row
    of its match's id modulo the slots, in its own transaction (``ranking.services``).
    A void takes nothing off: a voided match was finalized once (KORT_RULES §11)."""

    slot = models.PositiveSmallIntegerField(primary_key=True)
    matches = models.BigIntegerField(default=0)

    def __str__(self):
        return f"slot {self.slot}: {self.matches} match(es) finalized"


class SeasonStanding(models.Model):
    """One row of a finalized season's frozen final standings (KORT_RULES §10): a player of the
    season's leaderboard at its end, with their final rank, cups at the end, best cups in the
    season and the season's ranked matches played and won. Never rewritten: a later void
    lands in the season current then (§11).

    The rows are written only by the season's end, a million in one ``INSERT ... SELECT`` from
    the players' rows, in the step holding the season end's progress row
    (``ranking.season_end.standings_freeze``), so their season and players exist by
    construction, and neither players nor seasons are ever deleted: the two foreign keys are
    not checked by the database (a check per row and key would be most of the statement's
    time). The season's index is the unique constraints', which start with it."""

    season = models.ForeignKey(
        Season,
        on_delete=models.PROTECT,
        related_name="standings",
        db_constraint=False,
        db_index=False,
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="season_standings", db_constraint=False
    )
    rank = models.PositiveIntegerField()
    cups = models.IntegerField()
    best_cups = models.IntegerField()
    matches_played = models.PositiveIntegerField()
    matches_won = models.PositiveIntegerField()

    class Meta:
        ordering = ["season", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["season", "rank"], name="one_player_per_final_rank"),
            models.UniqueConstraint(fields=["season", "player"], name="one_final_rank_per_player"),
            models.CheckConstraint(condition=Q(rank__gte=1), name="final_rank_from_one"),
            models.CheckConstraint(
                condition=Q(matches_won__lte=models.F("matches_played")) & Q(matches_played__gte=1),
                name="standing_matches_within_played",
            ),
        ]

    def __str__(self):
        return f"season {self.season_id} #{self.rank}: {self.player}"


class SeasonEndStep(models.TextChoices):
    MATCHES = "matches"
    STANDINGS = "standings"
    RESET = "reset"
    OPEN = "open"
    DONE = "done"


class SeasonEnd(models.Model):
    """The progress of a season's end (KORT_RULES §10), written with each step so that a run
    stopped half-way is resumed at the step it stopped in.

    ``step``: finalizing the season's completed matches, freezing the standings (one
    statement), the switch opening the next season (``open``), writing its soft reset to the
    players' rows a batch at a time (``reset``; ``cursor``: the last player id written), done.
    ``standings``: the ranks frozen. ``reset_floor`` is the ``KORT_SEASON_RESET_FLOOR`` read
    when the end was claimed, the T of its reset. One run at a time drives the end: the one
    holding ``runner`` until ``lease_until``, renewed with every step.
    """

    season = models.OneToOneField(
        Season, on_delete=models.PROTECT, primary_key=True, related_name="end"
    )
    step = models.CharField(
        max_length=10, choices=SeasonEndStep.choices, default=SeasonEndStep.MATCHES
    )
    reset_floor = models.PositiveIntegerField()
    cursor = models.JSONField(null=True, blank=True)
    standings = models.PositiveIntegerField(default=0)
    batches = models.PositiveIntegerField(default=0)
    runner = models.CharField(max_length=40, blank=True, default="")
    lease_until = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"end of season {self.season_id}: {self.step}"

"""Matches, their seats and rounds (KORT_RULES §1, §2, §5; API.md "Matches"). The live Bavan
vote's models are in ``matches.live_vote.models``; importing them here makes them this app's
models. Bazar Belote score sheets are the ``belote`` app's."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from django.db import models
from django.db.models import Q

from matches.fields import TEAM_CHOICES, choices_of
from matches.kort.rules import (
    BavanDecision,
    Mode,
    Outcome,
    RoundResult,
    Team,
    counts_as_bot,
    team_of,
)
from matches.live_vote import models as live_vote_models  # noqa: F401  (registers them)


class MatchStatus(models.TextChoices):
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FINALIZED = "finalized"
    VOID = "void"


class MatchColumns(Protocol):
    """The columns of a match that :class:`MatchFacts` reads: a ``Match``'s, or a plain
    value's of the same names (``matches.history.MatchValue``)."""

    @property
    def mode(self) -> str: ...

    @property
    def wins_a(self) -> int: ...

    @property
    def wins_b(self) -> int: ...

    @property
    def finalized_at(self) -> datetime | None: ...


class MatchFacts:
    """What a match's columns tell, the same for the model and for a plain value of its
    columns (:class:`MatchColumns`)."""

    @property
    def wins(self: MatchColumns) -> dict[Team, int]:
        return {Team.A: self.wins_a, Team.B: self.wins_b}

    @property
    def is_ranked(self: MatchColumns) -> bool:
        return self.mode == Mode.RANKED

    @property
    def gave_cups(self: MatchColumns) -> bool:
        """Whether the match gave cups: a ranked match, once finalized (KORT_RULES §7)."""
        return self.finalized_at is not None and self.mode == Mode.RANKED


class Match(MatchFacts, models.Model):
    """A series of rounds to ``target_wins`` (3 ranked, 7 room). ``next_trump_seat`` is the
    caller the next reported round must name (KORT_RULES §5); ``status`` goes in_progress →
    completed (a team reached the target) → finalized (cups and statistics applied), and an
    admin may then void it (→ void: its cups reversed and its statistics taken back, §11).
    ``season`` is the number of the season in which it was completed (§10).
    ``require_play``: every round must be reported with its full record (API.md "play")."""

    mode = models.CharField(max_length=8, choices=choices_of(Mode))
    target_wins = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=12, choices=MatchStatus.choices, default=MatchStatus.IN_PROGRESS
    )
    first_trump_seat = models.PositiveSmallIntegerField()
    next_trump_seat = models.PositiveSmallIntegerField()
    wins_a = models.PositiveSmallIntegerField(default=0)
    wins_b = models.PositiveSmallIntegerField(default=0)
    winner = models.CharField(max_length=1, choices=TEAM_CHOICES, null=True, blank=True)
    external_id = models.CharField(max_length=120, null=True, blank=True)
    service_key = models.ForeignKey(
        "rest_framework_api_key.APIKey",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches",
    )
    client_version = models.CharField(max_length=40, blank=True, default="")
    require_play = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    finalized_at = models.DateTimeField(null=True, blank=True)
    season = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The number of the season in which the match was completed (KORT_RULES §10).",
    )
    void_reason = models.TextField(blank=True, default="")
    voided_at = models.DateTimeField(null=True, blank=True)
    void_season = models.PositiveIntegerField(
        null=True, blank=True, help_text="The season in which the void's reversal was written."
    )
    create_body = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="The body that created the match: mode, seats, first_trump_seat and rounds "
        "(API.md: a resend with its external_id is compared with it).",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
        permissions = [("void_match", "Can void a finalized match (KORT_RULES §11)")]
        indexes = [
            models.Index(fields=["season", "status"], name="match_season_status"),
            # The sweeper's and ladder_status's question: which matches await finalization?
            models.Index(
                fields=["completed_at"],
                condition=Q(status="completed"),
                name="match_awaiting_finalization",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["service_key", "external_id"],
                condition=Q(external_id__isnull=False),
                name="one_match_per_external_id",
            ),
            models.CheckConstraint(
                condition=Q(mode="ranked", target_wins=3) | Q(mode="room", target_wins=7),
                name="target_wins_by_mode",
            ),
            models.CheckConstraint(
                condition=Q(first_trump_seat__lte=3) & Q(next_trump_seat__lte=3),
                name="trump_seats_in_range",
            ),
            models.CheckConstraint(
                condition=Q(status="in_progress", winner__isnull=True)
                | (~Q(status="in_progress") & Q(winner__isnull=False)),
                name="winner_iff_match_over",
            ),
            models.CheckConstraint(
                condition=Q(status="in_progress", season__isnull=True)
                | (~Q(status="in_progress") & Q(season__isnull=False)),
                name="season_iff_match_over",
            ),
            models.CheckConstraint(
                condition=(
                    Q(status="void", voided_at__isnull=False, void_season__isnull=False)
                    & ~Q(void_reason="")
                )
                | (
                    ~Q(status="void")
                    & Q(voided_at__isnull=True, void_season__isnull=True, void_reason="")
                ),
                name="void_reason_and_time_iff_void",
            ),
        ]

    def __str__(self):
        return f"match {self.pk} ({self.mode})"

    seats_in_hand: list[Seat] | None = None
    """Not stored: the match's seats by seat as a write holds them (``matches.services``), or
    None: :meth:`seats_in_order` reads them then."""
    rounds_in_hand: list[Round] | None = None
    """Not stored: the match's rounds by number as a write holds them (``matches.services``),
    or None: :meth:`rounds_in_order` reads them then."""

    def seats_in_order(self) -> list[Seat]:
        """The match's seats by seat: those in hand, else as read (along, with
        ``matches.selectors.SEATS_IN_ORDER``)."""
        if self.seats_in_hand is not None:
            return self.seats_in_hand
        return sorted(self.seats.all(), key=lambda seat: seat.seat)

    def rounds_in_order(self) -> list[Round]:
        """The match's rounds by number: those in hand, else as read (along, with
        ``matches.selectors.ROUNDS_IN_ORDER``)."""
        if self.rounds_in_hand is not None:
            return self.rounds_in_hand
        return sorted(self.rounds.all(), key=lambda round_: round_.number)

    def seat_player_ids(self) -> list[int]:
        """The player ids of seats 0..3 (:meth:`seats_in_order`)."""
        return [seat.player_id for seat in self.seats_in_order()]


class SeatColumns(Protocol):
    """The columns of a seat that :class:`SeatFacts` reads: a ``Seat``'s (its player's bot
    flag through the player), or a plain value's of the same names
    (``matches.details.SeatValue``)."""

    @property
    def seat(self) -> int: ...

    @property
    def player_is_bot(self) -> bool: ...

    @property
    def left_at(self) -> datetime | None: ...


class SeatFacts:
    """What a seat's columns tell, the same for the model and for a plain value of its
    columns (:class:`SeatColumns`)."""

    @property
    def team(self: SeatColumns) -> Team:
        return team_of(self.seat)

    @property
    def counts_as_bot(self: SeatColumns) -> bool:
        """Whether a bot plays and votes for this seat (KORT_RULES §4, §9)."""
        return counts_as_bot(self.player_is_bot, self.left_at is not None)


class Seat(SeatFacts, models.Model):
    """A player's seat (0..3) in a match; team A = seats 0 and 2, team B = seats 1 and 3.
    ``match_created_at`` repeats the match's ``created_at`` (never changed after creation), so
    the "My games" history pages by keyset at any depth (API.md "Players")."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="seats")
    left_at = models.DateTimeField(null=True, blank=True)
    match_created_at = models.DateTimeField(
        editable=False,
        help_text="The match's creation time, copied when the seat is made: a player's history "
        "is read newest first through the index over (player, this, match).",
    )

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["match", "player"], name="one_seat_per_player"),
            models.CheckConstraint(condition=Q(seat__lte=3), name="seat_in_range"),
        ]
        indexes = [
            models.Index(
                fields=["player", "-match_created_at", "-match"], name="seat_history_order"
            )
        ]

    def __str__(self):
        return f"seat {self.seat} of match {self.match_id}: {self.player_id}"

    @property
    def player_is_bot(self) -> bool:
        return self.player.is_bot


class RoundStatus(models.TextChoices):
    VOTING = "voting"
    BAVAN = "bavan"
    FINISHED = "finished"


class RoundColumns(Protocol):
    """The columns of a round that :class:`RoundFacts` reads: a ``Round``'s, or a plain
    value's of the same names (``matches.history.HistoryRound``)."""

    @property
    def trump_seat(self) -> int: ...

    @property
    def tricks_a(self) -> int: ...

    @property
    def tricks_b(self) -> int: ...

    @property
    def outcome(self) -> str | None: ...

    @property
    def winner(self) -> str | None: ...

    @property
    def wins_awarded(self) -> int | None: ...

    @property
    def shutout_team(self) -> str | None: ...


class RoundFacts:
    """What a round's columns tell, the same for the model and for a plain value of its
    columns (:class:`RoundColumns`)."""

    @property
    def tricks(self: RoundColumns) -> dict[Team, int]:
        return {Team.A: self.tricks_a, Team.B: self.tricks_b}

    @property
    def result(self: RoundColumns) -> RoundResult:
        """The stored round as the rules module's value object (finished rounds only)."""
        return stored_result(
            self.trump_seat, self.outcome, self.winner, self.wins_awarded, self.shutout_team
        )


class Round(RoundFacts, models.Model):
    """A reported round. A finished round carries the outcome the rules gave it (KORT_RULES §2);
    a round at 7:0 with a live vote is ``voting``, then ``bavan`` (going for Bavan, awaiting its
    finish) or finished as a Kort / At-kort (§4). ``report`` keeps the report's canonical body
    and ``play`` its full record in canonical wire form (None for a summary round), so a resend
    can be recognised and the record replayed."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    trump_seat = models.PositiveSmallIntegerField()
    tricks_a = models.PositiveSmallIntegerField()
    tricks_b = models.PositiveSmallIntegerField()
    bavan = models.CharField(max_length=4, choices=choices_of(BavanDecision), null=True, blank=True)
    bavan_votes = models.JSONField(default=list, blank=True)
    status = models.CharField(
        max_length=8, choices=RoundStatus.choices, default=RoundStatus.FINISHED
    )
    outcome = models.CharField(max_length=12, choices=choices_of(Outcome), null=True, blank=True)
    winner = models.CharField(max_length=1, choices=TEAM_CHOICES, null=True, blank=True)
    wins_awarded = models.PositiveSmallIntegerField(null=True, blank=True)
    shutout_team = models.CharField(max_length=1, choices=TEAM_CHOICES, null=True, blank=True)
    report = models.JSONField(default=dict)
    play = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_round_per_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_from_one"),
            models.CheckConstraint(
                condition=Q(tricks_a__lte=13) & Q(tricks_b__lte=13) & Q(trump_seat__lte=3),
                name="round_values_in_range",
            ),
            models.CheckConstraint(
                condition=Q(
                    status="finished",
                    outcome__isnull=False,
                    winner__isnull=False,
                    wins_awarded__isnull=False,
                )
                | (
                    ~Q(status="finished")
                    & Q(outcome__isnull=True, winner__isnull=True, wins_awarded__isnull=True)
                ),
                name="outcome_iff_round_finished",
            ),
            models.UniqueConstraint(
                fields=["match"],
                condition=~Q(status="finished"),
                name="one_open_round_per_match",
            ),
        ]

    def __str__(self):
        return f"round {self.number} of match {self.match_id}: {self.outcome or self.status}"


def stored_result(
    trump_seat: int,
    outcome: str | None,
    winner: str | None,
    wins_awarded: int | None,
    shutout_team: str | None,
) -> RoundResult:
    """A finished round's stored columns as the rules module's value object."""
    # A finished round has all three (the outcome_iff_round_finished constraint).
    assert outcome is not None
    assert winner is not None
    assert wins_awarded is not None
    return RoundResult(
        outcome=Outcome(outcome),
        winner=Team(winner),
        wins_awarded=wins_awarded,
        trump_team=team_of(trump_seat),
        shutout_team=Team(shutout_team) if shutout_team else None,
    )

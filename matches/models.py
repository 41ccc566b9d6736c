"""Matches, their seats and rounds, and live Bavan votes (KORT_RULES §1, §2, §4, §5; API.md
"Matches" and "Live Bavan vote"), and Bazar Belote score sheets (BELOTE_SCORING §5; API.md
"Bazar Belote")."""

from datetime import timedelta

from django.db import models
from django.db.models import Q
from django.db.models.functions import Mod
from django.db.models.lookups import Exact, In

from matches.belote.scoring import (
    ALL_TRUMPS,
    ALL_TRUMPS_DECK_WHISTS,
    MAX_KONTRA,
    SUIT_DECK_WHISTS,
    SUITS,
    Breakdown,
    Contract,
    Deal,
    DealScore,
    Pair,
    PerPair,
)
from matches.kort.rules import BavanDecision, Mode, Outcome, RoundResult, Team, Vote, team_of

TEAM_CHOICES = [(t.value, t.value) for t in Team]


class MatchStatus(models.TextChoices):
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FINALIZED = "finalized"


class Match(models.Model):
    """A series of rounds to ``target_wins`` (3 ranked, 7 room). ``next_trump_seat`` is the
    caller the next reported round must name (KORT_RULES §5); ``status`` goes in_progress →
    completed (a team reached the target) → finalized (cups and statistics applied).
    ``require_play``: every round must be reported with its full record (API.md "play")."""

    mode = models.CharField(max_length=8, choices=[(m.value, m.value) for m in Mode])
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

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
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
        ]

    def __str__(self):
        return f"match {self.pk} ({self.mode})"

    @property
    def wins(self) -> dict[Team, int]:
        return {Team.A: self.wins_a, Team.B: self.wins_b}

    @property
    def is_ranked(self) -> bool:
        return self.mode == Mode.RANKED


class Seat(models.Model):
    """A player's seat (0..3) in a match; team A = seats 0 and 2, team B = seats 1 and 3."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="seats")
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["match", "player"], name="one_seat_per_player"),
            models.CheckConstraint(condition=Q(seat__lte=3), name="seat_in_range"),
        ]

    def __str__(self):
        return f"seat {self.seat} of match {self.match_id}: {self.player_id}"

    @property
    def team(self) -> Team:
        return team_of(self.seat)


class VoteStatus(models.TextChoices):
    OPEN = "open"
    GO = "go"
    REFUSED = "refused"


class BavanVote(models.Model):
    """The live Bavan vote of a round that reached 7:0 (KORT_RULES §4): ``team`` votes from
    ``opened_at`` until ``deadline`` (``KORT_BAVAN_VOTE_SECONDS`` later); ``status`` goes from
    open to go or refused exactly once, stamped ``resolved_at``."""

    # The round's own ``play`` becomes the complete record when a Bavan is finished with one;
    # ``opening_play`` keeps what the vote was opened with, for the shown hands and resends.

    round = models.OneToOneField("Round", on_delete=models.CASCADE, related_name="bavan_vote")
    team = models.CharField(max_length=1, choices=TEAM_CHOICES)
    opened_at = models.DateTimeField()
    deadline = models.DateTimeField()
    status = models.CharField(max_length=8, choices=VoteStatus.choices, default=VoteStatus.OPEN)
    resolved_at = models.DateTimeField(null=True, blank=True)
    opening_play = models.JSONField(
        null=True,
        blank=True,
        help_text="The record of the first 7 tricks the vote was opened with (the hands shown); "
        "null for a vote opened in summary form. The round keeps the complete record.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status="open", resolved_at__isnull=True)
                | (~Q(status="open") & Q(resolved_at__isnull=False)),
                name="resolved_at_iff_vote_resolved",
            ),
            models.CheckConstraint(
                condition=Q(deadline__gt=models.F("opened_at")), name="vote_deadline_after_opening"
            ),
        ]

    def __str__(self):
        return f"Bavan vote of team {self.team} in round {self.round_id}: {self.status}"

    @property
    def length_ms(self) -> int:
        """The vote's length in milliseconds (30 000 by the rules)."""
        return (self.deadline - self.opened_at) // timedelta(milliseconds=1)


class SeatVote(models.Model):
    """One seat's vote in a live Bavan vote, as cast at ``at``; ``by_bot`` marks a vote a bot
    cast for a bot seat or for a player who left (KORT_RULES §4). One per seat: a vote cannot
    be changed."""

    vote = models.ForeignKey(BavanVote, on_delete=models.CASCADE, related_name="seat_votes")
    seat = models.PositiveSmallIntegerField()
    choice = models.CharField(max_length=5, choices=[(v.value, v.value) for v in Vote])
    at = models.DateTimeField()
    by_bot = models.BooleanField(default=False)

    class Meta:
        ordering = ["vote", "at", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["vote", "seat"], name="one_vote_per_seat"),
            models.CheckConstraint(condition=Q(seat__lte=3), name="vote_seat_in_range"),
        ]

    def __str__(self):
        return f"seat {self.seat} votes {self.choice} in vote {self.vote_id}"


class RoundStatus(models.TextChoices):
    VOTING = "voting"
    BAVAN = "bavan"
    FINISHED = "finished"


class Round(models.Model):
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
    bavan = models.CharField(
        max_length=4, choices=[(d.value, d.value) for d in BavanDecision], null=True, blank=True
    )
    bavan_votes = models.JSONField(default=list, blank=True)
    status = models.CharField(
        max_length=8, choices=RoundStatus.choices, default=RoundStatus.FINISHED
    )
    outcome = models.CharField(
        max_length=12, choices=[(o.value, o.value) for o in Outcome], null=True, blank=True
    )
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

    @property
    def tricks(self) -> dict[Team, int]:
        return {Team.A: self.tricks_a, Team.B: self.tricks_b}

    @property
    def result(self) -> RoundResult:
        """The stored round as the rules module's value object (finished rounds only)."""
        return RoundResult(
            outcome=Outcome(self.outcome),
            winner=Team(self.winner),
            wins_awarded=self.wins_awarded,
            trump_team=team_of(self.trump_seat),
            shutout_team=Team(self.shutout_team) if self.shutout_team else None,
        )


# --- Bazar Belote score sheets (BELOTE_SCORING §5; API.md "Bazar Belote") ----------------------


class BelotePair(models.TextChoices):
    """The two columns of a score sheet."""

    PAIR_1 = "pair_1"
    PAIR_2 = "pair_2"

    @property
    def other(self) -> "BelotePair":
        return BelotePair.PAIR_2 if self is BelotePair.PAIR_1 else BelotePair.PAIR_1


class BeloteProtocol(models.Model):
    """A Bazar Belote score sheet ("protocol") for two pairs, shown under their display names.
    Its totals and bait marks are sums over its deals (``matches.belote_selectors``)."""

    pair_1 = models.CharField(max_length=60)
    pair_2 = models.CharField(max_length=60)
    service_key = models.ForeignKey(
        "rest_framework_api_key.APIKey",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="belote_protocols",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(pair_1=models.F("pair_2")), name="belote_pair_names_differ"
            ),
        ]

    def __str__(self):
        return f"protocol {self.pk}: {self.pair_1} / {self.pair_2}"

    def pair_name(self, pair: BelotePair) -> str:
        return self.pair_1 if pair == BelotePair.PAIR_1 else self.pair_2


def _multiple_of_ten(field: str) -> Exact:
    return Exact(Mod(models.F(field), 10), 0)


class BeloteDeal(models.Model):
    """One scored deal of a protocol, numbered from 1 in the order it was added. Holds the deal
    as the scorer saw it (BELOTE_SCORING §1, trick whists counted when cards were given) and its
    result (§5) from the side of the playing and the whisting pair; ``playing_pair`` says which
    column of the sheet played the contract."""

    protocol = models.ForeignKey(BeloteProtocol, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField()
    playing_pair = models.CharField(max_length=6, choices=BelotePair.choices)
    contract = models.CharField(max_length=16, choices=[(c.value, c.value) for c in Contract])
    suit = models.CharField(
        max_length=2, choices=[(s, s) for s in (*SUITS, ALL_TRUMPS)], null=True, blank=True
    )
    contract_number = models.PositiveSmallIntegerField(help_text="N, or K for a Kapo")
    kontra = models.PositiveSmallIntegerField(default=0)
    trick_whists_playing = models.PositiveSmallIntegerField()
    trick_whists_whisting = models.PositiveSmallIntegerField()
    constructions_playing = models.PositiveSmallIntegerField(default=0)
    constructions_whisting = models.PositiveSmallIntegerField(default=0)
    playing_took_tricks = models.BooleanField()
    whisting_took_tricks = models.BooleanField()
    played = models.BooleanField()
    points_playing = models.PositiveIntegerField()
    points_whisting = models.PositiveIntegerField()
    bait = models.CharField(
        max_length=8, choices=[(p.value, p.value) for p in Pair], null=True, blank=True
    )
    breakdown = models.JSONField(help_text="C, PC, Pp, Pv (points) and Vp, Vv (whists)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["protocol", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["protocol", "number"], name="one_belote_deal_per_number"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="belote_deal_number_from_one"),
            models.CheckConstraint(
                condition=Q(playing_pair__in=BelotePair.values), name="belote_playing_pair_known"
            ),
            models.CheckConstraint(
                condition=Q(kontra__lte=MAX_KONTRA) & Q(contract_number__gte=1),
                name="belote_kontra_and_number_in_range",
            ),
            models.CheckConstraint(
                condition=In(
                    models.F("trick_whists_playing") + models.F("trick_whists_whisting"),
                    [SUIT_DECK_WHISTS, ALL_TRUMPS_DECK_WHISTS],
                ),
                name="belote_trick_whists_add_up_to_the_deck",
            ),
            models.CheckConstraint(
                condition=_multiple_of_ten("constructions_playing")
                & _multiple_of_ten("constructions_whisting"),
                name="belote_constructions_in_tens",
            ),
            models.CheckConstraint(
                # bait__isnull=False keeps a NULL bait from making the check unknown (= passed).
                condition=Q(played=False, bait__isnull=False, bait=Pair.PLAYING.value)
                | Q(played=True, kontra=0, bait__isnull=True)
                | Q(played=True, kontra__gte=1, bait__isnull=False, bait=Pair.WHISTING.value),
                name="belote_bait_follows_the_result",
            ),
        ]

    def __str__(self):
        return f"deal {self.number} of protocol {self.protocol_id}: {self.contract}"

    def sheet_pair(self, pair: Pair) -> BelotePair:
        """The column of the sheet that was the ``pair`` (playing or whisting) in this deal."""
        playing = BelotePair(self.playing_pair)
        return playing if pair is Pair.PLAYING else playing.other

    @property
    def deal(self) -> Deal:
        """The stored deal as the scorer's value object."""
        return Deal(
            contract=Contract(self.contract),
            suit=self.suit,
            number=self.contract_number,
            kontra=self.kontra,
            tricks_whists=PerPair(self.trick_whists_playing, self.trick_whists_whisting),
            constructions=PerPair(self.constructions_playing, self.constructions_whisting),
            playing_took_tricks=self.playing_took_tricks,
            whisting_took_tricks=self.whisting_took_tricks,
        )

    @property
    def score(self) -> DealScore:
        """The stored result as the scorer's value object."""
        return DealScore(
            played=self.played,
            points=PerPair(self.points_playing, self.points_whisting),
            bait=Pair(self.bait) if self.bait else None,
            breakdown=Breakdown(**self.breakdown),
        )

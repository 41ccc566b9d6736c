"""Models of the live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote"): the vote of a round
that reached 7:0 and the seats' votes in it. They belong to the ``matches`` app."""

from datetime import datetime, timedelta

from django.db import models
from django.db.models import Q

from matches.fields import TEAM_CHOICES, choices_of
from matches.kort.rules import Vote

_MS = timedelta(milliseconds=1)


class VoteStatus(models.TextChoices):
    OPEN = "open"
    GO = "go"
    REFUSED = "refused"


def ms_after(opened_at: datetime, moment: datetime) -> int:
    """Whole milliseconds from a vote's opening at ``opened_at`` to ``moment``, rounded up, so
    that a moment even a microsecond after the deadline is past it (KORT_RULES §4). Every
    timing rule of the vote is judged in these milliseconds."""
    return -((opened_at - moment) // _MS)


class BavanVote(models.Model):
    """The live Bavan vote of a round that reached 7:0 (KORT_RULES §4): ``team`` votes from
    ``opened_at`` until ``deadline`` (``KORT_BAVAN_VOTE_SECONDS`` later); ``status`` goes from
    open to go or refused exactly once, stamped ``resolved_at``."""

    # The round's own ``play`` becomes the complete record when a Bavan is finished with one;
    # ``opening_play`` keeps what the vote was opened with, for the shown hands and resends.

    round = models.OneToOneField(
        "matches.Round", on_delete=models.CASCADE, related_name="bavan_vote"
    )
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
        indexes = [
            # The sweeper's question: which open votes are past their deadline or owe bot votes?
            models.Index(fields=["deadline"], condition=Q(status="open"), name="bavan_vote_open"),
        ]
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
        return (self.deadline - self.opened_at) // _MS

    def ms_at(self, moment: datetime) -> int:
        """Whole milliseconds from the vote's opening to ``moment`` (:func:`ms_after`)."""
        return ms_after(self.opened_at, moment)

    def moment_at(self, ms: int) -> datetime:
        """The moment ``ms`` milliseconds after the vote opened."""
        return self.opened_at + ms * _MS


class SeatVote(models.Model):
    """One seat's vote in a live Bavan vote, as cast at ``at``; ``by_bot`` marks a vote a bot
    cast for a bot seat or for a player who left (KORT_RULES §4). One per seat: a vote cannot
    be changed."""

    vote = models.ForeignKey(BavanVote, on_delete=models.CASCADE, related_name="seat_votes")
    seat = models.PositiveSmallIntegerField()
    choice = models.CharField(max_length=5, choices=choices_of(Vote))
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

"""The round report as the services take it (API.md "Matches", "Live Bavan vote"): a typed,
frozen value made by the API from the wire body. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from matches.kort.rules import BavanDecision, CastVote, Team, Vote


@dataclass(frozen=True, kw_only=True)
class RoundReport:
    """One reported round.

    ``trump_seat`` is the caller (0..3); ``tricks`` the final tricks by team, or None when only
    the record (``play``, the wire record of :mod:`matches.kort.replay`) is given; ``decision``
    the Bavan decision given at 7:0 (None: none given); ``live_vote`` True when the report opens
    a live vote at 7:0 instead (``"bavan": "vote"``, KORT_RULES §4); ``votes`` the reported
    votes as cast (None: not reported; an empty tuple is a vote in which both stayed silent);
    ``number`` the round's number, when the game server sends it.
    """

    trump_seat: int
    tricks: Mapping[Team, int] | None = None
    decision: BavanDecision | None = None
    live_vote: bool = False
    votes: tuple[CastVote, ...] | None = None
    play: Mapping[str, Any] | None = None
    number: int | None = None

    @classmethod
    def from_wire(cls, fields: Mapping[str, Any]) -> RoundReport:
        """The report of a wire body whose shapes are valid (``trump_seat`` an int 0..3,
        ``tricks`` ``{"A": n, "B": m}``, ``bavan`` ``go`` / ``stop`` / ``vote``,
        ``bavan_votes`` ``[{"seat", "vote", "at_ms"}]``, ``play``, ``number``)."""
        bavan = fields.get("bavan")
        votes = fields.get("bavan_votes")
        tricks = fields.get("tricks")
        return cls(
            trump_seat=fields["trump_seat"],
            tricks=None if tricks is None else {Team(team): n for team, n in tricks.items()},
            decision=None if bavan in (None, LIVE_VOTE) else BavanDecision(bavan),
            live_vote=bavan == LIVE_VOTE,
            votes=None if votes is None else tuple(_cast_vote(v) for v in votes),
            play=fields.get("play"),
            number=fields.get("number"),
        )

    def body(self) -> dict[str, Any]:
        """The report as stored for resend comparison: its wire fields in JSON types, without
        ``number`` and ``play`` (the record is stored and compared on its own) and without the
        fields not given."""
        body: dict[str, Any] = {"trump_seat": self.trump_seat}
        if self.tricks is not None:
            body["tricks"] = {str(team): n for team, n in self.tricks.items()}
        if self.live_vote:
            body["bavan"] = LIVE_VOTE
        elif self.decision is not None:
            body["bavan"] = self.decision.value
        if self.votes is not None:
            body["bavan_votes"] = self.votes_wire()
        return body

    def votes_wire(self) -> list[dict[str, Any]]:
        """The reported votes in wire form (``[{"seat", "vote", "at_ms"}]``), [] for none."""
        return [{"seat": v.seat, "vote": v.vote.value, "at_ms": v.at_ms} for v in self.votes or ()]


TRICKS_REQUIRED = "tricks are required unless the round's full record (play) is given"
"""The refusal of a report with neither ``tricks`` nor ``play``."""
LIVE_VOTE = "vote"
"""The wire value of ``bavan`` that opens a live vote at 7:0 (API.md "Live Bavan vote")."""


def _cast_vote(vote: Mapping[str, Any]) -> CastVote:
    return CastVote(vote["seat"], Vote(vote["vote"]), vote["at_ms"])

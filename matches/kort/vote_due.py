"""What is due in a live Bavan vote at a moment (KORT_RULES §4, §9): pure, no Django.

A live vote's timed work is the bots' votes (2 s after the start, or from when a voter's
player left if that is later) and the resolution once the time is past the deadline (silence:
one ``bavan`` goes, two silences refuse). :func:`due_events` says what of it is due at a
moment and not done yet, from the vote as it is stored; the vote's one settle service applies
it in one locked transaction, and the reads show the vote as stored plus what is due, in
memory, without writing.

Times are whole milliseconds after the vote opened, as every timing rule of the vote is judged
(``rules.past_deadline``, ``rules.bot_votes_due``).
"""

from __future__ import annotations

from dataclasses import dataclass

from matches.kort.rules import (
    BOT_VOTE_DELAY_MS,
    VOTE_LENGTH_MS,
    BavanDecision,
    CastVote,
    Team,
    VoteTally,
    bot_vote,
    bot_votes_due,
    past_deadline,
)


@dataclass(frozen=True)
class Voter:
    """A voter seat of the 7:0 team: ``bot_from_ms`` is when a bot starts voting for it (a
    bot's seat: 0; a seat whose player left: when the player left, in ms after the opening,
    negative if before it), None while its human player is seated (KORT_RULES §4, §9)."""

    seat: int
    bot_from_ms: int | None = None

    @property
    def counts_as_bot(self) -> bool:
        """Whether a bot votes for this seat (``rules.counts_as_bot``)."""
        return self.bot_from_ms is not None

    @property
    def bot_due_ms(self) -> int:
        """When the bot of this seat votes: 2 s after the start, or from when its player left
        if that is later (KORT_RULES §4, §9). Meaningful only when it counts as a bot."""
        return max(BOT_VOTE_DELAY_MS, self.bot_from_ms or 0)


@dataclass(frozen=True)
class VoteState:
    """A live vote as stored: the 7:0 ``team``, its two ``voters`` in seat order, the
    ``votes`` cast so far in the order they were counted, whether it is ``resolved`` already,
    its length, and whether the Bavan is guaranteed (§6, asked only when both voters count as
    bots: two bots vote ``bavan`` only then)."""

    team: Team
    voters: tuple[Voter, Voter]
    votes: tuple[CastVote, ...] = ()
    resolved: bool = False
    length_ms: int = VOTE_LENGTH_MS
    bavan_guaranteed: bool = False

    @property
    def both_bots(self) -> bool:
        """Whether both voters count as bots (then the §6 search decides their vote)."""
        return all(voter.counts_as_bot for voter in self.voters)


@dataclass(frozen=True)
class DueEvents:
    """What is due in a vote and not done yet: the bot votes to cast, in order (each stamped
    as :func:`due_events` says), and the resolution (``decision`` None: still open) at
    ``resolved_at_ms``."""

    bot_votes: tuple[CastVote, ...] = ()
    decision: BavanDecision | None = None
    resolved_at_ms: int | None = None

    def __bool__(self) -> bool:
        return bool(self.bot_votes) or self.decision is not None


NOTHING_DUE = DueEvents()


def due_events(state: VoteState, at_ms: int, *, stamped_when_due: bool = True) -> DueEvents:
    """What is due in the vote ``state`` at ``at_ms`` (ms after the opening) and not done yet
    (KORT_RULES §4, §9).

    The bot votes come first, in the order they fell due (seat order among equals), each
    stamped when it was due (``stamped_when_due``: a vote settled when next used or read, as a
    timed task on time would have cast it) or at ``at_ms`` (the timed task and the sweeper cast
    it as they run). A bot vote is never stamped before it is due and counts only if its stamp
    is not past the deadline; beside a human partner it is ``bavan``, beside a bot ``bavan``
    only for a guaranteed Bavan, else ``stop`` (``rules.bot_vote``). A ``stop`` or the second
    ``bavan`` resolves the vote at its stamp; once ``at_ms`` is past the deadline, what is
    still open resolves at the deadline (``VoteTally.at_deadline``). A resolved vote owes
    nothing.

    Raises:
        InvalidRoundError: the stored votes are ones §4 would reject (never for a stored vote).
    """
    if state.resolved:
        return NOTHING_DUE
    tally = VoteTally(state.team, length_ms=state.length_ms)
    for vote in state.votes:
        tally = tally.cast(vote, "vote")
    voted = {vote.seat for vote in state.votes}
    cast: list[CastVote] = []
    if bot_votes_due(at_ms):
        bots = [v for v in state.voters if v.counts_as_bot and v.seat not in voted]
        for voter in sorted(bots, key=lambda voter: voter.bot_due_ms):
            stamp = voter.bot_due_ms if stamped_when_due else at_ms
            if tally.decision is not None or stamp > at_ms:
                break
            if stamp < voter.bot_due_ms or past_deadline(stamp, state.length_ms):
                continue
            partner = next(v for v in state.voters if v.seat != voter.seat)
            vote = CastVote(
                voter.seat, bot_vote(partner.counts_as_bot, state.bavan_guaranteed), stamp
            )
            tally = tally.cast(vote, "vote")
            cast.append(vote)
    if tally.decision is None and past_deadline(at_ms, state.length_ms):
        tally = tally.at_deadline()
    return DueEvents(tuple(cast), tally.decision, tally.resolved_at_ms)

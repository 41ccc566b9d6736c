"""Writes of the live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote").

A round reported at 7:0 with ``"bavan": "vote"`` is stored as ``voting`` and opens a
:class:`~matches.live_vote.models.BavanVote`. The two players of the 7:0 team vote ``bavan`` or
``stop``; bots, and players who left, vote 2 s after the start. The vote resolves exactly once:
a vote locks the vote row and the resolution claims it with a conditional ``UPDATE ... WHERE
status = 'open'``. ``go`` leaves the round waiting for its finish (:func:`bavan_finish`);
``refused`` finishes it at once as a Kort or At-kort through ``matches.rounds.round_finish``.

Every timing rule is judged in milliseconds after the opening (``BavanVote.ms_at``) by the pure
predicates of ``matches.kort.rules`` (``past_deadline``, ``bot_votes_due``): a vote at exactly
the deadline counts, and silence resolves only once the time is strictly past it. What is due
at a moment (the bot votes, the resolution) is the pure ``matches.kort.vote_due.due_events``,
written by one settle (:func:`vote_settle`) with the vote row locked.

Timed work runs in Celery tasks queued on commit by name (``matches.live_vote.tasks``): the
deadline and the bot votes, both a :func:`vote_settle`. A timed task that runs before its time
does nothing; a task lost on its way is queued again by the sweeper
(``matches.live_vote.sweeps``). The write requests (a vote, a finish, the next round's report)
settle inside their own transaction before they are judged; reads never write.

Lock order (deadlock-free): the vote row, then the match row. A settle or a vote that refuses
locks the match row after the vote row; a finish and a round report that meet a voting round
lock the vote row first, then the match row; round reports of matches without an open vote and
seat leaves lock only the match row.

Every service takes ``now`` (default: the time once the rows it judges are locked) so tests can
inject the time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework_api_key.models import APIKey

from bulk.reads import primary_reads
from delivery.queue import queue_on_commit
from domain.errors import Conflict, Forbidden, NotFound, RuleError
from matches.kort.rules import (
    BOT_VOTE_DELAY_MS,
    BavanDecision,
    CastVote,
    InvalidRoundError,
    Team,
    Vote,
    past_deadline,
    resolve_votes,
    shutout_team,
    team_past_7_0,
)
from matches.kort.vote_due import due_events
from matches.live_vote.models import BavanVote, SeatVote, VoteStatus
from matches.live_vote.selectors import bavan_guaranteed_for, vote_state, voter_seats
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat
from matches.records import canonical_play, check_continues, replay_report
from matches.rounds import round_finish
from players.models import Player
from players.ownership import check_owner

FINISH_NEEDS_TRICKS = "give the final tricks, the complete record (play), or both"
EXPIRE_TASK = "matches.expire_bavan_vote"
BOT_VOTES_TASK = "matches.cast_bot_votes"


def vote_open(round_: Round, *, now: datetime | None = None) -> BavanVote:
    """Store ``round_`` (unsaved, final tricks exactly 7:0) as ``voting`` and open its vote for
    the 7:0 team, lasting :func:`vote_length_ms` (30 s by KORT_RULES §4).

    On commit, queues the deadline task for the first moment past the deadline and, when a
    voter seat counts as a bot, the bot votes 2 s after the start.

    Raises:
        InvalidRoundError: ``bavan`` when the tricks are not exactly 7:0.
    """
    now = now or timezone.now()
    team = _shutout_team(round_.tricks)
    round_.status = RoundStatus.VOTING
    round_.save()
    vote = BavanVote.objects.create(
        round=round_,
        team=team,
        opening_play=round_.play,
        opened_at=now,
        deadline=now + timedelta(milliseconds=vote_length_ms()),
    )
    _task_queue(EXPIRE_TASK, vote, vote.moment_at(vote.length_ms + 1))
    if any(seat.counts_as_bot for seat in voter_seats(vote)):
        _task_queue(BOT_VOTES_TASK, vote, vote.moment_at(BOT_VOTE_DELAY_MS))
    return vote


def vote_length_ms() -> int:
    """The length of every Bavan vote of this installation in milliseconds: the
    ``KORT_BAVAN_VOTE_SECONDS`` setting (30 s, the rules' 30 000 ms, by default; KORT_RULES
    §4). One deadline for both kinds of vote: a live vote lasts it, and the votes of a reported
    round (``bavan_votes``) count up to it, so a round played on a table whose votes last a
    shorter time reports the votes that table counted, and never one the live vote would
    have refused. Only a test or demo installation shortens it (API.md "Live Bavan vote")."""
    return settings.KORT_BAVAN_VOTE_SECONDS * 1000


def _shutout_team(tricks: Mapping[Team, int]) -> Team:
    """The team that leads 7:0: the only score at which a vote opens (KORT_RULES §2, §4)."""
    team = shutout_team(tricks)
    if team is None:
        raise InvalidRoundError(
            "bavan", f"a live Bavan vote opens only at 7:0 (KORT_RULES §4); got {_score(tricks)}"
        )
    return team


def _task_queue(name: str, vote: BavanVote, eta: datetime) -> None:
    """Queue the vote's timed task ``name`` (found by its name, so this module does not import
    the tasks that call it) for ``eta``, once the transaction commits. A task the broker
    does not take is queued again by the sweeper (``matches.live_vote.sweeps``)."""
    queue_on_commit(name, vote.pk, eta=eta)


@primary_reads()
def vote_cast(
    *, match_id: int, number: int, player: Player, choice: Vote, now: datetime | None = None
) -> BavanVote:
    """Cast ``player``'s vote in the live vote of round ``number``; a ``stop`` or the second
    ``bavan`` resolves the vote at once (KORT_RULES §4). What is due first (bot votes, the
    deadline) is settled in the same transaction, the vote row held (:func:`vote_settle`); the
    vote is stamped then, so the stored order of the votes is the order in which they were
    counted; a vote at exactly the deadline is in time. Returns the vote.

    Raises:
        NotFound: the round has no live vote.
        Forbidden: the player is banned (API.md "Banned players"), or is not one of the two
            voters (or left the match).
        Conflict: a second vote by the seat, a vote after the resolution, or one past the
            deadline.
    """
    with transaction.atomic():
        vote = _vote_locked(round__match_id=match_id, round__number=number)
        if vote is None:
            raise NotFound(f"round {number} of match {match_id} has no live vote")
        at = now or timezone.now()
        seats = voter_seats(vote)
        votes = _settle_locked(vote, seats, at, stamped_when_due=True).votes
        _check_not_banned(player)
        seat = _voter_seat_of(vote, seats, player)
        if past_deadline(vote.ms_at(at), vote.length_ms):
            raise Conflict(
                "vote",
                f"the vote closed at {vote.deadline.isoformat()} and resolved as "
                f"'{vote.status}'; a vote after the deadline is not counted (KORT_RULES §4)",
            )
        _check_can_vote(vote, votes, seat)
        SeatVote.objects.create(vote=vote, seat=seat, choice=choice, at=at, by_bot=False)
        cast = [*votes, CastVote(seat, choice, vote.ms_at(at))]
        tally = resolve_votes(Team(vote.team), cast, vote.length_ms, until_deadline=False)
        if tally.decision is not None:
            _vote_resolve(vote, tally.decision, at)
    return vote


def _vote_locked(**lookup) -> BavanVote | None:
    """The vote found by ``lookup`` (None if none), its row locked (the round row is not)."""
    votes = BavanVote.objects.select_for_update(of=("self",)).select_related("round")
    return votes.filter(**lookup).first()


def _check_not_banned(player: Player) -> None:
    """A ban stops a player's votes at once, in a vote opened before it too: the ban is read
    while the vote row is held, so a vote is judged against the ban as it is then."""
    if Player.objects.filter(pk=player.pk, is_banned=True).exists():
        raise Forbidden(f"player {player.pk} is banned; banned players cannot vote (API.md)")


def _voter_seat_of(vote: BavanVote, seats: Sequence[Seat], player: Player) -> int:
    """The seat of ``player`` among the vote's voter ``seats``."""
    team = Team(vote.team)
    seat = next((seat for seat in seats if seat.player_id == player.pk), None)
    if seat is None:
        raise Forbidden(
            f"only the players of seats {team.seats[0]} and {team.seats[1]} (team {team}, "
            "at 7:0) vote on the Bavan (KORT_RULES §4)"
        )
    if seat.left_at is not None:
        raise Forbidden(f"seat {seat.seat} left the match; a bot votes for it (KORT_RULES §4)")
    return seat.seat


def _check_can_vote(vote: BavanVote, votes: Sequence[CastVote], seat: int) -> None:
    if vote.status != VoteStatus.OPEN:
        assert vote.resolved_at is not None  # stamped when resolved (resolved_at_iff_vote_resolved)
        raise Conflict(
            "vote",
            f"the vote was resolved as '{vote.status}' at {vote.resolved_at.isoformat()}; no "
            "more votes (KORT_RULES §4)",
        )
    if any(cast.seat == seat for cast in votes):
        raise Conflict(
            "vote", f"seat {seat} already voted; a vote cannot be changed (KORT_RULES §4)"
        )


def _vote_resolve(vote: BavanVote, decision: BavanDecision, at: datetime) -> bool:
    """Claim the vote's one resolution (a conditional update from ``open``) and apply it:
    ``go`` sets the round going for Bavan; a refusal finishes it as a Kort / At-kort and moves
    the match on (the match row locked after the vote row). Returns False when the vote was
    already resolved (nothing changes)."""
    status = VoteStatus.GO if decision is BavanDecision.GO else VoteStatus.REFUSED
    claimed = BavanVote.objects.filter(pk=vote.pk, status=VoteStatus.OPEN).update(
        status=status, resolved_at=at
    )
    if not claimed:
        return False
    vote.status, vote.resolved_at = status, at
    round_ = vote.round
    if decision is BavanDecision.GO:
        Round.objects.filter(pk=round_.pk, status=RoundStatus.VOTING).update(
            status=RoundStatus.BAVAN, bavan=BavanDecision.GO
        )
    else:
        match = Match.objects.select_for_update().get(pk=round_.match_id)
        round_finish(match, round_, BavanDecision.STOP)
    return True


@dataclass(frozen=True)
class Settled:
    """What a settle wrote: ``bot_votes`` cast, whether it ``resolved`` the vote, and every
    vote of the vote now (``votes``, in the order counted)."""

    bot_votes: int = 0
    resolved: bool = False
    votes: tuple[CastVote, ...] = ()


def vote_settle(
    vote_id: int, *, now: datetime | None = None, stamped_when_due: bool = True
) -> Settled:
    """Write what is due in the vote at ``now`` and not done yet (KORT_RULES §4, §9;
    ``matches.kort.vote_due.due_events``): the bot votes and the resolution once the time is
    past the deadline, in one transaction with the vote row locked (then the match row, when
    a refusal finishes the round). The one writer of a vote's timed work: the timed tasks and
    the sweeper call it with ``stamped_when_due`` False (a bot vote is stamped when cast); the
    write requests settle inside their own transaction (:func:`vote_cast`,
    :func:`bavan_finish`, ``matches.services.round_report``), each bot vote stamped when it was
    due, so the answers do not depend on a worker being on time (the embedded default runs
    tasks at once, before their time, where they do nothing). Reads never write: they show
    the same in memory (``matches.live_vote.selectors.vote_seen``). An unknown or resolved
    vote is left as it is.
    """
    with transaction.atomic():
        vote = _vote_locked(pk=vote_id)
        if vote is None:
            return Settled()
        at = now or timezone.now()
        return _settle_locked(vote, voter_seats(vote), at, stamped_when_due=stamped_when_due)


def _settle_locked(
    vote: BavanVote, seats: Sequence[Seat], at: datetime, *, stamped_when_due: bool
) -> Settled:
    """:func:`vote_settle` for ``vote``, its row held by the caller, with its voter ``seats``.
    The §6 search for two bots runs here, the row held: it reads only the record the vote was
    opened with, and only while the two bots' votes are owed."""
    stored = list(vote.seat_votes.all())
    state = vote_state(vote, seats, stored, bavan_guaranteed_for)
    at_ms = vote.ms_at(at)
    due = due_events(state, at_ms, stamped_when_due=stamped_when_due)

    def moment(ms: int) -> datetime:
        return at if ms == at_ms else vote.moment_at(ms)

    SeatVote.objects.bulk_create(
        SeatVote(vote=vote, seat=v.seat, choice=v.vote, at=moment(v.at_ms), by_bot=True)
        for v in due.bot_votes
    )
    resolved = False
    if due.decision is not None:
        assert due.resolved_at_ms is not None  # set with the decision
        resolved = _vote_resolve(vote, due.decision, moment(due.resolved_at_ms))
    return Settled(len(due.bot_votes), resolved, state.votes + due.bot_votes)


def vote_expire(vote_id: int, *, now: datetime | None = None) -> bool:
    """The deadline task's settle (:func:`vote_settle`, votes stamped when cast): True if this
    call resolved the vote; False if it was resolved already, is unknown, or nothing resolves
    it yet (the time is not past its deadline, KORT_RULES §4)."""
    return vote_settle(vote_id, now=now, stamped_when_due=False).resolved


def bot_votes_cast(vote_id: int, *, now: datetime | None = None) -> int:
    """The bot votes task's settle (:func:`vote_settle`, votes stamped when cast): the votes
    of the voter seats that count as bots and have not voted (KORT_RULES §4,
    ``rules.bot_vote``): beside a human partner ``bavan``; two bots ``bavan`` only if the Bavan
    is guaranteed (§6, ``selectors.bavan_guaranteed_for``), else ``stop``. Before 2 s after the
    start this does nothing; past the deadline no vote counts any more, and the vote is
    resolved instead. Returns how many votes were cast."""
    return vote_settle(vote_id, now=now, stamped_when_due=False).bot_votes


def seat_leave(
    *,
    match_id: int,
    seat: int,
    service_key: APIKey | None = None,
    now: datetime | None = None,
) -> Seat:
    """Mark the player of ``seat`` as left the match; from then on the seat counts as a bot
    (KORT_RULES §4, §9). If the seat is a voter of an open vote and has not voted, its bot vote
    is queued for 2 s after the vote started, or at once if that has passed. Leaving again
    changes nothing. ``service_key`` is the caller's key; the match row is held while its
    ownership is checked and the seat written. Returns the seat.

    Raises:
        NotFound: no such match or seat.
        Forbidden: ``service_key`` did not create the match (API.md "Ownership").
        Conflict: the match is over.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise NotFound("no such match")
        left = match.seats.filter(seat=seat).first()
        if left is None:
            raise NotFound(f"match {match_id} has no seat {seat}")
        check_owner(match.service_key_id, service_key, f"match {match_id}")
        if match.status != MatchStatus.IN_PROGRESS:
            raise Conflict("match", "the match is over; nobody leaves it any more")
        if left.left_at is not None:
            return left
        left.left_at = now
        left.save(update_fields=["left_at"])
        vote = BavanVote.objects.filter(
            round__match_id=match_id, status=VoteStatus.OPEN, team=left.team
        ).first()
        if vote is not None and not vote.seat_votes.filter(seat=seat).exists():
            _task_queue(BOT_VOTES_TASK, vote, max(now, vote.moment_at(BOT_VOTE_DELAY_MS)))
    return left


@primary_reads()
def bavan_finish(
    *,
    match_id: int,
    number: int,
    tricks: Mapping[Team, int] | None = None,
    play: Mapping | None = None,
    service_key: APIKey | None = None,
    now: datetime | None = None,
) -> tuple[Round, bool]:
    """Finish round ``number``, which went for Bavan after its live vote, with its final
    ``tricks`` (``{Team.A: n, Team.B: m}``) or its complete record ``play`` (or both,
    agreeing): 13:0 is a ``bavan`` / ``at_bavan``, (7+j):1 a ``bavan_failed`` (KORT_RULES §2,
    §3); the match moves on. A record must continue the one the vote was opened with. What is
    due in the vote is settled first, in the same transaction (the vote row locked before the
    match row, :func:`vote_settle`). Only ``service_key``, the key that created the
    match, finishes its rounds (checked with the match row held). Returns ``(round,
    created)``: a resend with the same tricks and record returns the finished round with
    ``created`` False.

    Raises:
        NotFound: no such match or round.
        Forbidden: ``service_key`` did not create the match (API.md "Ownership").
        Conflict: the round had no live vote, its vote is still open, it was refused (finished
            as a Kort / At-kort), or it was finished with other tricks or another record.
        InvalidRoundError: ``tricks`` is not a Bavan's end for the 7:0 team, or disagrees with
            the record; the record does not continue the opening one (field ``play``).
        InvalidRecordError: the record is malformed or illegal (field ``play...``).
    """
    with transaction.atomic():
        vote = _vote_locked(round__match_id=match_id, round__number=number)
        if vote is not None and vote.status == VoteStatus.OPEN:
            _settle_locked(vote, voter_seats(vote), now or timezone.now(), stamped_when_due=True)
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise NotFound("no such match")
        round_ = match.rounds.filter(number=number).first()
        if round_ is None:
            raise NotFound(f"match {match_id} has no round {number}")
        check_owner(match.service_key_id, service_key, f"match {match_id}")
        complete = canonical_play(play)
        if complete is not None:
            tricks = _record_tricks(round_, vote, complete, tricks)
        elif vote is not None and vote.opening_play is not None:
            # A round that no longer awaits its finish says so first (409), whatever is sent.
            _check_awaits_finish(round_, vote)
            raise InvalidRoundError(
                "play",
                f"round {number} was opened with its record; finish it with the complete "
                "record (play), so the stored record replays to its result (KORT_RULES §3)",
            )
        if tricks is None:
            raise RuleError("tricks", FINISH_NEEDS_TRICKS)
        if _finished_with(round_, vote, tricks, complete):
            return round_, False
        _check_awaits_finish(round_, vote)
        assert vote is not None  # a round without a live vote does not await a Bavan's end
        _check_bavan_tricks(Team(vote.team), tricks)
        round_.tricks_a, round_.tricks_b = tricks[Team.A], tricks[Team.B]
        if complete is not None:
            round_.play = complete
        round_finish(match, round_, BavanDecision.GO)
    return round_, True


def _record_tricks(
    round_: Round, vote: BavanVote | None, complete: dict, tricks: Mapping[Team, int] | None
) -> dict[Team, int]:
    """The final tricks of a Bavan's complete record, checked against the given ``tricks`` and
    against the record the vote was opened with (KORT_RULES §3)."""
    replayed = replay_report(complete, round_.trump_seat, tricks)
    replayed.decision(BavanDecision.GO, "play")
    check_continues(vote.opening_play if vote else None, complete)
    return replayed.tricks


def _finished_with(
    round_: Round, vote: BavanVote | None, tricks: Mapping[Team, int], complete: dict | None
) -> bool:
    """Whether ``round_`` is a live-vote round already finished as a Bavan with ``tricks`` (and
    the record ``complete``, when one is given)."""
    return (
        vote is not None
        and round_.status == RoundStatus.FINISHED
        and round_.bavan == BavanDecision.GO
        and round_.tricks == tricks
        and (complete is None or round_.play == complete)
    )


def _check_awaits_finish(round_: Round, vote: BavanVote | None) -> None:
    if vote is None:
        problem = "was reported finished, without a live vote"
    elif round_.status == RoundStatus.VOTING:
        problem = "is still voting; it is finished once the vote goes for Bavan"
    elif round_.status == RoundStatus.FINISHED:
        problem = f"is already finished as '{round_.outcome}' with {_score(round_.tricks)}"
    else:
        return
    raise Conflict("round", f"round {round_.number} {problem} (KORT_RULES §4)")


def _check_bavan_tricks(team: Team, tricks: Mapping[Team, int]) -> None:
    if team_past_7_0(tricks) is not team:
        raise InvalidRoundError(
            "tricks",
            f"team {team} went for Bavan at 7:0: the round ends at 13:0 for it or when team "
            f"{team.other} takes its first trick, (7+j):1 (KORT_RULES §2, §3); "
            f"got {_score(tricks)}",
        )


def _score(tricks: Mapping[Team, int]) -> str:
    return f"{tricks[Team.A]}:{tricks[Team.B]}"

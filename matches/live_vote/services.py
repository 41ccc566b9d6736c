"""Writes of the live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote").

A round reported at 7:0 with ``"bavan": "vote"`` is stored as ``voting`` and opens a
:class:`~matches.live_vote.models.BavanVote`. The two players of the 7:0 team vote ``bavan`` or
``stop``; bots, and players who left, vote 2 s after the start. The vote resolves exactly once:
a vote locks the vote row and the resolution claims it with a conditional ``UPDATE ... WHERE
status = 'open'``. ``go`` leaves the round waiting for its finish (:func:`bavan_finish`);
``refused`` finishes it at once as a Kort or At-kort through ``matches.rounds.round_finish``.

Every timing rule is judged in milliseconds after the opening (``BavanVote.ms_at``) by the pure
predicates of ``matches.kort.rules`` (``past_deadline``, ``bot_votes_due``): a vote at exactly
30 000 ms counts, and silence resolves only once the time is strictly past it.

Timed work runs in Celery tasks queued on commit by name (``matches.live_vote.tasks``): the
deadline and the bot votes. A timed task that runs before its time does nothing, and a vote
that arrives after the deadline resolves a vote the deadline task has not reached yet; a task
lost on its way is queued again by the sweeper (``matches.live_vote.sweeps``). Lock
order: the vote row, then the match row; round reports and finishes lock only the match row.

Every service takes ``now`` (default: the time once the rows it judges are locked) so tests can
inject the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework_api_key.models import APIKey

from delivery.queue import queue_on_commit
from domain.errors import Conflict, Forbidden, NotFound, RuleError
from matches.kort.bavan_search import bavan_guaranteed, position_at_vote
from matches.kort.rules import (
    BOT_VOTE_DELAY_MS,
    TRICKS_TO_WIN,
    BavanDecision,
    CastVote,
    InvalidRoundError,
    Team,
    Vote,
    bot_vote,
    bot_votes_due,
    past_deadline,
    resolve_votes,
)
from matches.live_vote.models import BavanVote, SeatVote, VoteStatus
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
    the 7:0 team, lasting ``settings.KORT_BAVAN_VOTE_SECONDS`` (30 s by KORT_RULES §4).

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
        deadline=now + timedelta(seconds=settings.KORT_BAVAN_VOTE_SECONDS),
    )
    _task_queue(EXPIRE_TASK, vote, vote.moment_at(vote.length_ms + 1))
    if any(seat.counts_as_bot for seat in _voter_seats(vote)):
        _task_queue(BOT_VOTES_TASK, vote, vote.moment_at(BOT_VOTE_DELAY_MS))
    return vote


def _shutout_team(tricks: Mapping[Team, int]) -> Team:
    """The team that leads 7:0: the only score at which a vote opens (KORT_RULES §2, §4)."""
    a, b = tricks[Team.A], tricks[Team.B]
    if sorted((a, b)) != [0, TRICKS_TO_WIN]:
        raise InvalidRoundError(
            "bavan", f"a live Bavan vote opens only at 7:0 (KORT_RULES §4); got {a}:{b}"
        )
    return Team.A if a else Team.B


def _task_queue(name: str, vote: BavanVote, eta: datetime) -> None:
    """Queue the vote's timed task ``name`` (found by its name, so this module does not import
    the tasks that call it) for ``eta``, once the transaction commits. A task the broker
    does not take is queued again by the sweeper (``matches.live_vote.sweeps``)."""
    queue_on_commit(name, vote.pk, eta=eta)


def vote_cast(
    *, match_id: int, number: int, player: Player, choice: Vote, now: datetime | None = None
) -> BavanVote:
    """Cast ``player``'s vote in the live vote of round ``number``; a ``stop`` or the second
    ``bavan`` resolves the vote at once (KORT_RULES §4). The vote is stamped once the vote row
    is held, so the stored order of the votes is the order in which they were counted; a vote
    at exactly the deadline is in time. Returns the vote.

    Raises:
        NotFound: the round has no live vote.
        Forbidden: the player is banned (API.md "Banned players"), or is not one of the two
            voters (or left the match).
        Conflict: a second vote by the seat, a vote after the resolution, or one past the
            deadline. What is due first (bot votes, the deadline) is settled before the vote
            is judged (:func:`vote_settle`).
    """
    vote_settle(_vote_of(match_id, number), now=now)
    with transaction.atomic():
        vote = _vote_locked(round__match_id=match_id, round__number=number)
        if vote is None:
            raise NotFound(f"round {number} of match {match_id} has no live vote")
        at = now or timezone.now()
        _check_not_banned(player)
        seat = _voter_seat_of(vote, player)
        if past_deadline(vote.ms_at(at), vote.length_ms):
            raise Conflict(
                "vote",
                f"the vote closed at {vote.deadline.isoformat()} and resolved as "
                f"'{vote.status}'; a vote after the deadline is not counted (KORT_RULES §4)",
            )
        _check_can_vote(vote, seat)
        _seat_vote_add(vote, seat, choice, at, by_bot=False)
    return vote


def _vote_of(match_id: int, number: int) -> BavanVote | None:
    return BavanVote.objects.filter(round__match_id=match_id, round__number=number).first()


def _vote_locked(**lookup) -> BavanVote | None:
    """The vote found by ``lookup`` (None if none), its row locked (the round row is not)."""
    votes = BavanVote.objects.select_for_update(of=("self",)).select_related("round")
    return votes.filter(**lookup).first()


def _voter_seats(vote: BavanVote) -> list[Seat]:
    """The two seats of the 7:0 team, with their players, in seat order."""
    return list(
        Seat.objects.select_related("player")
        .filter(match_id=vote.round.match_id, seat__in=Team(vote.team).seats)
        .order_by("seat")
    )


def _check_not_banned(player: Player) -> None:
    """A ban stops a player's votes at once, in a vote opened before it too: the ban is read
    while the vote row is held, so a vote is judged against the ban as it is then."""
    if Player.objects.filter(pk=player.pk, is_banned=True).exists():
        raise Forbidden(f"player {player.pk} is banned; banned players cannot vote (API.md)")


def _voter_seat_of(vote: BavanVote, player: Player) -> int:
    team = Team(vote.team)
    seat = Seat.objects.filter(match_id=vote.round.match_id, player=player).first()
    if seat is None or seat.seat not in team.seats:
        raise Forbidden(
            f"only the players of seats {team.seats[0]} and {team.seats[1]} (team {team}, "
            "at 7:0) vote on the Bavan (KORT_RULES §4)"
        )
    if seat.left_at is not None:
        raise Forbidden(f"seat {seat.seat} left the match; a bot votes for it (KORT_RULES §4)")
    return seat.seat


def _check_can_vote(vote: BavanVote, seat: int) -> None:
    if vote.status != VoteStatus.OPEN:
        assert vote.resolved_at is not None  # stamped when resolved (resolved_at_iff_vote_resolved)
        raise Conflict(
            "vote",
            f"the vote was resolved as '{vote.status}' at {vote.resolved_at.isoformat()}; no "
            "more votes (KORT_RULES §4)",
        )
    if vote.seat_votes.filter(seat=seat).exists():
        raise Conflict(
            "vote", f"seat {seat} already voted; a vote cannot be changed (KORT_RULES §4)"
        )


def _cast_votes(vote: BavanVote) -> list[CastVote]:
    return [
        CastVote(seat_vote.seat, Vote(seat_vote.choice), vote.ms_at(seat_vote.at))
        for seat_vote in vote.seat_votes.all()
    ]


def _seat_vote_add(vote: BavanVote, seat: int, choice: Vote, at: datetime, by_bot: bool) -> None:
    """Store a seat's vote and resolve the vote if the votes now settle it (§4 table)."""
    SeatVote.objects.create(vote=vote, seat=seat, choice=choice, at=at, by_bot=by_bot)
    tally = resolve_votes(Team(vote.team), _cast_votes(vote), vote.length_ms, until_deadline=False)
    if tally.decision is not None:
        _vote_resolve(vote, tally.decision, at)


def _vote_expire(vote: BavanVote) -> bool:
    """Resolve an open vote at its deadline: one ``bavan`` and silence go, two silences are a
    refusal (KORT_RULES §4)."""
    tally = resolve_votes(Team(vote.team), _cast_votes(vote), vote.length_ms)
    return _vote_resolve(vote, tally.decision, vote.deadline)


def _vote_resolve(vote: BavanVote, decision: BavanDecision | None, at: datetime) -> bool:
    """Claim the vote's one resolution (a conditional update from ``open``) and apply it:
    ``go`` sets the round going for Bavan; a refusal finishes it as a Kort / At-kort and moves
    the match on. Returns False when the vote was already resolved (nothing changes)."""
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


def vote_expire(vote_id: int, *, now: datetime | None = None) -> bool:
    """Resolve the vote if it is still open and its deadline has passed (the deadline task).
    Returns True if this call resolved it; False if it was resolved already, is unknown, or the
    time is not yet past its deadline (KORT_RULES §4)."""
    with transaction.atomic():
        vote = _vote_locked(pk=vote_id)
        at = now or timezone.now()
        if vote is None or vote.status != VoteStatus.OPEN:
            return False
        if not past_deadline(vote.ms_at(at), vote.length_ms):
            return False
        return _vote_expire(vote)


def bot_votes_cast(vote_id: int, *, now: datetime | None = None, as_due: bool = False) -> int:
    """Cast the votes of the voter seats that count as bots and have not voted (KORT_RULES §4,
    ``rules.bot_vote``): beside a human partner ``bavan``; two bots ``bavan`` only if the Bavan
    is guaranteed (§6, :func:`bavan_guaranteed_for`), else ``stop``. The votes are stamped
    ``now`` (the timed task and the sweeper), or with ``as_due`` each when it was due, in that
    order (a vote settled when next used, as the timed task on time would have cast it); before
    2 s after the start this does nothing, and past the deadline it resolves the vote instead.
    Returns how many votes were cast.

    The §6 search runs before the vote row is locked: it reads only the record the vote was
    opened with, which never changes.
    """
    guaranteed = _guaranteed_for_bots(vote_id)
    with transaction.atomic():
        vote = _vote_locked(pk=vote_id)
        at = now or timezone.now()
        if vote is None or vote.status != VoteStatus.OPEN or not bot_votes_due(vote.ms_at(at)):
            return 0
        if past_deadline(vote.ms_at(at), vote.length_ms):
            _vote_expire(vote)
            return 0
        return _bot_votes_add(vote, at, guaranteed, as_due)


def _guaranteed_for_bots(vote_id: int) -> bool:
    """Whether the Bavan of the vote's round is guaranteed (§6), searched only when a voter
    counts as a bot (the only vote that asks it)."""
    vote = BavanVote.objects.select_related("round").filter(pk=vote_id).first()
    if vote is None or not any(seat.counts_as_bot for seat in _voter_seats(vote)):
        return False
    return bavan_guaranteed_for(vote.round)


def vote_settle(vote: BavanVote | None, *, now: datetime | None = None) -> None:
    """Do the timed work of an open vote that is due at ``now`` and not done yet: the bot
    votes (due 2 s after the start) and the resolution once the deadline has passed
    (KORT_RULES §4).

    The tasks queued at opening do this on time with a worker. Reading the vote, finishing its
    round and reporting the next round settle it first as well, so the answer is the same
    when no worker has run them yet (the embedded default runs tasks at once, before their
    time, so there they do nothing; a worker may also be down or late).
    """
    if vote is None or vote.status != VoteStatus.OPEN:
        return
    now = now or timezone.now()
    at_ms = vote.ms_at(now)
    if bot_votes_due(at_ms):
        bot_votes_cast(vote.pk, now=min(now, vote.deadline), as_due=True)
    if past_deadline(at_ms, vote.length_ms):
        vote_expire(vote.pk, now=now)
    vote.refresh_from_db()


def _bot_votes_add(vote: BavanVote, now: datetime, guaranteed: bool, as_due: bool) -> int:
    """Cast the due bot votes, stamped ``now``, or with ``as_due`` each when it was due
    (:func:`_bot_vote_due`, ``now`` at the latest); in the order they were due."""
    seats = _voter_seats(vote)
    voted = set(vote.seat_votes.values_list("seat", flat=True))
    cast = 0
    for seat in sorted(seats, key=lambda seat: _bot_vote_due(vote, seat)):
        if vote.status != VoteStatus.OPEN:
            break
        if seat.seat in voted or not seat.counts_as_bot:
            continue
        partner = next(other for other in seats if other.seat != seat.seat)
        choice = bot_vote(partner.counts_as_bot, guaranteed)
        at = min(now, _bot_vote_due(vote, seat)) if as_due else now
        _seat_vote_add(vote, seat.seat, choice, at, by_bot=True)
        cast += 1
    return cast


def _bot_vote_due(vote: BavanVote, seat: Seat) -> datetime:
    """When the bot of ``seat`` votes (KORT_RULES §4, §9): 2 s after the start, or when its
    player left if that was later."""
    due = vote.moment_at(BOT_VOTE_DELAY_MS)
    return due if seat.left_at is None else max(due, seat.left_at)


def bavan_guaranteed_for(round_: Round) -> bool:
    """Whether the 7:0 team of ``round_`` can take every remaining trick whatever the
    opponents hold and play (the guaranteed Bavan, KORT_RULES §6), searched from the record the
    vote was opened with. A vote opened in summary form shows no hands, so nothing can be
    guaranteed and this returns False.
    """
    if round_.play is None:
        return False
    return bavan_guaranteed(**position_at_vote(round_.play, round_.trump_seat)).guaranteed


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
    §3); the match moves on. A record must continue the one the vote was opened with. The vote
    is settled first (:func:`vote_settle`). Only ``service_key``, the key that created the
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
    vote = _vote_of(match_id, number)
    vote_settle(vote, now=now)
    with transaction.atomic():
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
    if tricks[team] < TRICKS_TO_WIN or tricks[team.other] > 1:
        raise InvalidRoundError(
            "tricks",
            f"team {team} went for Bavan at 7:0: the round ends at 13:0 for it or when team "
            f"{team.other} takes its first trick, (7+j):1 (KORT_RULES §2, §3); "
            f"got {_score(tricks)}",
        )


def _score(tricks: Mapping[Team, int]) -> str:
    return f"{tricks[Team.A]}:{tricks[Team.B]}"

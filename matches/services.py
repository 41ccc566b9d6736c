"""Writes for matches and rounds (KORT_RULES §1, §2, §4, §5; API.md "Matches").

Every write runs in one transaction: a rejected report writes nothing. A round report locks its
match row, so concurrent reports of one match are applied one at a time. A finished round moves
its match on through ``matches.rounds.round_finish``; a 7:0 reported with ``"bavan": "vote"``
opens a live vote instead (``matches.live_vote``), and the match takes no other round until
that round is finished. Reports arrive as typed :class:`~matches.reports.RoundReport` values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from rest_framework_api_key.models import APIKey

from bulk.reads import primary_reads
from domain.errors import Conflict, DomainError, NotFound, RuleError
from matches.fields import json_as_read
from matches.kort.rules import (
    TARGET_WINS,
    BavanDecision,
    CastVote,
    InvalidRoundError,
    Mode,
    RoundResult,
    Team,
    resolve_votes,
    team_past_7_0,
)
from matches.live_vote.models import BavanVote
from matches.live_vote.services import vote_length_ms, vote_open, vote_settle
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat
from matches.records import PLAY_REQUIRED, ReplayedReport, canonical_play, replay_report
from matches.reports import TRICKS_REQUIRED, RoundReport
from matches.rounds import round_finish, round_settle, rounds_save
from players.models import Player
from players.ownership import check_owner


@primary_reads()
def match_create(
    *,
    service_key,
    mode: str,
    seats: Sequence[int],
    first_trump_seat: int,
    external_id: str | None = None,
    client_version: str = "",
    rounds: Sequence[RoundReport] = (),
    require_play: bool | None = None,
) -> tuple[Match, bool]:
    """Create a match, or return the one this service key already created with ``external_id``.

    ``seats`` are four player ids (seat 0..3); ``rounds`` optionally reports the whole match at
    once (each as for :func:`round_report`). ``require_play`` makes every round's full record
    (``play``) mandatory; None takes the default: the ``KORT_RANKED_REQUIRE_PLAY`` setting for
    ranked matches, False for room matches. Returns ``(match, created)``.

    Raises:
        RuleError: unknown, banned or repeated players (field ``seats``); a round whose
            ``number`` skips ahead or repeats an earlier one (field ``rounds[i].number``).
        InvalidRoundError: a round the rules or its record refuse (field
            ``rounds[i].<field>``, as for :func:`round_report`).
        Conflict: a round after the match ended (field ``rounds[i].match``); ``external_id``
            names a match this key created with another body (field ``external_id``, naming
            the fields that differ; nothing is written).
    """
    body = _create_body(mode, seats, first_trump_seat, rounds)
    if external_id is not None:
        existing = Match.objects.filter(service_key=service_key, external_id=external_id).first()
        if existing is not None:
            return _same_body(existing, body), False
    try:
        with transaction.atomic():
            match = _match_insert(
                service_key,
                Mode(mode),
                seats,
                first_trump_seat,
                external_id,
                client_version,
                require_play,
                body,
            )
            stored: list[Round] = []
            for index, report in enumerate(rounds):
                with _errors_under(f"rounds[{index}]"):
                    _check_not_repeated(report, len(stored) + 1)
                    _round_add(match, stored, {}, report, finish=round_settle)
            if stored:
                # A live vote stored its round when it opened (only the last round can be one).
                rounds_save(match, [round_ for round_ in stored if round_.pk is None])
            match.rounds_in_hand = stored
    except IntegrityError:
        # A concurrent request with the same external_id won the race: return its match.
        existing = Match.objects.filter(service_key=service_key, external_id=external_id).first()
        if external_id is None or existing is None:
            raise
        return _same_body(existing, body), False
    return match, True


def _create_body(
    mode: str, seats: Sequence[int], first_trump_seat: int, rounds: Sequence[RoundReport]
) -> dict[str, Any]:
    """The fields of a create body that a resend with its ``external_id`` must repeat (API.md
    "Conventions"), in JSON types; a round as given (its report, ``play`` and ``number``)."""
    return {
        "mode": mode,
        "seats": list(seats),
        "first_trump_seat": first_trump_seat,
        "rounds": [
            {
                **report.body(),
                **({} if report.play is None else {"play": report.play}),
                **({} if report.number is None else {"number": report.number}),
            }
            for report in rounds
        ],
    }


def _same_body(existing: Match, body: dict[str, Any]) -> Match:
    """``existing``, created with ``body``'s fields (those it stored: a match older than its
    ``create_body`` has mode, seats and first_trump_seat).

    Raises:
        Conflict: a field differs (field ``external_id``, naming each that differs).
    """
    stored = existing.create_body or {}
    differ = [name for name in body if name in stored and stored[name] != body[name]]
    if differ:
        raise Conflict(
            "external_id",
            f"match {existing.pk} was created with this external_id and another "
            f"{', '.join(differ)}; a resend must repeat the body that created it",
        )
    return existing


def _check_not_repeated(report: RoundReport, expected: int) -> None:
    """A whole match gives each round once: a ``number`` below the next one repeats a round
    of the same request (a resend is a request of its own)."""
    if report.number is not None and report.number < expected:
        raise RuleError(
            "number",
            f"round {report.number} is given twice; the next round is number {expected}",
        )


def _match_insert(
    service_key,
    mode,
    seat_ids,
    first_trump_seat,
    external_id,
    client_version,
    require_play,
    create_body,
):
    players = _seat_players(seat_ids)
    match = Match.objects.create(
        mode=mode,
        require_play=_require_play(mode, require_play),
        target_wins=TARGET_WINS[mode],
        first_trump_seat=first_trump_seat,
        next_trump_seat=first_trump_seat,
        external_id=external_id,
        service_key=service_key,
        client_version=client_version,
        create_body=create_body,
    )
    seats = Seat.objects.bulk_create(
        Seat(match=match, seat=seat, player=player, match_created_at=match.created_at)
        for seat, player in enumerate(players)
    )
    match.seats_in_hand = seats
    return match


def _require_play(mode: Mode, require_play: bool | None) -> bool:
    """Whether the match requires every round's record: as asked, else by mode (API.md)."""
    if require_play is not None:
        return require_play
    return mode is Mode.RANKED and settings.KORT_RANKED_REQUIRE_PLAY


def _seat_players(seat_ids: Sequence[int]) -> list[Player]:
    if len(seat_ids) != 4:
        raise RuleError("seats", f"a match has exactly 4 seats; got {len(seat_ids)}")
    repeated = sorted({pid for pid in seat_ids if seat_ids.count(pid) > 1})
    if repeated:
        raise RuleError(
            "seats", f"a player may sit only once; player {repeated[0]} is seated twice"
        )
    found = Player.objects.in_bulk(seat_ids)
    errors = []
    for pid in seat_ids:
        player = found.get(pid)
        if player is None:
            errors.append(f"player {pid} does not exist")
        elif player.is_banned:
            errors.append(f"player {pid} is banned and cannot join new matches")
    if errors:
        raise RuleError("seats", *errors)
    return [found[pid] for pid in seat_ids]


@primary_reads()
def round_report(
    *, match_id: int, report: RoundReport, service_key: APIKey | None = None
) -> tuple[Round, bool]:
    """Report the next round of a match (API.md "Matches"): a summary, a full record
    (``report.play``, see :mod:`matches.records`), or both; a 7:0 with ``report.live_vote``
    opens a live vote. ``service_key`` is the caller's key: only the key that created the match
    reports its rounds (API.md "Ownership"). Returns ``(round, created)``: a resend of a stored
    round with the same body and record returns it unchanged with ``created`` False.

    Raises:
        NotFound: no such match.
        Forbidden: ``service_key`` did not create the match (nothing is written).
        InvalidRoundError: the report breaks a rule (§2 outcome, §4 votes, §5 trump caller), its
            summary disagrees with its record, or the match requires a record (field ``play``).
        InvalidRecordError: the record is malformed or illegal (§1, §3; field ``play...``).
        RuleError: ``number`` skips ahead.
        Conflict: ``number`` names a stored round with a different body, the match has ended,
            or a round of the match is still open (voting or going for Bavan). An open vote is
            settled first, in the same transaction (``matches.live_vote.services.vote_settle``;
            the vote row is locked before the match row).
    """
    with transaction.atomic():
        match, votes = match_locked(match_id)
        check_owner(match.service_key_id, service_key, f"match {match.pk}")
        voting = _voting_round(match)
        if voting is None:
            return _round_report_add(match, votes, report)
    # A round of the match is voting: settle what is due in its vote, then take the match again
    # and judge the report, in one transaction (the vote row locked before the match row).
    with transaction.atomic():
        vote_settle(votes[voting.pk].pk)
        return _round_report_add(*match_locked(match_id), report)


def _round_report_add(
    match: Match, votes: Mapping[int, BavanVote], report: RoundReport
) -> tuple[Round, bool]:
    """:func:`_round_add` after the rounds of ``match`` read along (``rounds_in_hand``); a
    stored round is added to them, so the match answers with it without reading its rounds
    again."""
    assert match.rounds_in_hand is not None  # read along by match_locked
    return _round_add(match, match.rounds_in_hand, votes, report)


def match_locked(match_id: int) -> tuple[Match, dict[int, BavanVote]]:
    """The match with its row locked, its seats (``seats_in_hand``) and rounds
    (``rounds_in_hand``) read along, and the live votes of its rounds by round id, so a report
    is judged and answered from what is in hand. Three statements (a fourth reads the live
    votes when a round of the match had one): seats by seat, rounds by number (as
    ``matches.selectors.SEATS_IN_ORDER`` and ``ROUNDS_IN_ORDER`` read them), each round with
    the id of its live vote (``vote_id``, None for none).

    Raises:
        NotFound: no such match.
    """
    match = Match.objects.select_for_update(of=("self",)).filter(pk=match_id).first()
    if match is None:
        raise NotFound("no such match")
    match.seats_in_hand = list(Seat.objects.filter(match_id=match_id).order_by("seat"))
    with_votes = (
        Round.objects.filter(match_id=match_id)
        .annotate(vote_id=F("bavan_vote__id"))
        .order_by("number")
    )
    vote_ids = {round_.pk: round_.vote_id for round_ in with_votes}
    rounds: list[Round] = [round_ for round_ in with_votes]
    voted = [vote_id for vote_id in vote_ids.values() if vote_id is not None]
    by_id = BavanVote.objects.in_bulk(voted) if voted else {}
    match.rounds_in_hand = rounds
    votes = {pk: by_id[vote_id] for pk, vote_id in vote_ids.items() if vote_id is not None}
    return match, votes


def _voting_round(match: Match) -> Round | None:
    return next((r for r in match.rounds_in_order() if r.status == RoundStatus.VOTING), None)


def _round_add(
    match: Match,
    rounds: list[Round],
    votes: Mapping[int, BavanVote],
    report: RoundReport,
    finish: Callable[[Match, Round, BavanDecision | None], RoundResult] = round_finish,
) -> tuple[Round, bool]:
    """Add ``report`` to ``match`` (row locked) after its ``rounds`` so far, in order, whose
    live votes are ``votes`` (by round id); a stored round is appended to ``rounds``. A
    finished round goes through ``finish``: ``matches.rounds.round_finish`` saves it and the
    match, ``round_settle`` leaves both to the caller."""
    expected = len(rounds) + 1
    number = report.number
    body = report.body()
    play = canonical_play(report.play)
    if number is not None and number < expected:
        stored = rounds[number - 1]
        if (stored.report, _reported_play(stored, votes)) != (body, play):
            raise Conflict(
                "number",
                f"round {number} is already stored with another report",
            )
        return stored, False
    if match.status != MatchStatus.IN_PROGRESS:
        raise Conflict(
            "match",
            f"the match ended after round {expected - 1}; no more rounds (§1)",
        )
    if number is not None and number > expected:
        raise RuleError("number", f"the next round is number {expected}; got {number}")
    _check_no_open_round(rounds)
    if report.trump_seat != match.next_trump_seat:
        raise InvalidRoundError(
            "trump_seat",
            f"the trump caller of round {expected} is seat {match.next_trump_seat} "
            f"(KORT_RULES §5); got seat {report.trump_seat}",
        )
    tricks, replayed = _round_tricks(match, report, play)
    stored = Round(
        match=match,
        number=expected,
        trump_seat=report.trump_seat,
        tricks_a=tricks[Team.A],
        tricks_b=tricks[Team.B],
        bavan_votes=json_as_read(report.votes_wire()),
        report=json_as_read(body),
        play=json_as_read(play),
    )
    if report.live_vote:
        if report.votes:
            raise InvalidRoundError(
                "bavan_votes",
                "a live vote ('bavan': 'vote') collects its votes itself; report either the "
                "votes or the live vote (KORT_RULES §4)",
            )
        vote_open(stored)
    else:
        finish(match, stored, _round_decision(report, tricks, replayed))
    rounds.append(stored)
    return stored, True


def _reported_play(stored: Round, votes: Mapping[int, BavanVote]) -> dict[str, Any] | None:
    """The record ``stored`` was reported with: for a live vote (``votes``, by round id) the
    record it opened with (a Bavan finished with its complete record keeps that one in
    ``play``)."""
    vote = votes.get(stored.pk)
    return vote.opening_play if vote is not None else stored.play


def _check_no_open_round(rounds: Sequence[Round]) -> None:
    """A match takes its next round only once every round so far is finished (§4: a round at
    7:0 waits for its vote, and after ``go`` for its finish)."""
    open_round = next((r for r in rounds if r.status != RoundStatus.FINISHED), None)
    if open_round is not None:
        raise Conflict(
            "round",
            f"round {open_round.number} is still open ({open_round.status}); it must "
            "finish before the next round (KORT_RULES §4)",
        )


def _round_tricks(
    match: Match, report: RoundReport, play: dict[str, Any] | None
) -> tuple[Mapping[Team, int], ReplayedReport | None]:
    """``(tricks, replayed)``: the final tricks by team, from the summary or, with a record,
    from its replay (KORT_RULES §1, §3; API.md "play"), and the replayed record or None.

    Raises:
        InvalidRoundError: a summary-only round on a match that requires records (``play``), or
            ``tricks`` that disagree with the record.
        InvalidRecordError: the record does not replay.
    """
    if play is None:
        if match.require_play:
            raise InvalidRoundError("play", PLAY_REQUIRED)
        if report.tricks is None:
            raise RuleError("tricks", TRICKS_REQUIRED)
        return report.tricks, None
    replayed = replay_report(play, report.trump_seat, report.tricks)
    return replayed.tricks, replayed


def _round_decision(
    report: RoundReport, tricks: Mapping[Team, int], replayed: ReplayedReport | None
) -> BavanDecision | None:
    """The Bavan decision of a finished round: given or resolved from the votes, and with a
    record, checked against it or implied by it (KORT_RULES §3, §4).

    Raises:
        InvalidRoundError: votes §4 rejects, or a decision the record contradicts.
    """
    decision = _bavan_decision(tricks, report.decision, report.votes)
    if replayed is None:
        return decision
    return replayed.decision(decision, "bavan" if report.decision else "bavan_votes")


def _bavan_decision(
    tricks: Mapping[Team, int],
    given: BavanDecision | None,
    votes: Sequence[CastVote] | None,
) -> BavanDecision | None:
    """The decision of the report: as given, or resolved from the votes (KORT_RULES §4).

    The votes list every vote cast, so an empty list at a shutout is a vote in which both
    stayed silent: refused. Anywhere else an empty list says only that no vote was held.
    """
    if votes is None or (not votes and min(tricks.values()) > 0):
        return given
    voting_team = team_past_7_0(tricks)
    if voting_team is None:
        raise InvalidRoundError("bavan_votes", "a Bavan vote is held only at 7:0 (KORT_RULES §4)")
    tally = resolve_votes(voting_team, votes, vote_length_ms())
    if given is not None and given is not tally.decision:
        raise InvalidRoundError(
            "bavan",
            f"the votes resolve to '{tally.decision}' at {tally.resolved_at_ms} ms but the "
            f"report says '{given}' (KORT_RULES §4)",
        )
    return tally.decision


class _errors_under:
    """Re-raise the domain errors of one round under ``prefix`` (``rounds[2]``)."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if isinstance(exc, DomainError):
            raise exc.under(self.prefix) from exc
        return False

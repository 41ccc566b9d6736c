"""Writes for matches and rounds (KORT_RULES §1, §2, §4, §5; API.md "Matches").

Every write runs in one transaction: a rejected report writes nothing. A round report locks its
match row, so concurrent reports of one match are applied one at a time. When a match is
completed, finalization is queued on commit (``ranking.tasks.finalize_match``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from kort_site.errors import Conflict
from matches.kort.rules import (
    TARGET_WINS,
    BavanDecision,
    CastVote,
    InvalidRoundError,
    Mode,
    Team,
    Vote,
    match_winner,
    next_trump_seat,
    resolve_votes,
    round_outcome,
)
from matches.models import Match, MatchStatus, Round, Seat
from matches.records import PLAY_REQUIRED, canonical_play, replay_report
from ranking.models import Player
from ranking.tasks import finalize_match


def match_create(
    *,
    service_key,
    mode: str,
    seats: Sequence[int],
    first_trump_seat: int,
    external_id: str | None = None,
    client_version: str = "",
    rounds: Sequence[Mapping] = (),
    require_play: bool | None = None,
) -> tuple[Match, bool]:
    """Create a match, or return the one this service key already created with ``external_id``.

    ``seats`` are four player ids (seat 0..3); ``rounds`` optionally reports the whole match at
    once (each as for :func:`round_report`). ``require_play`` makes every round's full record
    (``play``) mandatory; None takes the default: the ``KORT_RANKED_REQUIRE_PLAY`` setting for
    ranked matches, False for room matches. Returns ``(match, created)``.

    Raises:
        ValidationError: unknown, banned or repeated players (field ``seats``); a bad round
            (field ``rounds[i].<field>``).
        Conflict: a round after the match ended (field ``rounds[i]``).
    """
    if external_id is not None:
        existing = Match.objects.filter(service_key=service_key, external_id=external_id).first()
        if existing is not None:
            return existing, False
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
            )
            for index, report in enumerate(rounds):
                with _errors_under(f"rounds[{index}]"):
                    _round_add(match, report)
    except IntegrityError:
        # A concurrent request with the same external_id won the race: return its match.
        existing = Match.objects.filter(service_key=service_key, external_id=external_id).first()
        if external_id is None or existing is None:
            raise
        return existing, False
    return match, True


def _match_insert(
    service_key, mode, seat_ids, first_trump_seat, external_id, client_version, require_play
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
    )
    Seat.objects.bulk_create(
        Seat(match=match, seat=seat, player=player) for seat, player in enumerate(players)
    )
    return match


def _require_play(mode: Mode, require_play: bool | None) -> bool:
    """Whether the match requires every round's record: as asked, else by mode (API.md)."""
    if require_play is not None:
        return require_play
    return mode is Mode.RANKED and settings.KORT_RANKED_REQUIRE_PLAY


def _seat_players(seat_ids: Sequence[int]) -> list[Player]:
    if len(seat_ids) != 4:
        raise ValidationError({"seats": [f"a match has exactly 4 seats; got {len(seat_ids)}"]})
    repeated = sorted({pid for pid in seat_ids if seat_ids.count(pid) > 1})
    if repeated:
        raise ValidationError(
            {"seats": [f"a player may sit only once; player {repeated[0]} is seated twice"]}
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
        raise ValidationError({"seats": errors})
    return [found[pid] for pid in seat_ids]


def round_report(*, match_id: int, report: Mapping) -> tuple[Round, bool]:
    """Report the next round of a match (API.md "Matches").

    ``report`` holds ``trump_seat``, ``tricks`` (``{"A": n, "B": m}``), optionally ``bavan``
    (``go``/``stop``), ``bavan_votes`` (``[{"seat", "vote", "at_ms"}]``), ``play`` (the full
    record, see :mod:`matches.records`; ``tricks`` may then be omitted) and ``number``.
    Returns ``(round, created)``: a resend of a stored round with the same body and record
    returns it unchanged with ``created`` False.

    Raises:
        Match.DoesNotExist: no such match.
        InvalidRoundError: the report breaks a rule (§2 outcome, §4 votes, §5 trump caller), its
            summary disagrees with its record, or the match requires a record (field ``play``).
        InvalidRecordError: the record is malformed or illegal (§1, §3; field ``play...``).
        ValidationError: ``number`` skips ahead.
        Conflict: ``number`` names a stored round with a different body, or the match has ended.
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        return _round_add(match, report)


def _round_add(match: Match, report: Mapping) -> tuple[Round, bool]:
    expected = match.rounds.count() + 1
    number = report.get("number")
    body = _canonical(report)
    play = canonical_play(report)
    if number is not None and number < expected:
        stored = match.rounds.get(number=number)
        if (stored.report, stored.play) != (body, play):
            raise Conflict({"number": [f"round {number} is already stored with another report"]})
        return stored, False
    if number is not None and number > expected:
        raise ValidationError({"number": [f"the next round is number {expected}; got {number}"]})
    if match.status != MatchStatus.IN_PROGRESS:
        raise Conflict(
            {"match": [f"the match ended after round {expected - 1}; no more rounds (§1)"]}
        )
    if report["trump_seat"] != match.next_trump_seat:
        raise InvalidRoundError(
            "trump_seat",
            f"the trump caller of round {expected} is seat {match.next_trump_seat} "
            f"(KORT_RULES §5); got seat {report['trump_seat']}",
        )
    tricks, decision = _round_summary(match, report, play)
    result = round_outcome(report["trump_seat"], tricks, decision)
    stored = Round.objects.create(
        match=match,
        number=expected,
        trump_seat=report["trump_seat"],
        tricks_a=tricks[Team.A],
        tricks_b=tricks[Team.B],
        bavan=decision,
        bavan_votes=list(report.get("bavan_votes") or []),
        outcome=result.outcome,
        winner=result.winner,
        wins_awarded=result.wins_awarded,
        shutout_team=result.shutout_team,
        report=body,
        play=play,
    )
    _match_advance(match, result)
    return stored, True


def _canonical(report: Mapping) -> dict:
    """The report's body as stored for resend comparison (JSON types, no ``number``; the
    record, ``play``, is stored and compared on its own)."""
    body = {key: value for key, value in report.items() if key not in ("number", "play")}
    if "tricks" in report:
        body["tricks"] = {str(team): n for team, n in report["tricks"].items()}
    return body


def _round_summary(match: Match, report: Mapping, play: dict | None):
    """``(tricks, decision)`` of a report: final tricks by team and the Bavan decision, from
    the summary fields or, with a record, from its replay (KORT_RULES §1-§4; API.md "play").

    Raises:
        InvalidRoundError: a summary-only round on a match that requires records (``play``), a
            summary field that disagrees with the record, or votes §4 rejects.
        InvalidRecordError: the record does not replay.
    """
    given, votes = report.get("bavan"), report.get("bavan_votes")
    if play is None:
        if match.require_play:
            raise InvalidRoundError("play", PLAY_REQUIRED)
        tricks = {Team(team): n for team, n in report["tricks"].items()}
        return tricks, _bavan_decision(tricks, given, votes)
    replayed = replay_report(play, report)
    decision = _bavan_decision(replayed.tricks, given, votes)
    return replayed.tricks, replayed.decision(decision, "bavan" if given else "bavan_votes")


def _bavan_decision(tricks, bavan, votes) -> BavanDecision | None:
    """The decision of the report: as given, or resolved from the votes (KORT_RULES §4)."""
    given = BavanDecision(bavan) if bavan else None
    if not votes:
        return given
    voting_team = max(tricks, key=tricks.get)
    if min(tricks.values()) > 1 or tricks[voting_team] < 7:
        raise InvalidRoundError("bavan_votes", "a Bavan vote is held only at 7:0 (KORT_RULES §4)")
    tally = resolve_votes(
        voting_team, [CastVote(v["seat"], Vote(v["vote"]), v["at_ms"]) for v in votes]
    )
    if given is not None and given is not tally.decision:
        raise InvalidRoundError(
            "bavan",
            f"the votes resolve to '{tally.decision}' at {tally.resolved_at_ms} ms but the "
            f"report says '{given}' (KORT_RULES §4)",
        )
    return tally.decision


def _match_advance(match: Match, result) -> None:
    """Add a round's result to the match; complete it when a team reaches the target (§1)."""
    if result.winner is Team.A:
        match.wins_a += result.wins_awarded
    else:
        match.wins_b += result.wins_awarded
    match.next_trump_seat = next_trump_seat(match.next_trump_seat, result)
    winner = match_winner(match.wins, match.target_wins)
    if winner is not None:
        match.winner = winner
        match.status = MatchStatus.COMPLETED
        match.completed_at = timezone.now()
        transaction.on_commit(lambda: finalize_match.delay(match.pk))
    match.save()


class _errors_under:
    """Re-raise rule and validation errors of one round under ``prefix`` (``rounds[2]``)."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if isinstance(exc, ValueError) and hasattr(exc, "field"):
            raise InvalidRoundError(f"{self.prefix}.{exc.field}", str(exc)) from exc
        if isinstance(exc, ValidationError | Conflict) and isinstance(exc.detail, dict):
            detail = {f"{self.prefix}.{key}": value for key, value in exc.detail.items()}
            raise type(exc)(detail) from exc
        return False

"""The figures of the pipeline that finalizes matches and resolves live votes, as the database
holds them now (API.md "Operating the service", "Nothing is lost"): what ``/metrics`` reports at
each scrape, the same whichever process answers. ``manage.py ladder_status`` prints the same
questions, asked through the same selectors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min
from django.utils import timezone

from matches.live_vote.selectors import votes_past_deadline
from matches.models import Match, MatchStatus
from matches.selectors import matches_awaiting_finalization
from seasons.models import Season, SeasonStatus

FINALIZED = (MatchStatus.FINALIZED, MatchStatus.VOID)
"""A voided match was finalized first (KORT_RULES §11): it still counts as finalized once."""

_sealed: dict[tuple[int, datetime | None], int] = {}
"""The finalized matches of each finalized season, by its number and the moment it was
finalized, counted once per process: a
finalized season gains none (its end finalized every match completed in it, and a match
completed after it belongs to the next season, KORT_RULES §10), and loses none (a voided match
still counts)."""


@dataclass(frozen=True)
class PipelineFigures:
    """``matches_waiting``: completed, not finalized; ``oldest_waiting_seconds``: how long the
    earliest of them has waited (0.0 when none does); ``votes_overdue``: open live votes past
    their deadline (KORT_RULES §4); ``matches_finalized``: every match ever finalized;
    ``season_end_running``: a season's end is claimed and not done, its reset still being
    written included (KORT_RULES §10)."""

    matches_waiting: int
    oldest_waiting_seconds: float
    votes_overdue: int
    matches_finalized: int
    season_end_running: bool


def pipeline_figures(now: datetime | None = None) -> PipelineFigures:
    """The pipeline's figures at ``now`` (default: the current time), in five queries: the
    waiting matches and the open votes through their partial indexes, the seasons, and the
    finalized matches of the seasons not finalized yet (:func:`matches_finalized`)."""
    now = now or timezone.now()
    waiting = matches_awaiting_finalization().aggregate(
        count=Count("pk"), oldest=Min("completed_at")
    )
    oldest = waiting["oldest"]
    rows = list(Season.objects.values_list("number", "status", "finalized_at", "reset_floor"))
    seasons = [(number, status, finalized_at) for number, status, finalized_at, _ in rows]
    return PipelineFigures(
        matches_waiting=waiting["count"],
        oldest_waiting_seconds=(now - oldest).total_seconds() if oldest else 0.0,
        votes_overdue=votes_past_deadline(now).count(),
        matches_finalized=matches_finalized(seasons),
        season_end_running=any(
            status == SeasonStatus.FINALIZING or floor is not None for _, status, _, floor in rows
        ),
    )


def matches_finalized(seasons: list[tuple[int, str, datetime | None]]) -> int:
    """How many matches were ever finalized, given every season's ``(number, status,
    finalized_at)``: those of the seasons not finalized yet (the current one, one ending)
    counted now through the index on (season, status), those of each finalized season once
    per process (:data:`_sealed`), so a scrape does not count the whole history."""
    open_seasons = [number for number, status, _ in seasons if status != SeasonStatus.FINALIZED]
    total = Match.objects.filter(season__in=open_seasons, status__in=FINALIZED).count()
    for number, status, finalized_at in seasons:
        if status == SeasonStatus.FINALIZED:
            key = (number, finalized_at)
            if key not in _sealed:
                _sealed[key] = Match.objects.filter(season=number, status__in=FINALIZED).count()
            total += _sealed[key]
    return total

"""The figures of the pipeline that finalizes matches and resolves live votes, as the database
holds them now (API.md "Operating the service", "Nothing is lost"): what ``/metrics`` reports at
each scrape, the same whichever process answers. ``manage.py ladder_status`` prints the same
questions, asked through the same selectors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min, Sum
from django.utils import timezone

from matches.live_vote.selectors import votes_past_deadline
from matches.selectors import matches_awaiting_finalization
from ranking.models import FinalizedCount
from seasons.selectors import season_end_running


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
    """The pipeline's figures at ``now`` (default: the current time), in four queries: the
    waiting matches and the open votes through their partial indexes, the seasons, and the
    finalized matches' stored count (:class:`ranking.models.FinalizedCount`)."""
    now = now or timezone.now()
    waiting = matches_awaiting_finalization().aggregate(
        count=Count("pk"), oldest=Min("completed_at")
    )
    oldest = waiting["oldest"]
    return PipelineFigures(
        matches_waiting=waiting["count"],
        oldest_waiting_seconds=(now - oldest).total_seconds() if oldest else 0.0,
        votes_overdue=votes_past_deadline(now).count(),
        matches_finalized=FinalizedCount.objects.aggregate(total=Sum("matches"))["total"] or 0,
        season_end_running=season_end_running(),
    )

"""Celery tasks of the live Bavan vote (KORT_RULES §4): thin wrappers that take ids and call a
service of ``matches.live_vote.services``. The services queue them by name, so this module is
the only one that imports both."""

from celery import shared_task

from delivery.retry import TRANSIENT_ERRORS
from matches.live_vote.services import BOT_VOTES_TASK, EXPIRE_TASK, bot_votes_cast, vote_expire


@shared_task(name=EXPIRE_TASK, autoretry_for=TRANSIENT_ERRORS, retry_backoff=True, max_retries=5)
def expire_bavan_vote(vote_id: int) -> bool:
    """Settle the vote at its deadline: resolve it if still open past the deadline; nothing
    if it is resolved (see ``vote_expire``)."""
    return vote_expire(vote_id)


@shared_task(name=BOT_VOTES_TASK, autoretry_for=TRANSIENT_ERRORS, retry_backoff=True, max_retries=5)
def cast_bot_votes(vote_id: int) -> int:
    """Cast the votes of the voters that count as bots (see ``bot_votes_cast``)."""
    return bot_votes_cast(vote_id)

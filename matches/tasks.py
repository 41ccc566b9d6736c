"""Celery tasks of the live Bavan vote (KORT_RULES §4): thin wrappers that take ids and call a
service of ``matches.votes``. The services queue these tasks themselves, so each task imports
its service when it runs."""

from celery import shared_task
from django.db import DatabaseError


@shared_task(autoretry_for=(DatabaseError,), retry_backoff=True, max_retries=5)
def expire_bavan_vote(vote_id: int) -> bool:
    """Resolve a vote still open at its deadline; nothing if it is resolved (see
    ``matches.votes.vote_expire``)."""
    from matches.votes import vote_expire

    return vote_expire(vote_id)


@shared_task(autoretry_for=(DatabaseError,), retry_backoff=True, max_retries=5)
def cast_bot_votes(vote_id: int) -> int:
    """Cast the votes of the voters that count as bots (see ``matches.votes.bot_votes_cast``)."""
    from matches.votes import bot_votes_cast

    return bot_votes_cast(vote_id)

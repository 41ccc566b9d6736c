"""The finalization task (KORT_RULES §7): queued by its name, so matches need not import the
ladder."""

from matches.rounds import finalize_match as queued_finalization
from ranking import tasks


def test_matches_queue_the_finalization_task_by_its_name():
    assert queued_finalization["task"] == tasks.finalize_match.name == "ranking.finalize_match"
    assert queued_finalization.type.name == tasks.finalize_match.name

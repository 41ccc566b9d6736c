"""The facts a finalization computes a match's effect from (KORT_RULES §7, §8): read in two
plain statements on its hot path (``completed_facts``) they are the facts the models give
(``facts_of``, which voids and ``rebuild_ladder`` use), for ranked and room matches, bots
seated or not, on the database the suite runs on."""

import random

import pytest

from matches.kort.rules import Mode
from matches.models import Match
from players.services import player_create
from ranking.demo import random_match_rounds
from ranking.effects import completed_facts, facts_of
from ranking.services import SEATS_WITH_PLAYERS
from tests.api_steps import MATCHES, ids_of, match_start


@pytest.mark.parametrize("mode", ["ranked", "room"])
@pytest.mark.parametrize("bots", [0, 2])
def test_the_facts_read_plainly_are_the_facts_of_the_models(service, cast, mode, bots):
    robots = [player_create(username=f"bot{n}", is_bot=True) for n in range(bots)]
    seats = ids_of(cast[: 4 - bots]) + ids_of(robots)
    rng = random.Random(f"{mode}-{bots}")
    for first_trump_seat in range(4):
        rng.shuffle(seats)
        rounds = random_match_rounds(rng, Mode(mode), first_trump_seat)
        body = {"mode": mode, "seats": seats, "first_trump_seat": first_trump_seat}
        response = service.post(MATCHES, {**body, "rounds": rounds})
        assert response.status_code == 201, response.data
        match = Match.objects.prefetch_related("rounds", SEATS_WITH_PLAYERS).get(
            pk=response.data["id"]
        )

        facts = completed_facts(match.pk)

        assert facts == facts_of(match)
        assert facts is not None
        assert len(facts.results) == len(rounds)
        assert sorted(facts.human_teams) == sorted(ids_of(cast[: 4 - bots]))


def test_a_match_without_a_winner_has_no_facts(service, cast):
    assert completed_facts(match_start(service, ids_of(cast))) is None

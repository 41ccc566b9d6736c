"""Random histories through the service, then the rebuild: the writer and the rebuild fold the
same steps (``ranking.fold``), so replaying every player's history gives what is stored, after
any mix of ranked and room matches, voids, bans, bans with a refund and season ends (KORT_RULES
§7, §8, §10, §11)."""

from io import StringIO

from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.models import Player
from players.services import player_create
from ranking.services import match_void, player_ban, player_ban_refund
from tests.api_steps import match_play, round_body
from tests.ranking.season_steps import season_end

PLAYERS = 6
SEATINGS = st.permutations(range(PLAYERS)).map(lambda order: order[:4])
ROUNDS = {
    # One round ends each match: a Kort or an At-kort (ranked, §5), a Bavan (room, §6).
    ("ranked", True): [round_body(0, 7, 0, "stop")],
    ("ranked", False): [round_body(0, 0, 7, "stop")],
    ("room", True): [round_body(0, 13, 0, "go")],
    ("room", False): [round_body(0, 0, 13, "go")],
}
STEPS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["ranked", "room"]), SEATINGS, st.booleans()),
        st.tuples(st.sampled_from(["void"]), st.integers(0, 20)),
        st.tuples(st.sampled_from(["ban", "unban", "refund"]), st.integers(0, PLAYERS - 1)),
        st.tuples(st.just("end")),
    ),
    max_size=10,
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS)
def test_any_history_folds_again_to_what_is_stored(service, steps):
    first = Player.objects.count()
    ids = [player_create(username=f"history{first + n}").pk for n in range(PLAYERS)]
    played: list[int] = []
    for kind, *args in steps:
        if kind in ("ranked", "room"):
            seating, a_wins = args
            seats = [ids[n] for n in seating]
            if Player.objects.filter(pk__in=seats, is_banned=True).exists():
                continue
            played.append(match_play(service, seats, ROUNDS[kind, a_wins], mode=kind))
        elif kind == "void" and played:
            match_void(played.pop(args[0] % len(played)), "a broken table")
        elif kind in ("ban", "unban"):
            player_ban(Player.objects.get(pk=ids[args[0]]), kind == "ban")
        elif kind == "refund":
            voided = set(player_ban_refund(ids[args[0]], "cheating").voided)
            played = [match_id for match_id in played if match_id not in voided]
        elif kind == "end":
            season_end()

    out = StringIO()
    call_command("rebuild_ladder", stdout=out)
    assert "No difference" in out.getvalue()

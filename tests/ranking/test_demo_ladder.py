"""``manage.py load_demo_ladder``: a seeded demo ladder that finalizes, fills the leaderboard,
covers every round outcome and is not duplicated by a second run."""

import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from rest_framework_api_key.models import APIKey

from matches.kort.rules import Outcome
from matches.models import Match, Round
from players.models import Player
from ranking.models import CupChange


@pytest.fixture
def load(db, django_capture_on_commit_callbacks):
    """Run the command; its matches are finalized as their creation commits."""

    def run(*options: str) -> str:
        out = StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("load_demo_ladder", *options, stdout=out)
        return out.getvalue()

    return run


def counts() -> tuple[int, ...]:
    models = (Player, Match, Round, CupChange, APIKey)
    return tuple(model.objects.count() for model in models)


def test_the_demo_ladder_fills_the_leaderboard(load, api):
    out = load()
    key = out.split("Authorization: Api-Key ")[1].split()[0]
    assert APIKey.objects.get_from_key(key).name == "demo"
    assert Player.objects.filter(is_bot=False).count() == 12
    assert Player.objects.filter(is_bot=True).count() == 2
    assert Match.objects.filter(mode="ranked", status="finalized").count() == 20
    assert Match.objects.filter(mode="room", status="finalized").count() == 4
    assert set(Round.objects.values_list("outcome", flat=True)) == set(Outcome)

    rows = api.get("/api/v1/leaderboard/", {"limit": 100}).data["results"]
    assert rows
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    bots = set(Player.objects.filter(is_bot=True).values_list("pk", flat=True))
    assert not bots & {row["player"]["id"] for row in rows}
    assert "/api/v1/leaderboard/" in out and "createsuperuser" in out


def test_a_second_run_creates_nothing_and_shows_no_key(load):
    load()
    before = counts()
    out = load()
    assert counts() == before
    assert "Api-Key" not in out
    assert "exists already" in out
    assert "(0 new), 24 matches (0 new)" in out


def test_the_demo_ladder_is_what_its_rounds_give(load):
    load()
    out = StringIO()
    call_command("rebuild_ladder", stdout=out)
    assert out.getvalue().startswith("No difference")


def test_the_addresses_printed_are_those_it_will_be_served_on(load):
    assert "http://127.0.0.1:8000/api/v1/leaderboard/" in load()
    served = load("--address", "127.0.0.1:8765")
    assert "runserver 127.0.0.1:8765" in served
    assert "http://127.0.0.1:8765/en/" in served
    assert "8000" not in served


@pytest.mark.parametrize(
    ("interpreter", "called"),
    [
        (settings.BASE_DIR / ".venv" / "bin" / "python", ".venv/bin/python"),
        ("/usr/bin/python3", "python"),
    ],
    ids=["virtualenv", "elsewhere"],
)
def test_the_closing_hints_call_manage_py_with_the_python_that_has_django(
    load, monkeypatch, interpreter, called
):
    """Run from the project's virtualenv (as ``make run`` does), the hints name its Python, as
    the docs' commands do: a bare ``python`` has no Django in a fresh clone."""
    monkeypatch.setattr(sys, "executable", str(interpreter))

    first, again = load(), load()

    assert f"`{called} manage.py runserver 127.0.0.1:8000`" in first
    assert f"`{called} manage.py createsuperuser`" in first
    assert f"`{called} manage.py create_service_key NAME`" in again

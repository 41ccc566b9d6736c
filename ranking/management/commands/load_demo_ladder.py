"""``manage.py load_demo_ladder``: load a small seeded demo ladder (logic in ``ranking.demo``).

Idempotent: a second run finds the demo players and matches and creates nothing. The service
key named ``demo`` is printed when it is issued; a key is shown only once, so later runs say it
exists and how to issue another instead of printing anything secret.
"""

import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

from ranking.demo import DEMO_KEY_NAME, demo_ladder_load

WHERE_TO_LOOK = """\
Once served (`{python} manage.py runserver {address}`, as `make run` does), look at:
  the players' pages (/ru/ in Russian)  http://{address}/en/
  the leaderboard                       http://{address}/api/v1/leaderboard/
  the API, browsable                    http://{address}/api/docs/ (schema at /api/schema/)
  the admin                             http://{address}/admin/ (make a login with
                                        `{python} manage.py createsuperuser`)"""


def python_called() -> str:
    """The Python to call ``manage.py`` with, as the hints print it: the project's virtualenv
    from the project's directory (``.venv/bin/python``, where ``make`` installs Django) when
    this command runs in it, else ``python`` (the Docker image's)."""
    try:
        return str(Path(sys.executable).relative_to(settings.BASE_DIR))
    except ValueError:
        return "python"


class Command(BaseCommand):
    help = (
        "Load a small seeded demo ladder (12 humans, 2 bots, 24 matches) into the configured "
        "database; running it again creates nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--address",
            default="127.0.0.1:8000",
            help="host:port the ladder will be served on, for the addresses printed at the end",
        )

    def handle(self, *args, **options):
        ladder = demo_ladder_load()
        database = connection.settings_dict["NAME"]
        self.stdout.write(
            f"Demo ladder on {connection.vendor} ({database}): {ladder.players} players "
            f"({ladder.players_created} new), {ladder.matches} matches "
            f"({ladder.matches_created} new)."
        )
        if not settings.CELERY_TASK_ALWAYS_EAGER and ladder.matches_created:
            self.stdout.write("New matches are finalized by the Celery worker once it runs.")
        if ladder.key is None:
            self.stdout.write(
                f"The service key '{DEMO_KEY_NAME}' exists already and a key is shown only "
                f"once; issue another with `{python_called()} manage.py create_service_key NAME`."
            )
        else:
            self.stdout.write(f"Service key '{DEMO_KEY_NAME}' (shown once, store it now):")
            self.stdout.write(f"  Authorization: Api-Key {ladder.key}")
        self.stdout.write(WHERE_TO_LOOK.format(address=options["address"], python=python_called()))

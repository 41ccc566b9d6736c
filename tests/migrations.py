"""Moving a test database between migration states, for the tests that migrate databases
holding rows (the upgrade from the last release) or step a migration back."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(apps_at: dict[str, str | None]):
    """Migrate the test database to ``apps_at`` ({app: last migration}, None: none), every other
    app to its latest, and return the models of that state."""
    executor = MigrationExecutor(connection)
    targets = [(app, apps_at.get(app, name)) for app, name in executor.loader.graph.leaf_nodes()]
    executor.migrate(targets)
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps

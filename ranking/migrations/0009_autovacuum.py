"""Per-table autovacuum for the tables the reads of ranks and boards scan and every
finalization updates (PostgreSQL only; docs/scaling.md, "Autovacuum"). Reversible: the
backwards step resets the storage parameters to the server's defaults."""

from django.db import migrations

AUTOVACUUM = {
    "players_player": {
        "autovacuum_vacuum_scale_factor": 0.01,
        "autovacuum_vacuum_threshold": 1000,
        "autovacuum_analyze_scale_factor": 0.02,
    },
    "ranking_boardcount": {
        "autovacuum_vacuum_scale_factor": 0.0,
        "autovacuum_vacuum_threshold": 500,
        "autovacuum_analyze_scale_factor": 0.1,
    },
    "ranking_boardtotal": {
        "autovacuum_vacuum_scale_factor": 0.0,
        "autovacuum_vacuum_threshold": 100,
        "autovacuum_analyze_scale_factor": 0.1,
    },
    "stats_seasonstats": {
        "autovacuum_vacuum_scale_factor": 0.02,
        "autovacuum_vacuum_threshold": 1000,
        "autovacuum_analyze_scale_factor": 0.05,
    },
}
"""Storage parameters by table: vacuum once this share of the rows (plus the threshold) is
dead, analyze once this share changed (the defaults are 20%, 50 rows and 10%)."""


def _apply(schema_editor, reset: bool) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # SQLite has no autovacuum
    for table, parameters in AUTOVACUUM.items():
        quoted = schema_editor.quote_name(table)
        if reset:
            schema_editor.execute(f"ALTER TABLE {quoted} RESET ({', '.join(parameters)})")
        else:
            values = ", ".join(f"{name} = {value}" for name, value in parameters.items())
            schema_editor.execute(f"ALTER TABLE {quoted} SET ({values})")


def forwards(apps, schema_editor):
    _apply(schema_editor, reset=False)


def backwards(apps, schema_editor):
    _apply(schema_editor, reset=True)


class Migration(migrations.Migration):
    dependencies = [
        # Only the tables it tunes: the players' (players 0002) and the season statistics'
        # (stats 0003), so the players' later migrations can be stepped back across it.
        ("players", "0002_player_table_and_content_type"),
        ("ranking", "0008_ledger_constraints_and_season_ends"),
        ("stats", "0003_seasonstats"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]

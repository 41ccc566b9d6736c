"""The prefix index of ``username`` that the old table's name kept: ``username`` was unique
with its ``LIKE`` index when the table was ``ranking_player``; once the table was renamed,
making the column non-unique (0005) looked for the index under the new table's name and left
it. Nothing reads ``username`` by prefix (searches compare ``username_key``), and every
change of a player's row wrote it (a season's reset: a million entries)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ('players', '0007_player_name_prefix_search'),
    ]

    operations = [
        migrations.RunSQL(
            'DROP INDEX IF EXISTS "ranking_player_username_3e303104_like"',
            migrations.RunSQL.noop,
        ),
    ]

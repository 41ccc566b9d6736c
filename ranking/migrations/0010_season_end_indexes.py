# Fewer entries for a season's end to write (a million rows each): the ledger's player index
# goes (cup_changes_newest_first starts with the player), its match index leaves out the
# resets' rows (they have no match), the standings' season index goes (their unique
# constraints start with the season), and the database does not check the standings' keys
# (ranking.models.SeasonStanding says why).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ranking', '0009_autovacuum'),
    ]

    operations = [
        migrations.AlterField(
            model_name='cupchange',
            name='match',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='cup_changes', to='matches.match'),
        ),
        migrations.AlterField(
            model_name='cupchange',
            name='player',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='cup_changes', to='players.player'),
        ),
        migrations.AlterField(
            model_name='seasonstanding',
            name='player',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='season_standings', to='players.player'),
        ),
        migrations.AlterField(
            model_name='seasonstanding',
            name='season',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='standings', to='seasons.season'),
        ),
        migrations.AddIndex(
            model_name='cupchange',
            index=models.Index(condition=models.Q(('match__isnull', False)), fields=['match'], name='cup_changes_of_a_match'),
        ),
    ]

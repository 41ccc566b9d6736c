# The case-folded usernames that 0004 filled are unique; the username itself is checked by the
# rule of API.md "Players" (players.usernames) and unique through its folded form.

import players.models
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0004_player_username_key'),
    ]

    operations = [
        migrations.AlterField(
            model_name='player',
            name='username_key',
            field=players.models.UsernameKeyField(
                editable=False,
                help_text='The username case-folded (players.usernames.username_key): unique, '
                'and what lookups and searches by username compare.',
                max_length=120,
            ),
        ),
        migrations.AlterField(
            model_name='player',
            name='username',
            field=models.CharField(max_length=40, validators=[players.models.validate_username]),
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.UniqueConstraint(
                fields=('username_key',), name='username_unique_ignoring_case'
            ),
        ),
    ]

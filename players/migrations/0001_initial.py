# The Player model moves here from the ranking app with its rows: in the state only, on the
# table the ranking app created (ranking_player), which 0002 renames.

import django.core.validators
import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('ranking', '0002_username_unique_ignoring_case'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Player',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('username', models.CharField(max_length=40, unique=True, validators=[django.core.validators.RegexValidator('^[A-Za-z0-9_.-]+$', "letters, digits, '_', '.', '-' only")])),
                        ('display_name', models.CharField(max_length=80)),
                        ('is_bot', models.BooleanField(default=False)),
                        ('is_banned', models.BooleanField(default=False, help_text='Banned players cannot join new matches and are off the leaderboard.')),
                        ('cups', models.IntegerField(default=0, editable=False)),
                        ('best_cups', models.IntegerField(default=0, editable=False)),
                        ('cups_changed_at', models.DateTimeField(blank=True, editable=False, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('user', models.OneToOneField(blank=True, help_text='The login of a human player; bots have none.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='player', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'ranking_player',
                        'ordering': ['id'],
                        'indexes': [models.Index(fields=['-cups', 'cups_changed_at', 'id'], name='leaderboard_order')],
                        'constraints': [models.CheckConstraint(condition=models.Q(('is_bot', False), ('user__isnull', True), _connector='OR'), name='bot_has_no_login'), models.CheckConstraint(condition=models.Q(('best_cups__gte', 0)), name='best_cups_not_negative'), models.UniqueConstraint(django.db.models.functions.text.Lower('username'), name='username_unique_ignoring_case'), models.CheckConstraint(condition=models.Q(('best_cups__gte', models.F('cups'))), name='best_cups_is_best')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]

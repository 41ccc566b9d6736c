"""Calls run at the same moment from several threads, each on its own database connection: how
the tests on PostgreSQL show that row locks and conditional updates do what they claim."""

import threading

from django.db import connection


def at_once(calls) -> list:
    """Run each call in its own thread, all released together; each thread uses its own
    database connection and closes it. Returns the calls' results in order."""
    start = threading.Barrier(len(calls))
    results = [None] * len(calls)
    errors = []

    def run(index, call):
        try:
            start.wait()
            results[index] = call()
        except Exception as error:  # re-raised in the test's thread below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results

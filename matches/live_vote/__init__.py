"""The live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote"): a subsystem of the matches
app with its own models, services, selectors, tasks and API.

Lock order: the vote row, then the match row. Timed work (the deadline, the bots' votes) runs
in tasks queued on commit by name; reading a vote, finishing its round and reporting the next
round settle what is due as well, so the answers do not depend on a worker being on time.
"""

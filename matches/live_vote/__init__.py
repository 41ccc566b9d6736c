"""The live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote"): a subsystem of the matches
app with its own models, services, selectors, tasks and API.

Lock order: the vote row, then the match row. What is due at a moment (the bots' votes, the
deadline) is the pure ``matches.kort.vote_due.due_events``, written by one settle
(``services.vote_settle``) in tasks queued on commit by name and by the sweeper; a vote, a
finish and the next round's report settle it in their own transaction, and reads show it in
memory without writing, so the answers do not depend on a worker being on time.
"""

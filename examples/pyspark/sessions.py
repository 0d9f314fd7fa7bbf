"""Per-user activity summary of an application's event stream.

events.csv: user,timestamp,action  (timestamp in epoch seconds)

For every user: the time of the latest event, the number of events, the
number of sessions (distinct SESSION_SECONDS windows with activity) and
the number of logins (0 for users who never logged in during the period).
Users with more than ACTIVE_THRESHOLD events are flagged "active".
Malformed events are skipped.

Usage: sessions.py <events.csv> <summary_out>
"""
import sys

from pyspark import SparkContext

SESSION_SECONDS = 1800
ACTIVE_THRESHOLD = 3


def parse_event(line):
    """(user, timestamp, action) of one event, or None if malformed."""
    try:
        fields = line.split(",")
        user = fields[0].strip().lower()
        timestamp = int(fields[1])
        action = fields[2].strip()
        return (user, timestamp, action)
    except (ValueError, IndexError):
        return None


def user_time(event):
    user, timestamp, action = event
    return (user, timestamp)


def user_window(event):
    user, timestamp, action = event
    return (user, timestamp // SESSION_SECONDS)


def is_login(event):
    user, timestamp, action = event
    return action == "login"


def summarize(pair):
    """One CSV line per user: user,last_seen,events,sessions,logins,flag."""
    user, stats = pair
    activity, logins = stats
    seen, sessions = activity
    last_seen, events = seen
    login_count = logins if logins is not None else 0
    flag = "active" if events > ACTIVE_THRESHOLD else "casual"
    return f"{user},{last_seen},{events},{sessions},{login_count},{flag}"


def user_sessions(event_lines):
    """Activity summary lines, one per user with at least one valid event."""
    events = event_lines.map(parse_event).filter(lambda e: e is not None)
    latest = events.map(user_time).reduceByKey(lambda a, b: max(a, b))
    counts = events.map(user_time).mapValues(lambda t: 1).reduceByKey(lambda a, b: a + b)
    windows = events.map(user_window).distinct()
    sessions = windows.keys().map(lambda u: (u, 1)).reduceByKey(lambda x, y: x + y)
    logins = events.filter(is_login).map(user_time).mapValues(lambda t: 1).reduceByKey(lambda m, n: m + n)
    summary = latest.join(counts).join(sessions).leftOuterJoin(logins)
    return summary.map(summarize)


if __name__ == "__main__":
    sc = SparkContext(appName="sessions")
    events = sc.textFile(sys.argv[1])
    user_sessions(events).saveAsTextFile(sys.argv[2])
    sc.stop()

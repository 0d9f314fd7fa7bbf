"""Sign-ups per e-mail domain over two daily exports, without duplicates.

signups_<day>.csv: signup_time,email,channel

The same person often appears in both exports, with the address typed in
different case or padded with spaces, and the legacy web form stores the
address as a "mailto:" link. Addresses are normalized, bulk imports
(channel "import") are not sign-ups and are dropped, as are rows without a
usable address; each distinct address then counts once for its domain.

Usage: dedup_union.py <yesterday.csv> <today.csv> <domains_out>
"""
import sys

from pyspark import SparkContext

LINK_PREFIX = "mailto:"


def normalize_email(raw):
    """Lower-cased address without surrounding blanks or a mailto: prefix."""
    email = raw.strip().lower()
    if email.startswith(LINK_PREFIX):
        email = email[7:]
    return email


def parse_signup(line):
    """The normalized address of one sign-up row, or None."""
    try:
        fields = line.split(",")
        email = normalize_email(fields[1])
        channel = fields[2].strip().lower()
        if channel == "import":
            return None
        if email.find("@") < 1:
            return None
        return email
    except (ValueError, IndexError):
        return None


def email_domain(email):
    parts = email.split("@")
    return (parts[1], 1)


def signups_per_domain(yesterday_lines, today_lines):
    """(domain, number of distinct addresses) over both exports."""
    signups = (yesterday_lines.union(today_lines)
               .map(parse_signup)
               .filter(lambda e: e is not None)
               .distinct())
    return signups.map(email_domain).reduceByKey(lambda a, b: a + b)


if __name__ == "__main__":
    sc = SparkContext(appName="dedup_union")
    yesterday = sc.textFile(sys.argv[1])
    today = sc.textFile(sys.argv[2])
    signups_per_domain(yesterday, today).saveAsTextFile(sys.argv[3])
    sc.stop()

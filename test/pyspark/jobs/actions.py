"""Actions as the function's results: collect(), count() and reduce().

reduce() of an empty RDD fails the job with ValueError, as on Spark.
"""


def amount(line):
    return int(line.split(":")[1])


def totals(lines):
    """The valid lines, how many there are, and the sum of their amounts."""
    valid = lines.filter(lambda line: line.startswith("+"))
    amounts = valid.map(amount)
    return valid.collect(), valid.count(), amounts.reduce(lambda a, b: a + b)

"""Error traffic in a web server access log.

Reads an access log in the Common Log Format,

    10.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET /index.html HTTP/1.1" 404 2326

drops malformed lines and load-balancer health checks, and reports, over
the error responses (status 400 and above), the bytes sent to each client
host and the number of errors per day.

Usage: weblog_errors.py <access_log> <bytes_per_host_out> <errors_per_day_out>
"""
import sys

from pyspark import SparkContext

ERROR_STATUS = 400
HEALTH_CHECK_PREFIX = "/health"


def parse_request(line):
    """(host, day, path, status, bytes) of one log line, or None if malformed."""
    try:
        parts = line.split('"')
        prefix = parts[0].split(" ")
        host = prefix[0]
        stamp = prefix[3]
        day = stamp[1:12]
        request = parts[1].split(" ")
        path = request[1]
        tail = parts[2].strip().split(" ")
        status = int(tail[0])
        size = tail[1]
        # The server logs "-" when no body was sent.
        nbytes = 0 if size == "-" else int(size)
        return (host, day, path, status, nbytes)
    except (ValueError, IndexError):
        return None


def is_error(request):
    """An error response that is not a health-check probe."""
    host, day, path, status, nbytes = request
    return status >= ERROR_STATUS and not path.startswith(HEALTH_CHECK_PREFIX)


def host_bytes(request):
    host, day, path, status, nbytes = request
    return (host, nbytes)


def day_one(request):
    host, day, path, status, nbytes = request
    return (day, 1)


def error_report(log_lines):
    """Bytes sent per host and error count per day, over error responses."""
    requests = log_lines.map(parse_request).filter(lambda r: r is not None)
    errors = requests.filter(is_error)
    bytes_per_host = errors.map(host_bytes).reduceByKey(lambda a, b: a + b)
    errors_per_day = errors.map(day_one).reduceByKey(lambda x, y: x + y)
    return bytes_per_host, errors_per_day


if __name__ == "__main__":
    sc = SparkContext(appName="weblog_errors")
    log_lines = sc.textFile(sys.argv[1])
    bytes_per_host, errors_per_day = error_report(log_lines)
    bytes_per_host.saveAsTextFile(sys.argv[2])
    errors_per_day.saveAsTextFile(sys.argv[3])
    sc.stop()

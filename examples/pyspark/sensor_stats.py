"""Peak temperature and number of readings per sensor.

readings.csv: sensor_id,timestamp,value,unit  (unit "C" or "F")

Older sensors report in Fahrenheit; their readings are converted to
Celsius. Readings that do not parse (sensor errors such as "ERR") and
implausible values outside the sensors' range are skipped.

Usage: sensor_stats.py <readings.csv> <peak_out> <count_out>
"""
import sys

from pyspark import SparkContext

MIN_CELSIUS = -40.0
MAX_CELSIUS = 125.0


def to_celsius(value, unit):
    if unit == "F":
        return (value - 32.0) * 5.0 / 9.0
    return value


def parse_reading(line):
    """(sensor_id, celsius) of one plausible reading, or None."""
    try:
        fields = line.split(",")
        sensor = fields[0].strip()
        value = float(fields[2])
        unit = fields[3].strip().upper()
        celsius = to_celsius(value, unit)
        if MIN_CELSIUS <= celsius <= MAX_CELSIUS:
            return (sensor, celsius)
        return None
    except (ValueError, IndexError):
        return None


def sensor_stats(reading_lines):
    """Per sensor: the peak temperature, and the number of valid readings."""
    readings = reading_lines.map(parse_reading).filter(lambda r: r is not None)
    peaks = readings.reduceByKey(lambda a, b: max(a, b))
    counts = readings.keys().map(lambda sensor: (sensor, 1)).reduceByKey(lambda x, y: x + y)
    return peaks, counts


if __name__ == "__main__":
    sc = SparkContext(appName="sensor_stats")
    readings = sc.textFile(sys.argv[1])
    peaks, counts = sensor_stats(readings)
    peaks.saveAsTextFile(sys.argv[2])
    counts.saveAsTextFile(sys.argv[3])
    sc.stop()

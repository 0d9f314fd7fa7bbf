"""Cleans raw click-stream lines into typed events: a DataFrame ETL whose
parsing is Python UDFs over each line (as `spark.read.text` gives them).

    python events_etl.py data/clicks.csv /tmp/out-events_etl

Each line is `user,action,seconds`; comment lines start with `#`. A line
with no user or an unparsable or negative duration is dropped.
"""
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType

LINES_SCHEMA = "value STRING NOT NULL"


@F.udf(returnType=LongType())
def millis_of(seconds_text):
    if seconds_text is None:
        return None
    try:
        seconds = float(seconds_text)
    except ValueError:
        return None
    if seconds < 0.0:
        return None
    return int(seconds * 1000)


@F.udf(returnType=StringType())
def user_of(name):
    if name is None or name.startswith("#"):
        return None
    user = name.strip().lower()
    if user == "":
        return None
    return user


def clean_events(lines: DataFrame) -> DataFrame:
    fields = F.split(F.col("value"), ",")
    parsed = lines.select(
        user_of(fields.getItem(0)).alias("user"),
        fields.getItem(1).alias("action"),
        millis_of(fields.getItem(2)).alias("millis"),
    )
    valid = parsed.filter(F.col("user").isNotNull() & F.col("millis").isNotNull())
    kinds = valid.withColumn(
        "kind",
        F.when(F.col("action") == "click", "interaction")
        .when(F.col("action") == "view", "impression")
        .otherwise("other"),
    )
    return kinds.withColumn("seconds", F.col("millis") / 1000)


if __name__ == "__main__":
    spark = SparkSession.builder.appName("events_etl").getOrCreate()
    lines = spark.read.text(sys.argv[1])
    clean_events(lines).write.mode("overwrite").csv(sys.argv[2])
    spark.stop()

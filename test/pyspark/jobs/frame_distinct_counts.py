"""DataFrame subset: count_distinct per group counts the distinct non-NULL
values (0 for a group of only NULLs), beside other aggregates and alone;
the NULL key's group counts its own."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

EVENTS_SCHEMA = "page STRING, user STRING, ms BIGINT"


def distinct_visitors(events: DataFrame):
    both = events.groupBy("page").agg(
        F.count_distinct("user").alias("visitors"),
        F.sum("ms").alias("ms"),
    )
    alone = events.groupBy("page").agg(F.countDistinct(F.col("ms")))
    return both, alone

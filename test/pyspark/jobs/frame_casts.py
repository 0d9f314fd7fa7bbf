"""DataFrame subset: casts from string (Spark 3.5, ANSI off). A text that
is not a number gives NULL, not a failed job, and Spark's parse is not
Python's: " 12 " and "1.9" are integers, "1_0" is not, "yes" is true. A
double cast to int saturates."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

RAW_SCHEMA = "id STRING, qty STRING, price STRING, flag STRING, ratio DOUBLE"


def typed(raw: DataFrame) -> DataFrame:
    cast = raw.select(
        "id",
        F.col("qty").cast("int").alias("qty"),
        F.col("id").cast("bigint").alias("key"),
        F.col("price").cast("double").alias("price"),
        F.col("flag").cast("boolean").alias("flag"),
        F.col("ratio").cast("int").alias("whole"),
    )
    labelled = cast.withColumn(
        "status",
        F.when(F.col("qty").isNull(), "bad qty")
        .when(F.col("price").isNull(), "bad price")
        .when(F.col("flag"), "flagged")
        .otherwise("ok"),
    )
    return labelled.filter(F.col("key").isNotNull() | (F.col("qty") > 10))

"""DataFrame subset: NULL through expressions, three-valued filters, a zero
divisor, coalesce, eqNullSafe, isin, when without otherwise, string
functions and the casts coco models (Spark 3.5, ANSI off)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

READINGS_SCHEMA = "sensor STRING, a BIGINT, b BIGINT, x DOUBLE, ok BOOLEAN"


def null_semantics(readings: DataFrame) -> DataFrame:
    # A NULL condition drops the row like false; `|` is known when one
    # side is true.
    kept = readings.filter((F.col("a") > 0) | F.col("ok"))
    return kept.select(
        "sensor",
        (F.col("a") + F.col("b")).alias("sum"),
        (F.col("a") / F.col("b")).alias("ratio"),
        (F.col("a") % F.col("b")).alias("rest"),
        F.coalesce(F.col("x"), F.col("a").cast("double"), F.lit(-1.0)).alias("first"),
        F.col("a").eqNullSafe(F.col("b")).alias("same"),
        (F.col("a") == F.col("b")).alias("equal"),
        F.col("b").isin(1, 2).alias("small"),
        F.when(F.col("x") > 2.5, "high").alias("level"),
        F.concat(F.col("sensor"), F.lit("-"), F.col("a").cast("string")).alias("tag"),
        F.lower("sensor").alias("lower"),
        F.length("sensor").alias("width"),
        (~F.col("ok") & F.col("b").isNotNull()).alias("flag"),
        F.col("ok").cast("string").alias("ok_text"),
        (-F.col("x") * 2).alias("scaled"),
    )

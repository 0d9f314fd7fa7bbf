"""DataFrame subset: INT input columns. Generated values stay within 32
bits (what createDataFrame accepts for IntegerType), so a path that needs
more is infeasible; INT arithmetic wraps at 32 bits and sum() of INT is
BIGINT, as in Spark (ANSI off)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ITEMS_SCHEMA = "sku STRING NOT NULL, units INT, price_cents INT NOT NULL"


def stock_value(items: DataFrame) -> tuple:
    valued = items.withColumn("cents", F.col("units") * F.col("price_cents"))
    huge = items.filter(F.col("price_cents") > 3000000000)
    per_sku = valued.groupBy("sku").agg(F.sum("units").alias("units"), F.max("cents").alias("top"))
    return per_sku, huge

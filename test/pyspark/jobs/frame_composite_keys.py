"""DataFrame subset: groupBy and join on several columns. A NULL key column
groups with the other NULLs of that column in an aggregate, but matches
nothing in a join (its row is unmatched); each key column's NULL is a
decision."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

SALES_SCHEMA = "day STRING NOT NULL, country STRING, amount BIGINT"
TARGETS_SCHEMA = "day STRING, country STRING, target BIGINT"


def targets_met(sales: DataFrame, targets: DataFrame) -> tuple:
    totals = sales.groupBy("day", F.col("country")).agg(
        F.sum("amount").alias("total"), F.count("*").alias("n")
    )
    joined = totals.join(targets, ["day", "country"], "left")
    met = joined.withColumn("met", F.col("total") >= F.col("target"))
    missed = targets.join(sales, on=["country", "day"], how="left_anti")
    return met, missed

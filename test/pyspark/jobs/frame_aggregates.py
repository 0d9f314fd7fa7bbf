"""DataFrame subset: groupBy aggregates skip NULL inputs, a group of only
NULLs sums to NULL, NULL keys make one group, and a group's count of a
column counts its values."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

SALES_SCHEMA = "store STRING, units BIGINT, price DOUBLE"


def store_summary(sales: DataFrame):
    summary = sales.groupBy("store").agg(
        F.sum("units").alias("units"),
        F.count("price").alias("priced"),
        F.count("*").alias("rows"),
        F.min("price").alias("cheapest"),
        F.max(F.col("units") * 2).alias("most"),
        F.avg("units").alias("mean_units"),
    )
    counts = sales.filter(F.col("units") >= 10).groupBy("store").count()
    return summary, counts

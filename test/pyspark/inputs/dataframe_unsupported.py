"""DataFrame code outside what coco-bigtest reads: one function per
construct, chosen with --entry (test/pyspark/dataframe-unsupported.mlir)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf

SALES_SCHEMA = "store STRING, day STRING, amount DOUBLE, units BIGINT"
COUNTS_SCHEMA = "store STRING, n DATE"
STORES_SCHEMA = "store STRING, city STRING"

scale = pandas_udf(lambda s: s * 2, "double")


def missing_schema(events: DataFrame) -> DataFrame:
    return events.filter(F.col("kind") == "click")


def date_column(counts: DataFrame) -> DataFrame:
    return counts.filter(F.col("n") > 0)


def limited(sales: DataFrame) -> DataFrame:
    return sales.orderBy("amount").limit(10)


def condition_join(sales: DataFrame, stores: DataFrame) -> DataFrame:
    return sales.join(stores, sales.store == stores.store)


def cross_join(sales: DataFrame, stores: DataFrame) -> DataFrame:
    return sales.join(stores, "store", "cross")


def double_keys(sales: DataFrame) -> DataFrame:
    return sales.groupBy("store", "amount").count()


def double_text(sales: DataFrame) -> DataFrame:
    return sales.withColumn("amount_text", F.col("amount").cast("string"))


def regexp(sales: DataFrame) -> DataFrame:
    return sales.select(F.regexp_extract("day", r"(\d+)", 1))


def subset_duplicates(sales: DataFrame) -> DataFrame:
    return sales.dropDuplicates(["store"])


def sql_filter(sales: DataFrame) -> DataFrame:
    return sales.filter("amount > 0 AND note RLIKE 'x'")


def pandas(sales: DataFrame) -> DataFrame:
    return sales.select(scale("amount"))


def unknown_column(sales: DataFrame) -> DataFrame:
    return sales.select(F.col("price") * 2)


def python_and(sales: DataFrame) -> DataFrame:
    return sales.filter((F.col("amount") > 0) and (F.col("units") > 1))


def again(df):
    return again(df.filter(F.col("amount") > 0))


def recursive_helper(sales: DataFrame) -> DataFrame:
    return again(sales)


def count_of(df):
    n = df.count()
    return n


def helper_without_frame(sales: DataFrame) -> DataFrame:
    return count_of(sales)


def range_join(sales: DataFrame, stores: DataFrame) -> DataFrame:
    return sales.join(stores, sales.day < stores.city)

"""DataFrame subset: helper functions. A function under test calls the
job's own helpers (`def valid(df): return df.filter(...)`), which are read
as if their bodies stood at the call: DataFrames by name, constants,
defaults and Column expressions as code."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ORDERS_SCHEMA = "day STRING NOT NULL, country STRING, amount BIGINT"
RATES_SCHEMA = "day STRING NOT NULL, country STRING, rate DOUBLE"

MIN_AMOUNT = 10


def valid(df, minimum=MIN_AMOUNT):
    """Rows worth keeping."""
    return df.filter(F.col("amount") >= minimum)


def with_value(orders, rates, how="left"):
    joined = orders.join(rates, ["day", "country"], how)
    return joined.withColumn("value", F.col("amount") * F.col("rate"))


def flagged(df, condition):
    return df.withColumn("flag", F.when(condition, "big").otherwise("small"))


def converted(orders: DataFrame, rates: DataFrame) -> DataFrame:
    big = F.col("amount") > 100
    return flagged(with_value(valid(orders, minimum=5), rates), big)

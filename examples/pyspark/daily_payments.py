"""Per-day payment figures where amounts may be missing: settled payments
are summed and counted per day, refunds count against the day, and a
payment of no amount is counted apart. The export writes amounts as text,
and an unreadable one ("n/a") counts as missing: the cast gives NULL.

    python daily_payments.py data/payments.csv /tmp/out-daily_payments
"""
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

PAYMENTS_SCHEMA = "payment_id STRING, day STRING, amount STRING, status STRING"

LARGE_PAYMENT = 500.0


def daily_payments(payments: DataFrame) -> DataFrame:
    settled = payments.filter(F.col("status").isin("settled", "refunded")).withColumn(
        "amount", F.col("amount").cast("double")
    )
    signed = settled.withColumn(
        "net",
        F.when(F.col("status") == "refunded", -F.col("amount")).otherwise(F.col("amount")),
    ).withColumn("large", (F.col("amount") >= LARGE_PAYMENT).cast("bigint"))
    return signed.groupBy("day").agg(
        F.sum("net").alias("net"),
        F.count("amount").alias("priced"),
        F.count("*").alias("payments"),
        F.sum("large").alias("large"),
        F.max("amount").alias("largest"),
    )


if __name__ == "__main__":
    spark = SparkSession.builder.appName("daily_payments").getOrCreate()
    payments = spark.read.csv(sys.argv[1], schema=PAYMENTS_SCHEMA, header=True)
    daily_payments(payments).write.mode("overwrite").csv(sys.argv[2])
    spark.stop()

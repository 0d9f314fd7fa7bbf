"""DataFrame subset: the schemas of the function's DataFrames as its
`__main__` block reads them (a DDL string inline, and a constant through
`spark.read.schema`), with no `<PARAM>_SCHEMA` constant."""
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

USER_TABLE = "user STRING, tier STRING"


def big_spenders(purchases: DataFrame, users: DataFrame) -> DataFrame:
    spent = purchases.groupBy("user").agg(F.sum("amount").alias("spent"))
    return spent.filter(F.col("spent") > 100.0).join(users, "user", "left")


if __name__ == "__main__":
    spark = SparkSession.builder.appName("big_spenders").getOrCreate()
    purchases = spark.read.csv(sys.argv[1], schema="user STRING, amount DOUBLE", header=True)
    big_spenders(purchases, spark.read.schema(USER_TABLE).json(sys.argv[2])).write.csv(sys.argv[3])
    spark.stop()

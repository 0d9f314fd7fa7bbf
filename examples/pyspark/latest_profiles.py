"""The latest profile of each user over two exports of a profile table,
without a window: duplicate rows are dropped, the latest update time per
user is found with groupBy, and the rows of that time are kept. A user
whose rows have no update time at all keeps them (NULL matches NULL).

    python latest_profiles.py data/profiles_old.csv data/profiles_new.csv /tmp/out
"""
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

OLD_SCHEMA = "user_id BIGINT, email STRING, updated BIGINT"
NEW_SCHEMA = "user_id BIGINT, email STRING, updated BIGINT"


def latest_profiles(old: DataFrame, new: DataFrame) -> DataFrame:
    profiles = old.union(new).dropDuplicates()
    known = profiles.filter(F.col("user_id").isNotNull())
    latest = known.groupBy("user_id").agg(F.max("updated").alias("latest"))
    current = known.join(latest, "user_id").filter(F.col("updated").eqNullSafe(F.col("latest")))
    return current.select(
        "user_id",
        F.lower(F.col("email")).alias("email"),
        F.col("email").isNull().alias("missing_email"),
    )


if __name__ == "__main__":
    spark = SparkSession.builder.appName("latest_profiles").getOrCreate()
    old = spark.read.csv(sys.argv[1], schema=OLD_SCHEMA, header=True)
    new = spark.read.csv(sys.argv[2], schema=NEW_SCHEMA, header=True)
    latest_profiles(old, new).write.mode("overwrite").csv(sys.argv[3])
    spark.stop()

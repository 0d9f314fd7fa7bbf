"""DataFrame subset: Spark's column-name rules. Names resolve
case-insensitively (`"NAME"` finds `name`, `withColumn("V", ...)` replaces
`v`), a backticked name holds a dot (`` col("`a.b`") ``), `select` of
several names keeps them for a later `groupBy` (issue 52), a condition
on the original DataFrame's column filters `select("*")`, and the subsets
of `fillna` and `dropna` resolve as column references do."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

PEOPLE_SCHEMA = StructType([
    StructField("name", StringType()),
    StructField("State", StringType()),
    StructField("a.b", LongType()),
    StructField("v", LongType()),
])


def column_names(people: DataFrame) -> tuple:
    picked = people.select("NAME", "v").groupBy("name").agg(F.sum("V").alias("total"))
    dotted = people.withColumn("V", F.col("`a.b`") + F.col("v")).select("Name", "v")
    in_ca = people.select("*").where(people.State == "CA").select(F.col("state"), "`a.b`")
    cleaned = people.fillna("none", subset=["STATE"]).dropna(subset=["NAME"])
    return picked, dotted, in_ca, cleaned

"""DataFrame subset: string functions on NULL-able columns: concat_ws skips
NULLs, substring is 1-based, split/getItem past the end is NULL, a typed
NULL literal, the string tests, and trim (spaces only, not Python's
whitespace)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

PEOPLE_SCHEMA = "first STRING, last STRING, code STRING"


def string_functions(people: DataFrame) -> DataFrame:
    parts = F.split("code", "-")
    return people.select(
        F.concat_ws(" ", "first", F.col("last")).alias("full"),
        F.substring("code", 2, 3).alias("middle"),
        parts.getItem(1).alias("second"),
        F.split(F.col("code"), "-")[2].alias("third"),
        F.lit(None).cast("string").alias("nothing"),
        F.col("first").startswith("A").alias("a_name"),
        # isNull is a decision: the data has NULL names.
        F.col("first").isNull().alias("no_first"),
        F.col("last").isNull().alias("no_last"),
        F.col("last").endswith("son").alias("son"),
        F.col("code").contains("x").alias("has_x"),
        F.upper("last").alias("upper"),
        F.when(F.trim(F.col("first")) == "", "blank").otherwise(F.ltrim("first")).alias("given"),
        F.rtrim("last").alias("family"),
    )

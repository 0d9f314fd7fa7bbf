"""DataFrame subset: parameters named `spark` (the generated module's
fixture, here not the last parameter) and `job` (the module it imports)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

SPARK_SCHEMA = "k STRING, v BIGINT"
JOB_SCHEMA = "k STRING, w BIGINT"


def shadowed(spark: DataFrame, job: DataFrame) -> DataFrame:
    return spark.join(job, on="k", how="inner").withColumn("s", F.col("v") + F.col("w"))

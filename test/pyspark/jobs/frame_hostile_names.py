"""DataFrame subset: column names a StructType may hold (quotes, @, a
newline) name the df functions made for them only through a plain symbol:
the df text stays valid and the job runs as written."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

T_SCHEMA = StructType([StructField('a"b @x(', StringType()), StructField("n\nm", LongType())])


def hostile_names(t: DataFrame) -> DataFrame:
    return t.groupBy('a"b @x(').agg(F.sum("n\nm").alias("total"))

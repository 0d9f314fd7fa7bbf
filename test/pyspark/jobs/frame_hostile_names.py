"""DataFrame subset: column names a StructType may hold (quotes, @, a
newline) name the df functions made for them only through a plain symbol:
the df text stays valid and the job runs as written. Names that look like
coco's own helper columns (`_on0` beside a join condition, `_k_present`
beside a NULL-able key `k`) stay the user's."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

T_SCHEMA = StructType([StructField('a"b @x(', StringType()), StructField("n\nm", LongType())])
A_SCHEMA = StructType([
    StructField("_on0", StringType(), False),
    StructField('we"ird\nkey', StringType(), True),
    StructField('_we"ird\nkey_present', StringType(), True),
    StructField("v", LongType(), True),
])
B_SCHEMA = StructType([StructField("x y", StringType(), True), StructField("w", LongType(), True)])


def hostile_names(t: DataFrame, a: DataFrame, b: DataFrame) -> tuple:
    totals = t.groupBy('a"b @x(').agg(F.sum("n\nm").alias("total"))
    keyed = a.groupBy('_we"ird\nkey_present', 'we"ird\nkey').agg(F.sum("v").alias("s"))
    joined = a.join(b, a["_on0"] == b["x y"], "left")
    return totals, keyed, joined

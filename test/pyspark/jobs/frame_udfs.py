"""DataFrame subset: Python UDFs get NULL as None, and their results are
coerced to the declared type as Spark does: another Python type is NULL,
a string column takes any value's text, an IntegerType wraps at 32 bits,
and an exception fails the job."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, DoubleType, IntegerType, LongType, StringType

LINES_SCHEMA = "value STRING, n BIGINT"


def parse_amount(text):
    if text is None:
        return None
    if "," not in text:
        return -1
    return int(text.split(",")[1])


amount = F.udf(parse_amount, LongType())
same_as_double = F.udf(lambda n: n, DoubleType())
same_as_text = F.udf(lambda n: n, StringType())
is_big = F.udf(lambda n: n is not None and n > 1000, StringType())
wrapped = F.udf(lambda n: 0 if n is None else n * 1000, IntegerType())


@F.udf(returnType=BooleanType())
def has_header(text):
    return text is not None and text.startswith("#")


def udf_results(lines: DataFrame) -> DataFrame:
    return lines.select(
        amount("value").alias("amount"),
        same_as_double(F.col("n")).alias("as_double"),
        same_as_text("n").alias("as_text"),
        is_big("n").alias("big"),
        wrapped("n").alias("wrapped"),
        has_header("value").alias("header"),
    )

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

PEOPLE_SCHEMA = "name STRING, `a.b` BIGINT"
CASED_SCHEMA = "name STRING, NAME BIGINT"
NBSP_SCHEMA = "name\u00a0STRING"
NUL_SCHEMA = "a\x00b STRING"
QUOTES_SCHEMA = '""" STRING'


def dotted(people: DataFrame) -> DataFrame:
    return people.select(F.col("a.b"))


def cased(cased: DataFrame) -> DataFrame:
    return cased.select("name")


def nbsp(nbsp: DataFrame) -> DataFrame:
    return nbsp


def nul(nul: DataFrame) -> DataFrame:
    return nul


def quotes(quotes: DataFrame) -> DataFrame:
    return quotes

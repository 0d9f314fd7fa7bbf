"""A script that makes DataFrames of RDDs: createDataFrame(rdd, schema) of
parsed records (an INT column out of 32 bits fails the job, as Spark's
verifySchema does), createDataFrame(lines, StringType()), and rdd.toDF."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.appName("from-rdd").getOrCreate()
sc = spark.sparkContext
lines = sc.textFile(sys.argv[1])
records = lines.map(lambda l: l.split(",")).map(lambda p: (p[0], int(p[1])))
scores = spark.createDataFrame(records, "name STRING, score INT")
scores.groupBy("name").agg(F.max("score").alias("best")).show()
words = spark.createDataFrame(lines, StringType())
print("lines:", words.where(F.size(F.split(F.col("value"), " ")) > 1).count())
pairs = records.map(lambda r: (r[0].upper(), r[1] * 2)).toDF(["upper", "doubled"])
pairs.where("doubled > 10").write.csv(sys.argv[2])

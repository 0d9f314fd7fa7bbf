"""A DataFrame script whose output is what it shows: df.show() prints
Spark's table (NULL, Java's text of a double, cells cut to 20 characters),
show(n, truncate=False) another, show(df.count()) every row; what it
prints of count()s, of collected Rows and of the schema it reads."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as func

spark = SparkSession.builder.appName("FriendsByAge").getOrCreate()
people = spark.read.csv(
    "friends.csv", schema="name STRING, age INT, friends INT", header=True
)
people.printSchema()
by_age = people.select("age", "friends").groupBy("age")
by_age.avg("friends").show()
by_age.agg(func.round(func.avg("friends"), 2).alias("friends_avg")).sort("age").show(5, False)
people.where("friends > 100").select("name").show(truncate=8)
adults = people.filter(func.col("age") >= 18).count()
print("adults: " + str(adults))
print("groups:", people.groupBy("age").count().count())
counts = by_age.count()
counts.show(counts.count())
for row in counts.collect():
    print(row["age"], row[1], row.age)
spark.stop()

from pyspark import SparkContext

if __name__ == "__main__":
    sc = SparkContext(appName="fixed")
    lines = sc.textFile("/var/log/app.log")
    lines.filter(lambda line: line.startswith("E")).saveAsTextFile("errors")

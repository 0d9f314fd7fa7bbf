"""A script as course material writes it: the work in main(), fixed paths
outside any test's folder (a file:// URI to read, an hdfs:// folder to
save to), and the RDD cached by a statement of its own."""
from pyspark import SparkContext


def parse(line):
    fields = line.split(",")
    return (fields[0], int(fields[2]))


def main():
    sc = SparkContext(appName="script_fixed_paths")
    sc.setLogLevel("ERROR")
    orders = sc.textFile("file:///sparkcourse/customer-orders.csv")
    spent = orders.map(parse).reduceByKey(lambda a, b: a + b)
    spent.cache()
    spent.map(lambda kv: "%s\t%d" % kv).saveAsTextFile("hdfs:///user/spark/spent-by-customer")
    for customer, total in spent.sortBy(lambda kv: kv[1]).collect():
        print(customer, total)
    sc.stop()


if __name__ == "__main__":
    main()

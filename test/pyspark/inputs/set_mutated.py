from pyspark import RDD

STOPWORDS = {"the", "a"}
STOPWORDS.add("of")


def words(lines: RDD) -> RDD:
    return lines.flatMap(lambda line: line.split()).filter(lambda w: w not in STOPWORDS)

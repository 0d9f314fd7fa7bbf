"""DataFrame subset: withColumns computes every column from the input row,
and greatest/least skip NULLs (NULL only where every value is)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

SCORES_SCHEMA = "player STRING, first BIGINT, second BIGINT, bonus DOUBLE"


def best_scores(scores: DataFrame) -> DataFrame:
    return scores.withColumns(
        {
            "best": F.greatest("first", "second"),
            "worst": F.least(F.col("first"), F.col("second"), F.lit(100)),
            "total": F.greatest(F.col("first") + F.col("bonus"), F.lit(0.0)),
            "first": F.col("first") * 2,
            "missing": F.col("second").isNull(),
            "no_first": F.col("first").isNull(),
        }
    )

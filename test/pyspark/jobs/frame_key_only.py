"""DataFrame subset: joins where a side has only the key column (df's join
needs a value beside the key: coco pads such a side and drops the pad)."""
from pyspark.sql import DataFrame

SEEN_SCHEMA = "id BIGINT"
BANNED_SCHEMA = "id BIGINT"


def key_only_joins(seen: DataFrame, banned: DataFrame):
    return seen.join(banned, "id"), seen.join(banned, "id", "full"), seen.join(banned, "id", "left_anti")

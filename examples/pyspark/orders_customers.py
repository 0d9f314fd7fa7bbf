"""Revenue per country from an orders export joined with the customer table.

orders.csv:    order_id,customer_id,product,quantity,unit_price_cents
customers.csv: customer_id,name,country

Both files carry a header line. Orders with a non-positive quantity
(cancellations) and malformed rows are skipped. Some orders reference
customers that are not (yet) in the customer table; their revenue is kept
under the country "unknown" instead of being lost in the join.

Usage: orders_customers.py <orders.csv> <customers.csv> <revenue_out>
"""
import sys

from pyspark import SparkContext

UNKNOWN_COUNTRY = "unknown"


def parse_order(line):
    """(customer_id, revenue in cents) of one order row, or None."""
    try:
        fields = line.split(",")
        customer_id = fields[1].strip()
        quantity = int(fields[3])
        price_cents = int(fields[4])
        if quantity <= 0:
            return None
        return (customer_id, quantity * price_cents)
    except (ValueError, IndexError):
        return None


def parse_customer(line):
    """(customer_id, country) of one customer row, or None."""
    try:
        cols = line.split(",")
        customer_id = cols[0].strip()
        country = cols[2].strip().upper()
        return (customer_id, country)
    except (ValueError, IndexError):
        return None


def country_revenue(pair):
    """Re-key a joined order by its customer's country."""
    customer_id, joined = pair
    revenue, country = joined
    name = country if country is not None else UNKNOWN_COUNTRY
    return (name, revenue)


def revenue_by_country(order_lines, customer_lines):
    """Total revenue in cents per customer country."""
    orders = (order_lines
              .filter(lambda line: not line.startswith("order_id"))
              .map(parse_order)
              .filter(lambda r: r is not None))
    customers = (customer_lines
                 .filter(lambda line: not line.startswith("customer_id"))
                 .map(parse_customer)
                 .filter(lambda c: c is not None))
    joined = orders.leftOuterJoin(customers)
    return joined.map(country_revenue).reduceByKey(lambda a, b: a + b)


if __name__ == "__main__":
    sc = SparkContext(appName="orders_customers")
    orders = sc.textFile(sys.argv[1])
    customers = sc.textFile(sys.argv[2])
    revenue_by_country(orders, customers).saveAsTextFile(sys.argv[3])
    sc.stop()

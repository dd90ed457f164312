"""records (see records.dfs): n orders, a class of five fields (with __slots__), in a
list, then scanned once."""
import sys

from wordgen import next_random


class Order:
    __slots__ = ("id", "customer", "quantity", "cents", "express")

    def __init__(self, ident, customer, quantity, cents, express):
        self.id = ident
        self.customer = customer
        self.quantity = quantity
        self.cents = cents
        self.express = express


def main(n):
    orders = []
    for i in range(n):
        customer = next_random() % 1000
        quantity = 1 + next_random() % 10
        cents = 100 + next_random() % 9900
        express = next_random() % 7 == 0
        orders.append(Order(i, customer, quantity, cents, express))
    revenue, express = 0, 0
    largest, largest_id = 0, -1
    per_customer = [0] * 1000
    for order in orders:
        total = order.quantity * order.cents
        revenue += total
        if order.express:
            express += 1
        if total > largest:
            largest, largest_id = total, order.id
        per_customer[order.customer] += total
    best = 0
    for c in range(len(per_customer)):
        if per_customer[c] > per_customer[best]:
            best = c
    print("%d orders, revenue %d, %d express" % (n, revenue, express))
    print("largest order: %d (%d)" % (largest_id, largest))
    print("best customer: %d (%d)" % (best, per_customer[best]))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)

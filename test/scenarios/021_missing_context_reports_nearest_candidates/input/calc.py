import math

def compute_totals(items):
    return sum(items)

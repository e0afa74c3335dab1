def f(x):
    if x:
        y = 1
        z = y + 1
        return z
    return 0

def f(x):
    if x:
        y = 1
        log(x)
        return y
    return 0

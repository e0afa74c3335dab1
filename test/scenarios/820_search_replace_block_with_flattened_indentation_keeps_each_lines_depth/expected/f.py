def f(x):
    if x:
        b()
    return x

def f(x):
    if x:
        a()
    return x
